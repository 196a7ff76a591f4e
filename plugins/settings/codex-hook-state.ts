/**
 * Codex's record of the hooks a user reviewed (`/hooks`), kept in config.toml under
 * `[hooks.state."<file>:<event>:<group>:<handler>"]`: `trusted_hash` (Codex's own trust of that
 * handler) and `enabled = false` (the user turned it off). It sits in the `[hooks]` table but is no
 * event: it was read as one (`the hook event "state" is not one ubiquity fires`), and the hooks the
 * user had turned off ran (NullSense/dotfiles turns off three Stop hooks of its hooks.json).
 *
 * Here `state` is taken out of the hook tables, and each handler a key turns off is taken out of the
 * Codex hook file it names (hooks.json, or a config.toml's own `[hooks]`), as Codex does. Turning a
 * hook off is no restriction (a hook that blocks is a guard): a key applies only from a file that
 * applies in full, a project's only to the project's hook files (red team zl, ZL1; ./codex-files);
 * `trusted_hash` is Codex's trust, not ubiquity's (a project's hooks apply only when ubiquity's
 * trust says so), and is not read.
 */
import { resolve } from "node:path";
import { isRecord } from "../_kits/json/index";
import type { SettingsFile } from "./schema";

/** The `[hooks]` table without its `state`, and the keys of the handlers `state` turns off. */
export function hookStateOf(hooks: unknown): { hooks: unknown; disabled: string[] } {
  if (!isRecord(hooks) || !("state" in hooks)) return { hooks, disabled: [] };
  const { state, ...tables } = hooks;
  const disabled = isRecord(state)
    ? Object.entries(state)
        .filter(([, entry]) => isRecord(entry) && entry.enabled === false)
        .map(([key]) => key)
    : [];
  return { hooks: tables, disabled };
}

/** `pre_tool_use` → `PreToolUse`: Codex's keys name events in snake case. */
const eventName = (snake: string) =>
  snake
    .split("_")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");

/**
 * Take the handlers `disabled` names out of the Codex hook files among `files` (`codex`: whether a
 * file is Codex's); returns what was taken out, as `file event[group][handler]`, for the log.
 */
export function dropDisabledHooks(
  files: { path: string; settings: SettingsFile }[],
  disabled: readonly string[],
  codex: (path: string) => boolean,
): string[] {
  const dropped: string[] = [];
  for (const key of disabled) {
    const m = /^(.+):([a-z_]+):(\d+):(\d+)$/.exec(key);
    if (!m) continue;
    const [, file, snake, group, handler] = m as unknown as [string, string, string, string, string];
    const event = eventName(snake);
    for (const f of files) {
      if (!codex(f.path) || resolve(f.path) !== resolve(file) || !isRecord(f.settings.hooks)) continue;
      const groups = f.settings.hooks[event];
      const target = Array.isArray(groups) ? groups[Number(group)] : undefined;
      if (!isRecord(target) || !Array.isArray(target.hooks) || target.hooks[Number(handler)] === undefined) continue;
      // Marked, not spliced: the other keys' indices are those of the file as written.
      const hooks = target.hooks.map((h, i) => (i === Number(handler) ? undefined : h));
      const copy = [...(groups as unknown[])];
      copy[Number(group)] = { ...target, hooks };
      f.settings = { ...f.settings, hooks: { ...f.settings.hooks, [event]: copy } };
      dropped.push(`${f.path} ${event}[${group}][${handler}]`);
    }
  }
  for (const f of files) {
    if (!codex(f.path) || !isRecord(f.settings.hooks) || !dropped.some((d) => d.startsWith(`${f.path} `))) continue;
    const tables = Object.entries(f.settings.hooks).map(([event, groups]) => [
      event,
      Array.isArray(groups)
        ? groups
            .map((g) =>
              isRecord(g) && Array.isArray(g.hooks) ? { ...g, hooks: g.hooks.filter((h) => h !== undefined) } : g,
            )
            .filter((g) => !isRecord(g) || !Array.isArray(g.hooks) || g.hooks.length > 0)
        : groups,
    ]);
    f.settings = { ...f.settings, hooks: Object.fromEntries(tables) };
  }
  return dropped;
}
