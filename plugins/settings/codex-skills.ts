/**
 * Codex's `[[skills.config]]` (`~/.codex/config.toml`): entries that turn a skill off (or on again)
 * without deleting it, each naming the skill by `path` (its SKILL.md or its folder) or by `name`,
 * with a required `enabled`; a later entry wins over an earlier one for the same skill. Codex reads
 * them from the user's file alone. They were ignored: GLaDO8/dotfiles turns off 101 skills so, and
 * a run offered every one of them to the model (`$backup`, `$smartcommit`, …).
 *
 * Read here into switches the skills plugin applies to the skills it loaded (see
 * plugins/skills/codex-switches.ts); the table's other keys (`bundled`, `include_instructions`)
 * are named as not applied.
 */
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { isRecord } from "../_kits/json/index";
import type { SkillSwitch } from "./api";

/** The switches of a `skills` table (`path` made absolute: `~/` is the home folder, a relative one is the file's folder's). */
export function skillSwitchesOf(
  skills: unknown,
  file: string,
  report: (message: string) => void,
  home: string = homedir(),
): SkillSwitch[] {
  if (skills === undefined) return [];
  if (!isRecord(skills)) {
    report("skills is not a table; it was ignored");
    return [];
  }
  const other = Object.keys(skills).filter((k) => k !== "config");
  if (other.length) report(`[skills] ${other.join(", ")} not applied (only [[skills.config]] entries are read)`);
  const entries = skills.config;
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) {
    report("skills.config is not a list of [[skills.config]] entries; it was ignored");
    return [];
  }
  const out: SkillSwitch[] = [];
  entries.forEach((entry, i) => {
    const at = `[[skills.config]] entry ${i + 1}`;
    if (!isRecord(entry) || typeof entry.enabled !== "boolean") {
      report(`${at} has no enabled = true or false (Codex refuses such a file); it was ignored`);
      return;
    }
    const { path, name } = entry;
    if (typeof path === "string" && path.trim()) {
      const written = path.trim();
      const absolute =
        written === "~" || written.startsWith("~/")
          ? join(home, written.slice(1))
          : isAbsolute(written)
            ? written
            : resolve(dirname(file), written);
      out.push({ path: absolute, enabled: entry.enabled, file });
    } else if (typeof name === "string" && name.trim()) out.push({ name: name.trim(), enabled: entry.enabled, file });
    else report(`${at} names no skill (a path or a name); it was ignored`);
    const unread = Object.keys(entry).filter((k) => !["path", "name", "enabled"].includes(k));
    if (unread.length) report(`${at}: ${unread.join(", ")} not read`);
  });
  return out;
}
