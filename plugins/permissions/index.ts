/**
 * `ubiquity:permissions`: permission modes, allow/deny/ask rules with a real bash parser behind
 * them, sensitive paths, and asking through `canUseTool`.
 * - `tool.list`: a bare deny removes a tool; an `allowedTools` with a bare entry limits the run to the tools it names, and so does `availableTools` (which approves nothing)
 * - `tool.permission`: the precedence chain of engine.ts
 * - `tool.ask`: canUseTool, with timeout and abort (ask.ts)
 * - `tool.afterCall`: Grep and Glob results naming a file a Read deny forbids are withheld (filter-results.ts)
 * - `turn.system`: the permissions section of the system prompt (mode-note.ts)
 */
import { homedir } from "node:os";
import { z } from "zod";
import {
  absolutePath,
  ConfigError,
  ASK_STAGE as KERNEL_ASK_STAGE,
  PERMISSION_STAGE,
  SYSTEM_STAGE,
  type Kernel,
  type PermissionVerdict,
  type PluginContext,
  type ResolvedOptions,
  type RunContext,
  type SystemSection,
  type Tool,
} from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { TrustPins } from "../../loader/index";
import { markAgentWritable, noteGitCredentials } from "../_kits/process/index";
import { recordJudged } from "../_kits/paths/index";
import { compilePolicy, DEFAULT_TOOL_KINDS, namesPatchTool, readDenyRule, type Policy, type ToolKinds } from "./policy";
import { parseRules, ruleNamesTool, type Rule } from "./rules";
import type { Decision } from "./engine";
import type { Place } from "./subject";
import { answerAsk } from "./ask";
import { recordVoted, tapRewrites } from "./rewrites";
import { SEARCH_TOOLS, withholdDenied } from "./filter-results";
import { modeNote } from "./mode-note";
import { missingDirectoryWarnings } from "./missing-dirs";
import { ruleTypoWarnings } from "./rule-typos";
import { getPermissionsApi, markPermissionsApplied } from "./api";
import { setSetupJudge, type SetupCheck, type SetupVerdict } from "./setup-judge";
import "./init-fields";
import { judgePath, resolveRoots } from "./paths";
import { permissionsCommands, permissionsFlags } from "./cli";
import { shellParserReady } from "./shell/parser";
import { loadShellParser } from "./shell/load";
import {
  permissionsOptions,
  type PermissionMode,
  type PermissionsOptions,
  type PermissionsResolvedOptions,
  permissionModeOf,
} from "./options";
import { lazyImport } from "../_kits/lazy/index";

// The engine (and the shell analysis behind it) loads with the first call judged; once per
// process, not an `import()` per call (each one resolves the module again: ~70 µs of a call's
// permission step under a loader such as jiti, a few µs natively).
const engine = lazyImport(() => import("./engine"));

export const NAME = "ubiquity:permissions";

/** Stage of the `tool.ask` tap: late, so a plugin that answers prompts itself (hooks) goes first. */
export const ASK_STAGE = KERNEL_ASK_STAGE.HANDLER;

/** Options of the permissions plugin. */
export const PermissionsPluginOptions = z.strictObject({
  shellTools: z.array(z.string()).optional().describe("More tools whose `command` input is a bash command [Bash]"),
  pathTools: z
    .array(z.string())
    .optional()
    .describe("More tools whose rule content is a path pattern [Read, Write, Edit, Glob, Grep, …]"),
  editTools: z
    .array(z.string())
    .optional()
    .describe("More tools that write files (acceptEdits, sensitive paths) [Write, Edit, …]"),
  networkTools: z
    .array(z.string())
    .optional()
    .describe(
      "More read-only tools that reach the network: they run by default only in plan mode [WebFetch, WebSearch]",
    ),
  home: z.string().optional().describe("The home folder that `~` means [os.homedir()]"),
});
export type PermissionsPluginOptions = z.input<typeof PermissionsPluginOptions>;

/** The compiled policies: one per options object and one per run with granted rules, rebuilt when rules change. */
function policies(
  kernel: Kernel,
  context: PluginContext<{ typosChecked: boolean }, undefined, PermissionsOptions>,
  kinds: ToolKinds,
  home: () => string,
) {
  const api = getPermissionsApi(kernel);
  // One compiled policy per options object (a subagent may run with its own), rebuilt when
  // rules are added or the grammar (which normalises command rules) has loaded since.
  const cache = new WeakMap<ResolvedOptions, { key: string; policy: Policy }>();
  // approvedTools are allow rules that, like a settings file's (and a slash command's grants),
  // never limit the tools offered.
  const compileFor = (options: PermissionsResolvedOptions, grants: readonly Rule[]): Policy =>
    compilePolicy(
      { allow: options.allowedTools, deny: options.disallowedTools, ask: options.askTools },
      {
        cwd: options.cwd,
        home: home(),
        kinds,
        // Red-team fix: a subagent moved into a worktree keeps the project's deny and ask rules on the project.
        anchors: [kernel.options.cwd],
        extra: [...api.addedRules, ...parseRules(options.approvedTools, "allow", "approvedTools"), ...grants],
      },
    );
  const policyFor = (resolved: ResolvedOptions): Policy => {
    const options = context.optionsOf(resolved);
    const key = `${api.version}:${shellParserReady()}`;
    const hit = cache.get(options);
    if (hit?.key === key) return hit.policy;
    const policy = compileFor(options, []);
    cache.set(options, { key, policy });
    return policy;
  };
  // A run with granted rules (a slash command's allowed-tools) is judged by its own policy:
  // the grants join the added rules, which never limit which tools are offered.
  const granted = new WeakMap<RunContext, { key: string; grants: readonly Rule[]; policy: Policy }>();
  const policyOfRun = (run: RunContext): Policy => {
    const grants = api.grantsOf(run);
    if (grants.length === 0) return policyFor(run.options);
    const options = context.optionsOf(run);
    const key = `${api.version}:${shellParserReady()}`;
    const hit = granted.get(run);
    if (hit?.key === key && hit.grants === grants) return hit.policy;
    const policy = compileFor(options, grants);
    granted.set(run, { key, grants, policy });
    return policy;
  };
  return { policyFor, policyOfRun, compileFor };
}

/** The permissions plugin. */
export const permissionsPlugin = definePlugin({
  name: NAME,
  options: permissionsOptions,
  factoryOptions: PermissionsPluginOptions,
  // Whether the options' rules were checked for tool names with a typo (said once a kernel).
  state: () => ({ typosChecked: false }),
  commands: permissionsCommands,
  flags: permissionsFlags,
  apply(kernel, context) {
    const opts = context.factoryOptions;
    const kinds: ToolKinds = {
      shell: new Set([...DEFAULT_TOOL_KINDS.shell, ...(opts.shellTools ?? [])]),
      path: new Set([...DEFAULT_TOOL_KINDS.path, ...(opts.pathTools ?? [])]),
      edit: new Set([...DEFAULT_TOOL_KINDS.edit, ...(opts.editTools ?? [])]),
      network: new Set([...(DEFAULT_TOOL_KINDS.network ?? []), ...(opts.networkTools ?? [])]),
    };
    const home = () => opts.home ?? homedir();
    const api = getPermissionsApi(kernel);
    markPermissionsApplied(kernel);
    const { policyFor, policyOfRun, compileFor } = policies(kernel, context, kinds, home);
    setSetupJudge(kernel, (check) =>
      judgeOnSetup(kernel, check, context.optionsOf(kernel.options), compileFor, home()),
    );
    api.setReadDenyRule((run) => {
      const rule = readDenyRule(policyOfRun(run));
      return rule && `${rule.text} in ${rule.source}`;
    });
    // `system/init` announces the run's permission mode (see ./init-fields.ts).
    kernel.hooks.session.start.tap(NAME, (run) => {
      run.initFields.permissionMode = context.optionsOf(run).permissionMode ?? "default";
      // What the repository's own git config keeps of credentials is masked wherever a tool shows it (red team ze, ZE7).
      noteGitCredentials(run.cwd);
      // Once a kernel, on the main run: its tools are known now (those offered and those a rule removed).
      if (run.agent || context.state.typosChecked) return;
      context.state.typosChecked = true;
      const names = new Set([...kernel.registries.tools.values(), ...run.tools].map((tool) => tool.name));
      for (const warning of ruleTypoWarnings(context.optionsOf(run), [...names])) context.warn(warning);
    });

    // The plugin's own default (the kernel knows no permission mode): unset means "default".
    kernel.hooks.kernel.config.tap(NAME, (config) =>
      config.permissionMode === undefined ? { ...config, permissionMode: "default" } : config,
    );
    // Compiling at start-up makes a malformed rule fail the run before any model call.
    kernel.hooks.kernel.configResolved.tap(NAME, (options) => {
      policyFor(options);
      onlyTools(context.optionsOf(options).availableTools);
      for (const warning of missingDirectoryWarnings(options.cwd, options.additionalDirectories)) context.warn(warning);
    });

    kernel.hooks.tool.list.tap(NAME, (tools: Tool[], run) => {
      const policy = policyFor(run.options);
      const only = onlyTools(context.optionsOf(run).availableTools);
      return tools.filter((tool) => available(tool.name, policy) && (!only || only(tool.name)));
    });

    // The bash grammar loads when the first shell command is judged, not at start-up: only
    // shell tools' calls are parsed (see subject.ts and shell/parser.ts).
    kernel.hooks.tool.permission.tapPromise({ name: NAME, stage: PERMISSION_STAGE.RULES }, async (incoming, call) => {
      if (kinds.shell.has(call.toolName)) await loadShellParser();
      recordVoted(call);
      const mode = api.modeOf(call.run);
      const { decide } = await engine();
      const decision = await decide(
        { toolName: call.toolName, input: call.input, tool: call.tool, toolContext: call.context },
        {
          mode,
          policy: policyOfRun(call.run),
          place: placeOf(call.run, home()),
          sandboxed: (command) => api.sandboxes(command),
        },
      );
      // The file tools write and read what was judged here, not what the path leads to by the time
      // they run (Read too: a link swapped in after the verdict led it outside the roots, red team zc).
      if (decision.behavior !== "deny" && decision.subject?.kind === "path" && opensJudged(kinds, call.toolName))
        recordJudged(call.run, call.toolUseId, decision.subject.paths);
      if (decision.behavior === "ask") api.recordAsk(call, decision.step, decision.sandboxOpen);
      return merge(incoming, decision, mode);
    });

    kernel.hooks.tool.ask.tapPromise({ name: NAME, stage: ASK_STAGE }, (verdict, call) =>
      answerAsk(verdict, call, context.optionsOf(call.run)),
    );
    // What answered the question may have rewritten the input: the rewrite gets its own vote (ZM1).
    tapRewrites(kernel, NAME);

    // Memory files reach the model without a Read call: a Read deny rule forbids them all the same.
    // Searches leave out what a Read deny or ask rule names (red team i): judged before counting.
    api.setReadJudge((run, path, asks) => {
      const policy = policyOfRun(run);
      const rules = (asks ? [...policy.deny, ...policy.ask] : policy.deny).filter(
        (r) => r.path && ruleNamesTool(r, "Read"),
      );
      if (rules.length === 0) return undefined;
      const judged = judgePath(run.cwd, home(), path);
      return rules.find((r) => r.path!(judged.absolute) || (judged.real !== undefined && r.path!(judged.real)))?.text;
    });

    kernel.hooks.tool.afterCall.tapPromise(NAME, async (output, call) => {
      if (!SEARCH_TOOLS.has(call.toolName)) return output;
      // Ask rules too: nobody is asked about the files a result names, so they are withheld (red team i, I2).
      const policy = policyFor(call.run.options);
      const deny = [...policy.deny, ...policy.ask].filter((r) => r.tool === "Read" && r.path);
      // LSP answers say which files each line names (metadata): judged line by line, fail closed.
      return withholdDenied(
        output,
        deny,
        { cwd: call.run.cwd, home: home(), roots: call.run.roots },
        call.toolName === "LSP",
      );
    });

    // After the built-in run sections, so the section they emit is replaced rather than duplicated.
    kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.RUN }, (sections: SystemSection[], run) => {
      const section = { id: "permissions", text: modeNote(api.modeOf(run), policyFor(run.options)) };
      const at = sections.findIndex((s) => s.id === "permissions");
      return at === -1 ? [...sections, section] : sections.map((s, i) => (i === at ? section : s));
    });
  },
});

/**
 * The `availableTools` filter: a tool is offered when an entry names it; MCP tools stay unless an
 * entry names an MCP tool or server (as `claude --tools` limits the built-in tools only).
 */
/** The reading tools that open the very file the engine judged (Glob holds its folders itself, red team o). */
const READS_JUDGED = new Set(["Read", "Grep", "LSP"]);

/** The tools that open the very file the engine judged (they take its judgement: `takeJudged`). */
function opensJudged(kinds: ToolKinds, toolName: string): boolean {
  return kinds.edit.has(toolName) || READS_JUDGED.has(toolName);
}

function onlyTools(names: readonly string[] | undefined): ((name: string) => boolean) | undefined {
  if (!names) return undefined;
  const rules = parseRules(names, "allow", "availableTools");
  const scoped = rules.find((r) => r.content !== undefined);
  if (scoped)
    throw new ConfigError(
      `availableTools: ${JSON.stringify(scoped.text)} names a rule, not a tool; write the tool's name (${scoped.tool}), and pre-approve calls with approvedTools`,
    );
  const mcp = rules.some((r) => r.tool.startsWith("mcp__"));
  return (name) => (!mcp && name.startsWith("mcp__")) || rules.some((r) => ruleNamesTool(r, name));
}

/** Is a tool offered under this policy? */
function available(name: string, policy: Policy): boolean {
  if (policy.deny.some((r) => r.content === undefined && (ruleNamesTool(r, name) || namesPatchTool(r, name))))
    return false;
  return !policy.limit || policy.limit.some((r) => ruleNamesTool(r, name) || namesPatchTool(r, name));
}

/**
 * Where a call is judged: the run's own roots (its cwd and additionalDirectories) are where writes
 * are permitted; a root a plugin added to the run (a skill's folder, for reading its files) is a
 * read root, where a write asks.
 */
function placeOf(run: RunContext, home: string): Place {
  // Resolved once per run and set of roots (a plugin may add a read root mid-run): every call
  // resolved them again before, two realpaths per decision. Kept, a root is where it was when the
  // run first judged a call, so a symlinked root re-pointed mid-run does not move the permitted
  // area with it (a write through the new target resolves outside the roots and is refused).
  const key = `${home}\0${run.cwd}\0${run.roots.join("\0")}`;
  const known = places.get(run);
  if (known?.key === key) return known.place;
  const place = resolvePlace(run, home);
  places.set(run, { key, place });
  return place;
}

const places = new WeakMap<RunContext, { key: string; place: Place }>();

function resolvePlace(run: RunContext, home: string): Place {
  return placeFrom(run.options, run.cwd, run.roots, home);
}

/** The folders a run of `options` may write (its working directory and additionalDirectories) and read (`readRoots` too). */
function placeFrom(options: ResolvedOptions, cwd: string, readRoots: readonly string[], home: string): Place {
  const given = [options.cwd, ...(options.additionalDirectories ?? []).map((d) => absolutePath(options.cwd, d))];
  const roots = resolveRoots(given);
  // Writes are permitted here (acceptEdits, allow rules): no host program is looked up there.
  markAgentWritable(...given, ...roots);
  const reads = resolveRoots(readRoots).filter((r) => !roots.includes(r));
  // The files and folders the folder's trust pins (keys are real paths): writes there ask (red team k, K5).
  const trust = options.trust;
  const pinned = TrustPins.is(trust) ? [...trust.digests.keys()] : [];
  const commandPath = options.env?.PATH;
  // What the run's commands get beyond the allow-list: a plain assignment of one stays exported (ZS3).
  const exported = [
    ...Object.keys(options.env ?? {}),
    ...(options.subprocessEnv === "inherit" ? Object.keys(process.env) : []),
  ];
  return {
    cwd,
    home,
    roots,
    ...(reads.length ? { readRoots: reads } : {}),
    ...(pinned.length ? { pinned } : {}),
    ...(typeof commandPath === "string" && commandPath ? { commandPath } : {}),
    ...(exported.length ? { exported } : {}),
  };
}

/**
 * `ubiquity permissions check` on the kernel's own setup: the policy a run of it compiles (the
 * options' rules, every added one — settings files, the managed policy — and the command line's),
 * its mode, folders and sandbox, and the registered tool, judged as a run judges a call.
 */
async function judgeOnSetup(
  kernel: Kernel,
  check: SetupCheck,
  setup: PermissionsResolvedOptions,
  compileFor: (options: PermissionsResolvedOptions, grants: readonly Rule[]) => Policy,
  home: string,
): Promise<SetupVerdict> {
  await loadShellParser();
  const api = getPermissionsApi(kernel);
  const flags = { allow: "--allow", deny: "--deny", ask: "--ask" } as const;
  const given = (["allow", "deny", "ask"] as const).flatMap((list) => parseRules(check.rules[list], list, flags[list]));
  const options = {
    ...setup,
    additionalDirectories: [...(setup.additionalDirectories ?? []), ...check.additionalDirectories],
  };
  const policy = compileFor(options, given);
  const mode = check.mode ?? permissionModeOf(options);
  const refused = api.modeRefused(mode);
  const sandboxed = (command: string) => check.sandbox || api.sandboxes(command);
  const tool = kernel.registries.tools.get(check.toolName);
  const { judgeCall } = await import("./decide");
  const decision = await judgeCall(
    { toolName: check.toolName, input: check.input, ...(tool ? { tool } : {}) },
    { mode, policy, place: placeFrom(options, options.cwd, [], home), sandboxed },
  );
  const command = typeof check.input.command === "string" ? check.input.command : undefined;
  return {
    decision,
    mode,
    ...(refused ? { refused } : {}),
    sources: [...new Set([...policy.allow, ...policy.deny, ...policy.ask].map((r) => r.source))].filter(
      (source) => !Object.values(flags).some((flag) => flag === source),
    ),
    sandboxed: command !== undefined && policy.kinds.shell.has(check.toolName) && sandboxed(command),
  };
}

/** Combine the engine's decision with the votes cast before it (a deny or ask from elsewhere stands). */
function merge(incoming: PermissionVerdict, decision: Decision, mode: PermissionMode): PermissionVerdict {
  const mine: PermissionVerdict = {
    behavior: decision.behavior,
    message: decision.message,
    decidedBy: NAME,
    ...(decision.rule ? { rule: decision.rule } : {}),
    ...(decision.updatedInput ? { updatedInput: decision.updatedInput } : {}),
    // What an ask rule or a sensitive path asks is answered only where prompts are (Claude Code: a
    // hook's allow skips neither ask rules nor protected paths), and so is a write outside the
    // sandbox the engine cannot name (it could be a sensitive path: red team l, L3).
    ...(decision.behavior === "ask" && (decision.step === "ask-rule" || decision.step === "sensitive" || decision.firm)
      ? { firm: true }
      : {}),
  };
  // Read only when a handler is asked (see lazySuggestions): an ask never prompted costs nothing.
  if (decision.behavior === "ask")
    Object.defineProperty(mine, "suggestions", {
      get: () => decision.suggestions,
      enumerable: true,
      configurable: true,
    });
  if (decision.behavior === "deny" || incoming.behavior === "allow") return mine;
  if (incoming.behavior === "deny") return incoming;
  // Another plugin asked: its question stands, unless nobody may be asked.
  if (mode === "dontAsk")
    return {
      ...incoming,
      behavior: "deny",
      message: `${incoming.message ?? "Approval needed."} Permission mode dontAsk never prompts, so it was denied.`,
    };
  return decision.behavior === "ask" ? mine : incoming;
}

export default permissionsPlugin;
export { decidePermission, explainPermission } from "./decide-lazy";
export type { DecidePermissionInput, PermissionDecision } from "./decide";
export { getPermissionsApi, type PermissionsApi } from "./api";
export { parseRule, ruleNamesTool, type Rule, type RuleList } from "./rules";
export { analyzeShell, loadShellParser } from "./shell/load";
export { sensitiveReason } from "./sensitive";
export type { ShellAnalysis, ShellCandidate, WriteTarget } from "./shell/types";
export type { Decision, DecisionStep } from "./engine";
export type { RuleLists, ToolKinds } from "./policy";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
