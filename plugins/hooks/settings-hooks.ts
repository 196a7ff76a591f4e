/**
 * Command hooks from settings files (`settingSources`): the `"hooks"` key in the Claude Code
 * shape (handler types `command`, `http`, `prompt` and `agent`). Read entry by entry, never as a
 * whole: an unknown event, an unknown handler type (a typo) or a malformed entry is skipped with a
 * warning naming it and the file — the file's other hooks still apply. Dropping the whole key
 * for one entry we do not understand would silently drop its guards (a PreToolUse `rm -rf`
 * guard next to a newer event is the case that ran `rm -rf`).
 */
import { ConfigError, type Kernel } from "../../src/index";
import { didYouMean } from "../../src/index";
import { readRegularFileSync, type ProjectTrust } from "../../loader/index";
import { HOOK_EVENTS, NOT_FIRED_EVENTS, type HookEventName } from "./options";
import { getSettingsApi, type LoadedSettings } from "../settings/api";
import { expandPluginRoot, MAX_DEFINITION_BYTES, readPlugins, warn, warnOnce } from "../_kits/sources/index";
import type { HookHandler, HookMatcherGroup, HooksConfig } from "./types";
import { compileIf } from "./if-filter";
import { isInside } from "../_kits/paths/index";
import type { HttpHookPolicy } from "./http";
import { isRecord } from "../_kits/json/index";
import { matches } from "./matcher";

const SOURCE = "ubiquity:hooks";
const isEvent = (name: string): name is HookEventName => (HOOK_EVENTS as readonly string[]).includes(name);
const json = (v: unknown) => JSON.stringify(v)?.slice(0, 80) ?? String(v);

/** What is said of a Claude Code event ubiquity never fires (see NOT_FIRED_EVENTS). */
export function notFiredNote(event: string): string | undefined {
  if (!Object.hasOwn(NOT_FIRED_EVENTS, event)) return undefined;
  return `the Claude Code hook event ${json(event)} is not fired by ubiquity (${NOT_FIRED_EVENTS[event]}); its hooks never run, the file's other hooks apply`;
}

/** The `notification_type`s a Notification hook sees here: a call that needs approval, and the run's end (session-events.ts). */
const NOTIFICATIONS_SENT = ["permission_prompt", "max_turns", "error", "stopped"];
/** Claude Code's other notification types, which ubiquity never sends, and why. */
const NOTIFICATIONS_NOT_SENT: Readonly<Record<string, string>> = {
  idle_prompt: "nothing notifies while a prompt waits for input",
  auth_success: "no login flow notifies",
  elicitation_dialog: "an MCP server's question fires the Elicitation event instead",
};

/**
 * What is said of a Notification matcher that selects only Claude Code notification types ubiquity
 * never sends (`idle_prompt`): its hooks would never run, without a word.
 */
export function unsentNotificationNote(matcher: string | undefined): string | undefined {
  if (matcher === undefined || matcher === "" || matcher === "*") return undefined;
  if (NOTIFICATIONS_SENT.some((type) => matches(matcher, type))) return undefined;
  const unsent = Object.keys(NOTIFICATIONS_NOT_SENT).filter((type) => matches(matcher, type));
  if (unsent.length === 0) return undefined;
  return `the Notification hooks for ${json(matcher)} never run: ubiquity never sends Claude Code's ${unsent
    .map((type) => `${type} notification (${NOTIFICATIONS_NOT_SENT[type]})`)
    .join(", ")}; it sends ${NOTIFICATIONS_SENT.join(", ")}. The file's other hooks apply`;
}

/** Claude Code tools ubiquity has no counterpart for, and why (a hook matcher naming only them never fires). */
const TOOLS_NOT_PROVIDED: Readonly<Record<string, string>> = {
  EnterPlanMode:
    "plan mode is a permission mode here, set by the user (--permission-mode plan), never entered by a tool call",
  ExitPlanMode: "plan mode is a permission mode here, left by the user, never by a tool call the model makes",
};
/** Events whose matcher selects a tool by name. */
const TOOL_MATCHED = new Set([
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "PermissionDenied",
]);

/**
 * What is said of a tool event's matcher that names only Claude Code tools ubiquity does not have
 * (`ExitPlanMode`, plannotator's PermissionRequest hook): its hooks would never run, without a word.
 * Only a matcher of exact names (`A|B`) is read so; one naming any other tool, or a pattern, is not.
 */
export function absentToolNote(event: string, matcher: string | undefined): string | undefined {
  if (!TOOL_MATCHED.has(event) || matcher === undefined || !/^[A-Za-z0-9_|]+$/.test(matcher)) return undefined;
  const names = matcher.split("|").filter(Boolean);
  if (names.length === 0 || !names.every((name) => Object.hasOwn(TOOLS_NOT_PROVIDED, name))) return undefined;
  return `the ${event} hooks for ${json(matcher)} never run: ubiquity has no ${names
    .map((name) => `${name} tool (${TOOLS_NOT_PROVIDED[name]})`)
    .join(", no ")}. The file's other hooks apply`;
}

/** Claude Code's tool names a permission rule starts with. */
const RULE_TOOLS = [
  "Bash",
  "Read",
  "Write",
  "Edit",
  "MultiEdit",
  "Glob",
  "Grep",
  "NotebookEdit",
  "WebFetch",
  "WebSearch",
  "Task",
  "Agent",
  "Skill",
  "TodoWrite",
];

/**
 * A tool event's matcher written as a permission rule (`Bash(git commit*)`, Chemaclass/laravel-claude-toolkit's,
 * a common reading of the docs): a matcher selects tool names, and read as a regular expression this one
 * selects none, in Claude Code too, so the guard its author meant never runs. Said, with the form that does.
 */
function ruleShapedMatcherNote(event: string, matcher: string | undefined): string | undefined {
  const rule = matcher === undefined ? undefined : /^([A-Za-z_][A-Za-z0-9_]*)\(.*\)$/s.exec(matcher.trim());
  // A regular expression with a group (`Notebook(Edit|Read)`) selects a tool: only one that selects none is said.
  if (!TOOL_MATCHED.has(event) || !rule || !RULE_TOOLS.includes(rule[1]!)) return undefined;
  if (RULE_TOOLS.some((name) => matches(matcher, name))) return undefined;
  return `the ${event} matcher ${json(matcher)} is written as a permission rule, but a matcher selects tool names, so it selects none (in Claude Code too) and its hooks never run: write "matcher": ${json(rule[1])} and put the rule in each hook's "if": ${json(matcher)}`;
}

/**
 * The command hooks of one settings file's `hooks` value, entry by entry; `report` is called once
 * per skipped entry with a message naming it. A Claude Code event ubiquity never fires goes to
 * `note` (with the event's name) instead, when given: it is not a mistake in the file. Never throws.
 */
export function readFileHooks(
  value: unknown,
  report: (message: string) => void,
  origin?: "user" | "project",
  note?: (event: string, message: string) => void,
): HooksConfig {
  const out: Partial<Record<HookEventName, HookMatcherGroup[]>> = {};
  if (!isRecord(value)) {
    report(`its "hooks" key is ${json(value)}, not an object of events; no hooks were read from it`);
    return out;
  }
  for (const [event, groups] of Object.entries(value)) {
    if (!isEvent(event)) {
      const notFired = notFiredNote(event);
      if (notFired !== undefined) {
        if (note) note(event, notFired);
        else report(notFired);
        continue;
      }
      report(
        `the hook event ${json(event)}${didYouMean(event, HOOK_EVENTS)} is not one ubiquity fires (known: ${HOOK_EVENTS.join(", ")}); its hooks were skipped, the file's other hooks apply`,
      );
      continue;
    }
    if (!Array.isArray(groups)) {
      report(`hooks.${event} is not a list of matcher groups; skipped`);
      continue;
    }
    groups.forEach((group, g) => {
      const where = `hooks.${event}[${g}]`;
      if (!isRecord(group) || !Array.isArray(group.hooks)) {
        // A handler written where a group belongs (thomasvan's agents: `PostToolUse: - type: command`), a form
        // Claude Code's schema has no place for either: said with the shape that runs it.
        const handler = isRecord(group) && typeof group.type === "string" && group.hooks === undefined;
        report(
          handler
            ? `${where} is a hook handler written where a matcher group belongs, so it does not run (Claude Code's hooks schema has no such form either); put it in a group: {"matcher"?, "hooks": [<the handler>]}`
            : `${where} is not {"matcher"?, "hooks": [...]}; skipped`,
        );
        return;
      }
      if (group.matcher !== undefined && typeof group.matcher !== "string") {
        report(`${where}.matcher is ${json(group.matcher)}, not a string; the group was skipped`);
        return;
      }
      const hooks: HookHandler[] = [];
      group.hooks.forEach((handler, h) => {
        const at = `${where}.hooks[${h}]`;
        const read = hookHandler(handler);
        // An HTTP hook from a project's file or plugin is held to the user's own limits (http.ts).
        const hook = typeof read !== "string" && read.type === "http" && origin ? { ...read, origin } : read;
        if (typeof hook === "string") report(`${at}: ${hook}; skipped, the file's other hooks apply`);
        else hooks.push(checkShell(checkIf(hook, at, report), handler, at, report));
      });
      if (hooks.length > 0)
        (out[event] ??= []).push({ ...(group.matcher !== undefined ? { matcher: group.matcher } : {}), hooks });
      const unsent = event === "Notification" && hooks.length > 0 ? unsentNotificationNote(group.matcher) : undefined;
      if (unsent !== undefined) {
        if (note) note(`Notification ${group.matcher}`, unsent);
        else report(unsent);
      }
      const ruleShaped = hooks.length > 0 ? ruleShapedMatcherNote(event, group.matcher) : undefined;
      if (ruleShaped !== undefined) report(ruleShaped);
      const absent = hooks.length > 0 ? absentToolNote(event, group.matcher) : undefined;
      if (absent !== undefined) {
        if (note) note(`${event} ${group.matcher}`, absent);
        else report(absent);
      }
    });
  }
  return out;
}

const HANDLER_TYPES = ["command", "http", "prompt", "agent"];

/** A hook handler (command, http, prompt or agent), or why the handler is not one this plugin runs. */
export function hookHandler(handler: unknown): HookHandler | string {
  if (!isRecord(handler)) return `${json(handler)} is not a hook handler object`;
  const { type } = handler;
  if (typeof type !== "string" || !HANDLER_TYPES.includes(type))
    return `unknown handler type ${json(type)} (known: ${HANDLER_TYPES.join(", ")})`;
  const timeout = handler.timeout;
  if (timeout !== undefined && (typeof timeout !== "number" || !(timeout > 0)))
    return `timeout ${json(timeout)} is not a positive number of seconds`;
  const condition = handler.if;
  if (condition !== undefined && (typeof condition !== "string" || !condition.trim()))
    return `"if" ${json(condition)} is not a permission rule string`;
  const common = {
    ...(timeout !== undefined ? { timeout } : {}),
    ...(condition !== undefined ? { if: condition.trim() } : {}),
  };
  if (type === "command") {
    if (typeof handler.command !== "string" || handler.command.trim() === "")
      return `a command hook without a "command" string`;
    const args = handler.args;
    if (args !== undefined && !(Array.isArray(args) && args.every((a) => typeof a === "string")))
      return `a command hook whose "args" is not a list of strings`;
    return {
      type,
      command: handler.command,
      ...(args ? { args: args as string[] } : {}),
      ...common,
      ...(handler.async === true ? { async: true } : {}),
      ...(handler.asyncRewake === true ? { asyncRewake: true } : {}),
      ...(typeof handler.rewakeMessage === "string" ? { rewakeMessage: handler.rewakeMessage } : {}),
      ...(typeof handler.rewakeSummary === "string" ? { rewakeSummary: handler.rewakeSummary } : {}),
    };
  }
  if (type === "http") {
    let url: URL;
    try {
      url = new URL(String(handler.url));
    } catch {
      return `an http hook whose "url" ${json(handler.url)} is not a URL`;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      return `an http hook whose "url" is not http(s): ${json(url.protocol)}`;
    const headers = handler.headers;
    if (headers !== undefined && (!isRecord(headers) || !Object.values(headers).every((v) => typeof v === "string")))
      return `an http hook whose "headers" is not an object of strings`;
    const vars = handler.allowedEnvVars;
    if (vars !== undefined && !(Array.isArray(vars) && vars.every((v) => typeof v === "string")))
      return `an http hook whose "allowedEnvVars" is not a list of variable names`;
    return {
      type,
      url: String(handler.url),
      ...(headers ? { headers: headers as Record<string, string> } : {}),
      ...(vars ? { allowedEnvVars: vars as string[] } : {}),
      ...common,
    };
  }
  if (typeof handler.prompt !== "string" || !handler.prompt.trim()) return `a ${type} hook without a "prompt" string`;
  if (handler.model !== undefined && (typeof handler.model !== "string" || !handler.model.trim()))
    return `a ${type} hook whose "model" ${json(handler.model)} is not a model name`;
  return {
    type: type as "prompt" | "agent",
    prompt: handler.prompt,
    ...(handler.model !== undefined ? { model: (handler.model as string).trim() } : {}),
    ...common,
  };
}

/**
 * Claude Code's `shell` on a command hook: "bash" is what ubiquity runs a command with; another
 * ("powershell", for Windows) is said and the hook still runs with bash, as before — skipping it
 * would drop a guard, which bash at least runs (or fails on: exit 2 blocks). Exec form has no shell.
 */
function checkShell(hook: HookHandler, handler: unknown, at: string, report: (message: string) => void): HookHandler {
  const shell = isRecord(handler) ? handler.shell : undefined;
  if (hook.type === "command" && !hook.args && shell !== undefined && shell !== "bash")
    report(
      `${at}: its "shell" ${json(shell)} is not read: ubiquity runs hook commands with bash, this one too (write it for bash, or run its script by program and "args")`,
    );
  return hook;
}

/** A hook whose `if` is not a rule runs for every call (fail safe: a guard stays on), with a warning naming it. */
function checkIf(hook: HookHandler, at: string, report: (message: string) => void): HookHandler {
  if (hook.if === undefined) return hook;
  const compiled = compileIf(hook.if);
  if (typeof compiled !== "string") return hook;
  report(`${at}: its "if" is not a permission rule (${compiled}); the hook runs for every call its matcher selects`);
  const { if: _dropped, ...rest } = hook;
  return rest;
}

/**
 * The URLs and header variables HTTP hooks are held to: `allowedHttpHookUrls` and
 * `httpHookAllowedEnvVars` of the options and of every enabled settings file, merged (a list
 * anywhere sets the rule; the lists join). Unset everywhere: no restriction, as in Claude Code.
 */
export function httpPolicyOf(
  kernel: Kernel,
  options: { allowedHttpHookUrls?: readonly string[]; httpHookAllowedEnvVars?: readonly string[] },
): HttpHookPolicy {
  const files = getSettingsApi(kernel).files.map((f) => f.settings);
  const merge = (lists: (readonly string[] | undefined)[]) =>
    lists.some((l) => l !== undefined) ? lists.flatMap((l) => l ?? []) : undefined;
  const allowedUrls = merge([options.allowedHttpHookUrls, ...files.map((f) => f.allowedHttpHookUrls)]);
  const allowedEnvVars = merge([options.httpHookAllowedEnvVars, ...files.map((f) => f.httpHookAllowedEnvVars)]);
  // The user's own lists (options and the user's settings file): a project's file cannot widen them.
  const own = getSettingsApi(kernel)
    .files.filter((f) => f.source === "user")
    .map((f) => f.settings);
  const userUrls = merge([options.allowedHttpHookUrls, ...own.map((f) => f.allowedHttpHookUrls)]);
  const userEnvVars = merge([options.httpHookAllowedEnvVars, ...own.map((f) => f.httpHookAllowedEnvVars)]);
  return {
    ...(allowedUrls ? { allowedUrls } : {}),
    ...(allowedEnvVars ? { allowedEnvVars } : {}),
    ...(userUrls ? { userUrls } : {}),
    ...(userEnvVars ? { userEnvVars } : {}),
  };
}

/**
 * Whose file hooks Claude Code's `disableAllHooks: true` turns off: in the user's own file (or the
 * caller's `--settings`), every settings file's and Claude Code plugin's; in a project's file, the
 * project's only. A project file never turns off the user's hooks (they may be the user's guards);
 * Claude Code lets it, so that is said. The config's `hooks` option is code, never turned off here.
 */
function hooksTurnedOff(files: readonly LoadedSettings[], report: (message: string) => void): Set<"user" | "project"> {
  const user = files.find((f) => f.source === "user" && f.settings.disableAllHooks === true);
  if (user) {
    report(
      `${user.path}: disableAllHooks is true: no hook of a settings file or a Claude Code plugin runs (the config's hooks option still does${user.managed ? "" : ", and so do the managed policy's"})`,
    );
    return new Set(["user", "project"]);
  }
  const project = files.find((f) => f.source !== "user" && f.settings.disableAllHooks === true);
  if (!project) return new Set();
  report(
    `${project.path}: disableAllHooks is true: this project's hooks (its settings files' and its plugins') do not run; yours still do (~/.claude/settings.json, plugins outside the project), since a project file never turns off the user's hooks: set disableAllHooks there to turn those off too`,
  );
  return new Set(["project"]);
}

/** Where the plugins' hooks come from: the `claudePlugins` folders, with the run's cwd and trust. */
export interface PluginHooksPlace {
  claudePlugins?: readonly string[];
  cwd: string;
  trust?: ProjectTrust;
}

/**
 * `options.hooks`, then each enabled settings file's command hooks (user, project, local), then
 * each Claude Code plugin's `hooks/hooks.json`, then the managed policy's (last, so its guards see
 * the input that runs).
 */
export function effectiveHooks(
  kernel: Kernel,
  optionHooks: HooksConfig | undefined,
  place?: PluginHooksPlace,
): HooksConfig | undefined {
  const report = (message: string) => warnOnce(kernel, SOURCE, message);
  const off = hooksTurnedOff(getSettingsApi(kernel).files, report);
  // The managed policy's hooks are the organisation's guards: only a managed file turns them off.
  const managedOff = getSettingsApi(kernel).files.some((f) => f.managed && f.settings.disableAllHooks === true);
  const files = getSettingsApi(kernel).files.filter(
    (f) =>
      f.settings.hooks !== undefined && (f.managed ? !managedOff : !off.has(f.source === "user" ? "user" : "project")),
  );
  const plugins = place?.claudePlugins?.length ? readPlugins(place.claudePlugins, place.cwd, place.trust, report) : [];
  const pluginHooks = plugins
    .flatMap((plugin) => {
      const origin = isInside(place!.cwd, plugin.root) ? ("project" as const) : ("user" as const);
      return [
        ...plugin.hooksFiles.map((path) => ({
          path,
          hooks: pluginHooksOf(path, plugin.root),
          origin,
          pluginRoot: plugin.root,
        })),
        ...(plugin.inlineHooks
          ? [
              {
                path: `${plugin.root}/.claude-plugin/plugin.json#hooks`,
                hooks: inlinePluginHooks(plugin.inlineHooks, plugin.root),
                origin,
                pluginRoot: plugin.root,
              },
            ]
          : []),
      ];
    })
    .filter((p) => p.hooks !== undefined && !off.has(p.origin));
  if (files.length === 0 && pluginHooks.length === 0) return optionHooks;
  const out: Record<string, HookMatcherGroup[]> = {};
  for (const [event, groups] of Object.entries(optionHooks ?? {})) out[event] = [...(groups ?? [])];
  const fileHooks = files.map((f) => ({
    path: f.path,
    hooks: f.settings.hooks,
    origin: f.source === "user" ? ("user" as const) : ("project" as const),
    managed: f.managed === true,
  }));
  // The managed policy's hooks come last, after the plugins' too: a hook's `updatedInput` is what
  // later hooks see and what runs, so a guard that ran before another hook judged an input that
  // never ran (red team zm, ZM2: a project's Claude Code plugin rewrote `echo` to what the policy's
  // PreToolUse guard blocks, after the guard had passed it).
  for (const file of [...fileHooks.filter((f) => !f.managed), ...pluginHooks, ...fileHooks.filter((f) => f.managed)]) {
    const parsed = readFileHooks(
      file.hooks,
      (message) => {
        // A managed policy's guard that cannot be read must not be skipped: the run stops instead.
        if ("managed" in file && file.managed && /skipped|no hooks were read|does not run/.test(message))
          throw new ConfigError(
            `the managed policy's hooks: ${message.replace(/; (its hooks were |the group was )?skipped.*$/, "")}; every run stops until it is fixed (a guard the policy names is never skipped)`,
            file.path,
          );
        warn(kernel, SOURCE, `${file.path}: ${message}`);
      },
      file.origin,
      (event, message) => noteOnce(kernel, event, `${file.path}: ${message}`),
    );
    const root = "pluginRoot" in file && typeof file.pluginRoot === "string" ? file.pluginRoot : undefined;
    for (const [event, groups] of Object.entries(parsed)) {
      const made = (groups ?? []).map((group) => (root ? fromPlugin(group, root) : group));
      if ("managed" in file && file.managed) for (const group of made) managedGroups.add(group);
      (out[event] ??= []).push(...made);
    }
  }
  return out as HooksConfig;
}

/** The managed policy's matcher groups: a run's own hooks (an agent's, a skill's) go before them too. */
export const managedGroups = new WeakSet<HookMatcherGroup>();

const noted = new WeakMap<Kernel, Set<string>>();

/** A plugin's matcher group: its command hooks get the plugin's folder as CLAUDE_PLUGIN_ROOT. */
function fromPlugin(group: HookMatcherGroup, pluginRoot: string): HookMatcherGroup {
  return {
    ...group,
    hooks: group.hooks.map((hook) =>
      typeof hook !== "function" && hook.type === "command" ? { ...hook, pluginRoot } : hook,
    ),
  };
}

/** Said once per kernel and event, whichever file used it first (the run goes on: the file is not wrong). */
function noteOnce(kernel: Kernel, event: string, message: string): void {
  let said = noted.get(kernel);
  if (!said) noted.set(kernel, (said = new Set()));
  if (said.has(event)) return;
  said.add(event);
  warn(kernel, SOURCE, message);
}

// A plugin folder whose path the shell would read as more than a path cannot be put into a command line.
const SHELL_SAFE_PATH = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** A manifest's inline `hooks` with `${CLAUDE_PLUGIN_ROOT}` replaced by its folder (the same rule as a hooks file). */
function inlinePluginHooks(hooks: Record<string, unknown>, root: string): unknown {
  const text = JSON.stringify(hooks);
  if (!SHELL_SAFE_PATH.test(root) && text.includes("${CLAUDE_PLUGIN_ROOT}")) {
    throw new ConfigError(
      `the plugin folder ${JSON.stringify(root)} has characters a shell would interpret, so its hooks cannot name it; move the plugin to a plain path`,
      `${root}/.claude-plugin/plugin.json`,
    );
  }
  return JSON.parse(expandPluginRoot(text, root)) as unknown;
}

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
    throw new ConfigError(
      `the plugin's hooks file is not valid JSON (${(error as Error).message}); fix it or remove the plugin`,
      path,
    );
  }
  if (!isRecord(data) || data.hooks === undefined)
    throw new ConfigError(`the plugin's hooks file has no "hooks" object; fix it or remove the plugin`, path);
  if (!SHELL_SAFE_PATH.test(root) && read.text.includes("${CLAUDE_PLUGIN_ROOT}")) {
    throw new ConfigError(
      `the plugin folder ${JSON.stringify(root)} has characters a shell would interpret, so its hooks cannot name it; move the plugin to a plain path`,
      path,
    );
  }
  return JSON.parse(expandPluginRoot(JSON.stringify(data.hooks), root)) as unknown;
}
