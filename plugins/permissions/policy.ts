/**
 * A policy: the rules of one set of options, compiled for one cwd and home folder. Path tools
 * get path patterns, every other tool gets command-style content matching.
 */
import { parseRules, ruleNamesTool, type Rule } from "./rules";
import { compileContent, type ContentMatcher } from "./match-command";
import { compilePathPattern, type PathMatcher } from "./match-path";
import { normalizeCommandText } from "./shell/normalize";

/** Which built-in behaviour a tool name gets. */
export interface ToolKinds {
  /** Tools whose `command` input is a bash command (candidates come from the shell analysis). */
  shell: ReadonlySet<string>;
  /** Tools whose rule content is a path pattern. */
  path: ReadonlySet<string>;
  /** Tools that write files (acceptEdits, sensitive paths). */
  edit: ReadonlySet<string>;
  /**
   * Read-only tools that reach the network (WebFetch, WebSearch): plan mode lets them run, but
   * no other mode's default does — what they send leaves the machine, so a rule (or
   * bypassPermissions) allows them. [WebFetch, WebSearch]
   */
  network?: ReadonlySet<string>;
}

/** The built-in tool names and what they are. */
export const DEFAULT_TOOL_KINDS: ToolKinds = {
  shell: new Set(["Bash"]),
  path: new Set(["Read", "Write", "Edit", "Glob", "Grep", "LSP", "MultiEdit", "NotebookEdit", "apply_patch"]),
  edit: new Set(["Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch"]),
  network: new Set(["WebFetch", "WebSearch"]),
};

/**
 * apply_patch does what Edit and Write do (it is the edit surface some models are offered instead
 * of them): a rule naming Edit or Write names it too, also a bare one (deny, ask, allow, limit).
 */
export function namesPatchTool(rule: Rule, toolName: string): boolean {
  return toolName === "apply_patch" && (rule.tool === "Edit" || rule.tool === "Write");
}

/** A rule with its content compiled for the tool kind it names. */
export interface CompiledRule extends Rule {
  command?: ContentMatcher;
  path?: PathMatcher;
}

/** Rule lists as options and settings give them. */
export interface RuleLists {
  allow?: readonly string[];
  deny?: readonly string[];
  ask?: readonly string[];
}

/** The compiled rules of a run. */
export interface Policy {
  allow: CompiledRule[];
  deny: CompiledRule[];
  ask: CompiledRule[];
  /**
   * When the explicit allow list has a bare entry, the run is limited to the tools its entries
   * name (a scoped entry keeps its own tool). Undefined: no limit.
   */
  limit?: Rule[];
  kinds: ToolKinds;
}

/**
 * The first Read deny or ask rule that names paths: while one is in force, text a language server
 * derived from other files (a hover, diagnostics) is withheld, since it can carry the text of a
 * file the user denied or wants to be asked about, without naming the file, so without asking
 * (fail closed).
 */
export function readDenyRule(policy: Policy): CompiledRule | undefined {
  return [...policy.deny, ...policy.ask].find((r) => r.tool === "Read" && r.content !== undefined);
}

/** Where rules come from, for messages. */
export interface PolicySources {
  allow: string;
  deny: string;
  ask: string;
}

/** Compile rules. `extra` rules (settings files) are unioned in; they never limit availability. */
export function compilePolicy(
  lists: RuleLists,
  env: {
    cwd: string;
    home: string;
    kinds?: ToolKinds;
    extra?: readonly Rule[];
    sources?: PolicySources;
    /**
     * Other folders a relative deny or ask path rule is read from as well: the session's folder,
     * for a subagent moved into a worktree. A rule written against the project (`Read(./secret/**)`)
     * keeps naming the project's files there, and names the worktree's copy too.
     */
    anchors?: readonly string[];
  },
): Policy {
  const kinds = env.kinds ?? DEFAULT_TOOL_KINDS;
  const sources = env.sources ?? { allow: "allowedTools", deny: "disallowedTools", ask: "askTools" };
  const own = {
    allow: parseRules(lists.allow, "allow", sources.allow),
    deny: parseRules(lists.deny, "deny", sources.deny),
    ask: parseRules(lists.ask, "ask", sources.ask),
  };
  const compile = (rule: Rule): CompiledRule => {
    if (rule.content === undefined) return rule;
    if (kinds.path.has(rule.tool)) {
      const cwds = rule.list === "allow" ? [env.cwd] : [...new Set([env.cwd, ...(env.anchors ?? [])])];
      return { ...rule, path: anyPath(cwds.map((cwd) => compilePathPattern(rule.content!, cwd, env.home))) };
    }
    const normalize = kinds.shell.has(rule.tool) ? normalizeCommandText : undefined;
    return { ...rule, command: compileContent(rule.content, normalize) };
  };
  const extra = env.extra ?? [];
  const all = (list: "allow" | "deny" | "ask") => [...own[list], ...extra.filter((r) => r.list === list)].map(compile);
  return {
    allow: all("allow"),
    deny: all("deny"),
    ask: all("ask"),
    limit: own.allow.some((r) => r.content === undefined) ? own.allow : undefined,
    kinds,
  };
}

/** One matcher for several: a path any of them matches; absent only when each is. */
function anyPath(matchers: PathMatcher[]): PathMatcher {
  if (matchers.length === 1) return matchers[0]!;
  const matcher: PathMatcher = (path) => matchers.some((m) => m(path));
  if (matchers.every((m) => m.absent)) matcher.absent = () => matchers.every((m) => m.absent!());
  return matcher;
}

/** The rules of `list` that name `toolName`. */
export function rulesFor(rules: readonly CompiledRule[], toolName: string): CompiledRule[] {
  return rules.filter((r) => ruleNamesTool(r, toolName));
}
