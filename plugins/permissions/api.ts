/**
 * The permissions plugin's extension point, per kernel: other plugins (settings files, a
 * policy server) add rules here. Added rules are unioned with the options' rules — a rule from
 * elsewhere is a restriction the caller did not write, so the caller's lists must not drop it —
 * and they never limit which tools are offered (only `allowedTools` itself does).
 */
import type { Kernel, RunContext, ToolCall } from "../../src/index";
import { narrowMode, PERMISSION_MODES, permissionModeOf, type PermissionMode } from "./options";
import { parseRule, parseRules, type Rule } from "./rules";
import type { RuleLists } from "./policy";
import { meantTool } from "./rule-typos";

export { parseRule, parseRules, ruleNamesTool, type Rule, type RuleList } from "./rules";
export { compileContent } from "./match-command";
export { DEFAULT_TOOL_KINDS, namesPatchTool } from "./policy";
/** The sensitive list, shared with the sandbox (which keeps these read-only at any depth). */
export { pathsNamedByEnvrc, sandboxReason, sensitiveReason, venvActivateReason } from "./sensitive";
export { isPluginFolder } from "./subject";
export { pathsNamedByConfig } from "./git-named";

/** What other plugins can do with the permission engine of a kernel. */
export interface PermissionsApi {
  /** Add rules from another source; a malformed rule throws a ConfigError naming it and `source`. */
  addRules(lists: RuleLists, source: string): void;
  /** Every rule added through `addRules`, in order. */
  readonly addedRules: readonly Rule[];
  /** Bumped on every `addRules`, so compiled policies know when to recompile. */
  readonly version: number;
  /**
   * Allow `rules` for `run`'s own calls (not its subagents'), besides its options' rules, until
   * the next `grant` for it (undefined or [] ends the grant): a slash command's `allowed-tools`.
   * With `mode: "add"` they join what is granted already (a skill the model loads).
   * Deny and ask rules still win; an entry that pre-approves nothing here (`*`, or one that is not a
   * permission rule, such as Copilot's `server/*`) is dropped with a warning naming it and `source`.
   */
  grant(run: RunContext, rules: readonly string[] | undefined, source: string, mode?: "replace" | "add"): void;
  /** The rules granted to `run` (see `grant`). */
  grantsOf(run: RunContext): readonly Rule[];
  /**
   * Judge the next tool calls of `run` (and of its subagents) in `mode`: a live session's
   * `setPermissionMode`. A mode refused for the kernel (see `refuseMode`) throws, naming why.
   */
  setMode(run: RunContext, mode: PermissionMode): void;
  /** No run of this kernel may be switched to `mode` (a settings file's `disableBypassPermissionsMode`); `why` is said. */
  refuseMode(mode: PermissionMode, why: string): void;
  /** Why no run of this kernel may use `mode` (see `refuseMode`), or undefined when it may. */
  modeRefused(mode: PermissionMode): string | undefined;
  /**
   * The mode `run` is judged in: one set for it or a run above it, else its options'; never wider
   * than a cap on it or a run above it (see `capMode`).
   */
  modeOf(run: RunContext): PermissionMode;
  /**
   * A subagent definition's own mode: `run` is never judged in a wider one, whatever its parent is
   * switched to later (a plan-mode reviewer stayed in plan only until its parent's mode changed).
   */
  capMode(run: RunContext, mode: PermissionMode): void;
  /**
   * The sandbox plugin says here which shell commands run inside the OS sandbox: for those the
   * sandbox, not the engine, keeps bypassPermissions from writes the engine cannot name.
   */
  setShellSandbox(sandboxes: (command: string) => boolean): void;
  /** Does this shell command run sandboxed? False until a sandbox says otherwise. */
  sandboxes(command: string): boolean;
  /**
   * The Read deny or ask rule naming paths in force for `run` (`Read(./.env) in settings`), if
   * any: while one is, text a language server derived from other files (a hover, diagnostics) is
   * withheld, since it can carry the text of a file the rule names without naming it. Undefined without one,
   * and without a permissions plugin (no rules).
   */
  readDenyRule(run: RunContext): string | undefined;
  /** The permissions plugin says here how to find it (see `readDenyRule`). */
  setReadDenyRule(find: (run: RunContext) => string | undefined): void;
  /**
   * The Read deny rule (as written) that forbids reading `path` in `run`, or undefined: for text
   * that reaches the model without a Read call (memory files and their `@path` includes). The
   * permissions plugin answers through `setReadJudge`; without it there are no rules.
   */
  readDenied(run: RunContext, path: string): string | undefined;
  /**
   * The Read deny rule, or ask rule, (as written) that names `path` in `run`, or undefined: a
   * search (Grep, Glob) leaves such a file out before anything is counted or capped, so neither
   * its lines nor whether it matched reach the model (a note that lines were withheld answered
   * whether the file holds a pattern, so a search could spell it out). No rules without a
   * permissions plugin.
   */
  readWithheld(run: RunContext, path: string): string | undefined;
  /** The permissions plugin says here how `readDenied` (`asks` false) and `readWithheld` (`asks` true) are answered. */
  setReadJudge(judge: (run: RunContext, path: string, asks: boolean) => string | undefined): void;
  /**
   * Why the engine asked about `call`: `mode` (nothing covers it: the usual ask), `ask-rule` (the
   * user's ask rule), `sensitive` (a sensitive path), `tool` (the tool's own check), `bypass`;
   * undefined when the engine did not ask. A reviewer answers only `mode` asks.
   */
  askStepOf(call: ToolCall): string | undefined;
  /**
   * Why the engine's ask for `call` is about a path the sandbox leaves writable (a virtualenv's
   * bin, a folder on PATH), or undefined: autoAllowBash leaves such a question standing (red team
   * zb, ZB5), as the sandbox would not hold the write.
   */
  sandboxOpenOf(call: ToolCall): string | undefined;
  /** The permissions plugin records each ask's step here (and why the sandbox would not hold it, if so). */
  recordAsk(call: ToolCall, step: string, sandboxOpen?: string): void;
}

const apis = new WeakMap<Kernel, PermissionsApi>();

/**
 * The kernels whose ubiquity:permissions plugin is this copy of it (its `apply` ran here). The API
 * lives in this module: a plugin of another copy of ubiquity (a config importing the plugins of the
 * project's install, run by a global bin) hands its rules to a map nobody reads (red team zm, ZM3).
 */
const appliedHere = new WeakSet<Kernel>();

/** Called by the permissions plugin's `apply`: this copy's API is the one its engine reads. */
export function markPermissionsApplied(kernel: Kernel): void {
  appliedHere.add(kernel);
}

/** Whether the kernel's ubiquity:permissions plugin, when it has one, reads this copy's API (false: another copy's plugin). */
export function permissionsReadHere(kernel: Kernel): boolean {
  return !kernel.hasPlugin("ubiquity:permissions") || appliedHere.has(kernel);
}

/** The permissions API of `kernel` (created on first use, so plugin order does not matter). */
export function getPermissionsApi(kernel: Kernel): PermissionsApi {
  let api = apis.get(kernel);
  if (!api) {
    const added: Rule[] = [];
    let version = 0;
    const modes = new WeakMap<RunContext, PermissionMode>();
    const caps = new WeakMap<RunContext, PermissionMode>();
    const refused = new Map<PermissionMode, string>();
    const grants = new WeakMap<RunContext, readonly Rule[]>();
    const askSteps = new WeakMap<ToolCall, string>();
    const sandboxOpen = new WeakMap<ToolCall, string>();
    let shellSandbox: ((command: string) => boolean) | undefined;
    let readDeny: ((run: RunContext) => string | undefined) | undefined;
    let readJudge: ((run: RunContext, path: string, asks: boolean) => string | undefined) | undefined;
    api = {
      setReadDenyRule(find) {
        readDeny = find;
      },
      readDenyRule: (run) => readDeny?.(run),
      setReadJudge(judge) {
        readJudge = judge;
      },
      readDenied(run, path) {
        return readJudge?.(run, path, false);
      },
      readWithheld(run, path) {
        return readJudge?.(run, path, true);
      },
      setShellSandbox(sandboxes) {
        shellSandbox = sandboxes;
      },
      sandboxes(command) {
        return shellSandbox?.(command) ?? false;
      },
      setMode(run, mode) {
        if (!PERMISSION_MODES.includes(mode))
          throw new TypeError(
            `setPermissionMode: ${JSON.stringify(mode)} is not a permission mode (${PERMISSION_MODES.join(", ")})`,
          );
        const why = refused.get(mode);
        if (why) throw new TypeError(`setPermissionMode: ${mode} is refused: ${why}`);
        modes.set(run, mode);
      },
      refuseMode(mode, why) {
        refused.set(mode, why);
      },
      modeRefused: (mode) => refused.get(mode),
      modeOf(run) {
        let mode: PermissionMode | undefined;
        for (let r: RunContext | undefined = run; r && !mode; r = r.parent) mode = modes.get(r);
        mode ??= permissionModeOf(run.options);
        // Red team i, I3: a cap holds against a mode switched at run time above it.
        for (let r: RunContext | undefined = run; r; r = r.parent) mode = narrowMode(mode, caps.get(r));
        return mode;
      },
      capMode(run, mode) {
        if (!PERMISSION_MODES.includes(mode))
          throw new TypeError(
            `capMode: ${JSON.stringify(mode)} is not a permission mode (${PERMISSION_MODES.join(", ")})`,
          );
        caps.set(run, mode);
      },
      addRules(lists, source) {
        const parsed = [
          ...parseRules(lists.allow, "allow", source),
          ...parseRules(lists.deny, "deny", source),
          ...parseRules(lists.ask, "ask", source),
        ];
        added.push(...parsed);
        version++;
      },
      grant(run, asked, source, mode = "replace") {
        const rules = grantable(run, asked, source);
        if (mode === "add") {
          if (rules?.length)
            grants.set(run, Object.freeze([...(grants.get(run) ?? []), ...parseRules([...rules], "allow", source)]));
        } else if (rules?.length) grants.set(run, Object.freeze(parseRules([...rules], "allow", source)));
        else grants.delete(run);
      },
      askStepOf: (call) => askSteps.get(call),
      sandboxOpenOf: (call) => sandboxOpen.get(call),
      recordAsk(call, step, open) {
        askSteps.set(call, step);
        if (open) sandboxOpen.set(call, open);
        else sandboxOpen.delete(call);
      },
      grantsOf(run) {
        return grants.get(run) ?? [];
      },
      get addedRules() {
        return added;
      },
      get version() {
        return version;
      },
    };
    apis.set(kernel, api);
  }
  return api;
}

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";

/**
 * The entries of a file's `allowed-tools` that can be granted, each other one dropped with a warning
 * naming the file. Failing closed both ways: every tool stays offered (allowed-tools never narrows
 * them) and each call is judged by the rules.
 * - `*` would pre-approve every call of every tool (Claude Code's allowed-tools pre-approves what it
 *   lists): bypassPermissions granted by a file, a project's command or skill.
 * - An entry that is not a permission rule (dx-aem-flow's skills list Copilot's `ado/*` next to Claude
 *   Code's tools, for both agents) pre-approves nothing in Claude Code, whose skill still runs; it
 *   blocked the whole command here, though dropping it only grants less.
 */
function grantable(run: RunContext, rules: readonly string[] | undefined, source: string) {
  if (!rules?.length) return rules;
  const kept: string[] = [];
  for (const rule of rules) {
    const text = typeof rule === "string" ? rule.trim() : "";
    const why =
      text === "*"
        ? 'it would approve every call of every tool; list the tools to pre-approve, e.g. "Read, Grep, Bash(git status)"'
        : notARule(rule, source);
    if (why === undefined) {
      kept.push(rule);
      const meant = meantTool(parseRule(rule, "allow", source), toolNamesOf(run));
      if (meant) {
        const message = `${source}: ${JSON.stringify(rule)} names no tool of this run, so it pre-approves nothing: did you mean ${JSON.stringify(meant)}? (tool names are case-sensitive, as in Claude Code)`;
        run.logger.warn(`[ubiquity:permissions] ${message}`);
        run.kernel.emit({ type: "warning", source: "ubiquity:permissions", message });
      }
    } else {
      const message = `${source}: ${JSON.stringify(rule)} pre-approves nothing (${why}). The other entries apply; every call is judged by the permission rules.`;
      run.logger.warn(`[ubiquity:permissions] ${message}`);
      run.kernel.emit({ type: "warning", source: "ubiquity:permissions", message });
    }
  }
  return kept;
}

/** The names of the tools `run` may call: the registered ones and the run's own. */
const toolNamesOf = (run: RunContext) => [
  ...new Set([...run.kernel.registries.tools.values(), ...run.tools].map((tool) => tool.name)),
];

/** Why `rule` is not a permission rule, or undefined when it is one. */
function notARule(rule: string, source: string): string | undefined {
  try {
    parseRule(rule, "allow", source);
    return undefined;
  } catch {
    // `server/*` and `server/tool` are how GitHub Copilot names an MCP server's tools.
    return /^[\w.-]+\/[\w.*-]+$/.test(String(rule).trim())
      ? "not a permission rule, as in Claude Code: an MCP server's tools are written mcp__<server>__* or mcp__<server>__<tool>; server/* is GitHub Copilot's form"
      : 'not a permission rule, as in Claude Code: write Tool or Tool(content), e.g. "Read", "Bash(git:*)" or "mcp__github__*"';
  }
}
