/**
 * Codex's `[[skills.config]]` switches (read by the settings plugin from ~/.codex/config.toml)
 * applied to the skills a run loaded: a skill whose last matching entry says `enabled = false` is
 * not offered at all (not listed, not loadable), as in Codex. An entry matches a skill by `path`
 * (its SKILL.md or its folder, links resolved as Codex canonicalizes them) or by `name`.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import type { SkillSwitch } from "../settings/api";
import { SKILL_FILE } from "./load";
import type { Skill } from "./skill";

const real = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** Whether `entry` names `skill`. */
function names(entry: SkillSwitch, skill: Skill): boolean {
  if (entry.name !== undefined) return entry.name === skill.name;
  if (entry.path === undefined) return false;
  const target = real(entry.path);
  return target === real(skill.dir) || target === real(join(skill.dir, SKILL_FILE));
}

/** `skills` without those the switches turn off, and the ones turned off. */
export function applySkillSwitches(
  skills: readonly Skill[],
  switches: readonly SkillSwitch[],
): { kept: Skill[]; off: { skill: Skill; file: string }[] } {
  if (!switches.length) return { kept: [...skills], off: [] };
  const kept: Skill[] = [];
  const off: { skill: Skill; file: string }[] = [];
  for (const skill of skills) {
    const last = switches.findLast((entry) => names(entry, skill));
    if (last && !last.enabled) off.push({ skill, file: last.file });
    else kept.push(skill);
  }
  return { kept, off };
}
