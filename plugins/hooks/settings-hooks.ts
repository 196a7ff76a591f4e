/**
 * Command hooks from settings files (`settingSources`): the `"hooks"` key in the Claude Code
 * shape. Read entry by entry, never as a whole: an unknown event, a handler type this plugin
 * does not run (`prompt`, `agent`, `http`, or a typo) or a malformed entry is skipped with a
 * warning naming it and the file — the file's other hooks still apply. Dropping the whole key
 * for one entry we do not understand would silently drop its guards (a PreToolUse `rm -rf`
 * guard next to a newer event is the case that ran `rm -rf`).
 */
import { ConfigError, type Kernel } from "../../src/index";
import { readRegularFileSync, type ProjectTrust } from "../../loader/index";
import { HOOK_EVENTS, type HookEventName } from "./options";
import { getSettingsApi } from "../settings/api";
import { expandPluginRoot, MAX_DEFINITION_BYTES, readPlugins, warn, warnOnce } from "../_kits/sources/index";
import type { CommandHook, HookMatcherGroup, HooksConfig } from "./types";
import { compileIf } from "./if-filter";

const SOURCE = "ubiquity:hooks";
const isEvent = (name: string): name is HookEventName => (HOOK_EVENTS as readonly string[]).includes(name);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const json = (v: unknown) => JSON.stringify(v)?.slice(0, 80) ?? String(v);

/** Handler types Claude Code documents that this plugin does not run (yet): skipped by name. */
const NOT_RUN_TYPES = new Set(["prompt", "agent", "http"]);

/**
 * The command hooks of one settings file's `hooks` value, entry by entry; `report` is called once
 * per skipped entry with a message naming it. Never throws.
 */
export function readFileHooks(value: unknown, report: (message: string) => void): HooksConfig {
  const out: Partial<Record<HookEventName, HookMatcherGroup[]>> = {};
  if (!isRecord(value)) {
    report(`its "hooks" key is ${json(value)}, not an object of events; no hooks were read from it`);
    return out;
  }
  for (const [event, groups] of Object.entries(value)) {
    if (!isEvent(event)) {
      report(`the hook event ${json(event)} is not one ubiquity fires (known: ${HOOK_EVENTS.join(", ")}); its hooks were skipped, the file's other hooks apply`);
      continue;
    }
    if (!Array.isArray(groups)) {
      report(`hooks.${event} is not a list of matcher groups; skipped`);
      continue;
    }
    groups.forEach((group, g) => {
      const where = `hooks.${event}[${g}]`;
      if (!isRecord(group) || !Array.isArray(group.hooks)) {
        report(`${where} is not {"matcher"?, "hooks": [...]}; skipped`);
        return;
      }
      if (group.matcher !== undefined && typeof group.matcher !== "string") {
        report(`${where}.matcher is ${json(group.matcher)}, not a string; the group was skipped`);
        return;
      }
      const hooks: CommandHook[] = [];
      group.hooks.forEach((handler, h) => {
        const at = `${where}.hooks[${h}]`;
        const hook = commandHook(handler);
        if (typeof hook === "string") report(`${at}: ${hook}; skipped, the file's other hooks apply`);
        else hooks.push(checkIf(hook, at, report));
      });
      if (hooks.length > 0) (out[event] ??= []).push({ ...(group.matcher !== undefined ? { matcher: group.matcher } : {}), hooks });
    });
  }
  return out;
}

/** A command hook, or why the handler is not one this plugin runs. */
function commandHook(handler: unknown): CommandHook | string {
  if (!isRecord(handler)) return `${json(handler)} is not a hook handler object`;
  const { type } = handler;
  if (type !== "command") {
    if (typeof type === "string" && NOT_RUN_TYPES.has(type)) return `handler type "${type}" is not supported by ubiquity (only "command" hooks run from settings files)`;
    return `unknown handler type ${json(type)} (only "command" hooks run from settings files)`;
  }
  if (typeof handler.command !== "string" || handler.command.trim() === "") return `a command hook without a "command" string`;
  const timeout = handler.timeout;
  if (timeout !== undefined && (typeof timeout !== "number" || !(timeout > 0))) return `timeout ${json(timeout)} is not a positive number of seconds`;
  const condition = handler.if;
  if (condition !== undefined && (typeof condition !== "string" || !condition.trim())) return `"if" ${json(condition)} is not a permission rule string`;
  return { type: "command", command: handler.command, ...(timeout !== undefined ? { timeout } : {}), ...(condition !== undefined ? { if: condition.trim() } : {}) };
}

/** A hook whose `if` is not a rule runs for every call (fail safe: a guard stays on), with a warning naming it. */
function checkIf(hook: CommandHook, at: string, report: (message: string) => void): CommandHook {
  if (hook.if === undefined) return hook;
  const compiled = compileIf(hook.if);
  if (typeof compiled !== "string") return hook;
  report(`${at}: its "if" is not a permission rule (${compiled}); the hook runs for every call its matcher selects`);
  const { if: _dropped, ...rest } = hook;
  return rest;
}

/** Where the plugins' hooks come from: the `claudePlugins` folders, with the run's cwd and trust. */
export interface PluginHooksPlace {
  claudePlugins?: readonly string[];
  cwd: string;
  trust?: ProjectTrust;
}

/**
 * `options.hooks`, then each enabled settings file's command hooks (user, project, local), then
 * each Claude Code plugin's `hooks/hooks.json`.
 */
export function effectiveHooks(kernel: Kernel, optionHooks: HooksConfig | undefined, place?: PluginHooksPlace): HooksConfig | undefined {
  const files = getSettingsApi(kernel).files.filter((f) => f.settings.hooks !== undefined);
  const report = (message: string) => warnOnce(kernel, SOURCE, message);
  const plugins = place?.claudePlugins?.length ? readPlugins(place.claudePlugins, place.cwd, place.trust, report) : [];
  const pluginHooks = plugins.flatMap((plugin) => plugin.hooksFiles.map((path) => ({ path, hooks: pluginHooksOf(path, plugin.root) }))).filter((p) => p.hooks !== undefined);
  if (files.length === 0 && pluginHooks.length === 0) return optionHooks;
  const out: Record<string, HookMatcherGroup[]> = {};
  for (const [event, groups] of Object.entries(optionHooks ?? {})) out[event] = [...(groups ?? [])];
  for (const file of [...files.map((f) => ({ path: f.path, hooks: f.settings.hooks })), ...pluginHooks]) {
    const parsed = readFileHooks(file.hooks, (message) => warn(kernel, SOURCE, `${file.path}: ${message}`));
    for (const [event, groups] of Object.entries(parsed)) (out[event] ??= []).push(...(groups ?? []));
  }
  return out as HooksConfig;
}

// A plugin folder whose path the shell would read as more than a path cannot be put into a command line.
const SHELL_SAFE_PATH = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * The `hooks` of a plugin's hooks.json with `${CLAUDE_PLUGIN_ROOT}` replaced by its folder;
 * undefined when it has none. A file that exists but cannot be read or parsed stops the run
 * naming it: dropping it would silently drop the plugin's guards.
 */
function pluginHooksOf(path: string, root: string): unknown {
  const read = readRegularFileSync(path, MAX_DEFINITION_BYTES);
  if (!read.ok) {
    if (read.missing) return undefined;
    throw new ConfigError(`the plugin's hooks file cannot be used: ${read.problem}`, path);
  }
  let data: unknown;
  try {
    data = JSON.parse(read.text);
  } catch (error) {
    throw new ConfigError(`the plugin's hooks file is not valid JSON (${(error as Error).message}); fix it or remove the plugin`, path);
  }
  if (!isRecord(data) || data.hooks === undefined) throw new ConfigError(`the plugin's hooks file has no "hooks" object; fix it or remove the plugin`, path);
  if (!SHELL_SAFE_PATH.test(root) && read.text.includes("${CLAUDE_PLUGIN_ROOT}")) {
    throw new ConfigError(`the plugin folder ${JSON.stringify(root)} has characters a shell would interpret, so its hooks cannot name it; move the plugin to a plain path`, path);
  }
  return JSON.parse(expandPluginRoot(JSON.stringify(data.hooks), root)) as unknown;
}
