/**
 * A hook handler's `if` (Claude Code's field, in permission-rule syntax: `Bash(git push *)`,
 * `Edit(src/**)`, `mcp__github`): the handler runs only for tool calls the rule matches. It
 * fails safe — a guard must not be skipped by a call it cannot read — so the handler runs
 * whenever the filter cannot be sure the call does not match: a command with quotes,
 * substitutions, redirections or a wrapper (`sudo`, `env`, `bash -c`, `xargs`, …), a command in
 * which the rule's program is any word (behind `if`, `!`, `coproc`, a wrapper not listed), rule content
 * on a tool it has no reading for, or an event without a tool.
 */
import { isAbsolute, relative, resolve } from "node:path";
import { homedir } from "node:os";
import { LINE_BREAKS, micromatch } from "../_kits/lazy/index";
import { isInside, resolveReal } from "../_kits/paths/index";
import {
  compileContent,
  DEFAULT_TOOL_KINDS,
  namesPatchTool,
  parseRule,
  type Rule,
  ruleNamesTool,
} from "../permissions/api";
import type { HookInput } from "./options";

/** A compiled `if`: true when the handler should run for `input`. */
export type IfFilter = (input: HookInput) => boolean;

// Characters after which a command cannot be split into simple words here: run the hook.
const UNREADABLE = /[`$\n(){}<>"'\\*?[\]]/;
// Programs that run another command: the rule's program may hide behind them.
const WRAPPERS = new Set([
  "sudo",
  "doas",
  "env",
  "command",
  "exec",
  "nohup",
  "time",
  "nice",
  "ionice",
  "timeout",
  "xargs",
  "bash",
  "sh",
  "zsh",
  "dash",
  "eval",
  "watch",
  "stdbuf",
  "setsid",
  "chroot",
  "busybox",
  "parallel",
  "find",
]);
// Tools that read or list what is below a folder.
const WALKERS = new Set(["Grep", "Glob"]);
const PATH_TOOLS = new Set([
  "Read",
  "Edit",
  "Write",
  "MultiEdit",
  "NotebookEdit",
  "NotebookRead",
  "Glob",
  "Grep",
  "LS",
]);

/** Compile `text`, or return why it is not a rule (the caller then runs the handler for every call). */
export function compileIf(text: string): IfFilter | string {
  let rule: Rule;
  try {
    rule = parseRule(text, "allow", "hook if");
  } catch (error) {
    return (error as Error).message;
  }
  const content = rule.content;
  return (input) => {
    if (input.toolName === undefined) return true;
    // apply_patch does what Edit and Write do (the matcher selects it for them too): a rule for
    // either names it, and its paths are inside the patch text, so the guard runs.
    if (namesPatchTool(rule, input.toolName)) return true;
    // The edit tools are one family, as for permission rules: `Edit(secrets/**)` guards a Write there too.
    const edits = DEFAULT_TOOL_KINDS.edit;
    // Read rules answer for Grep and Glob too (they read, and list, what is below a folder).
    const walker = WALKERS.has(input.toolName) && rule.tool === "Read";
    if (!ruleNamesTool(rule, input.toolName) && !(edits.has(rule.tool) && edits.has(input.toolName)) && !walker)
      return false;
    if (content === undefined) return true;
    const toolInput = input.toolInput ?? {};
    if (WALKERS.has(input.toolName)) {
      const folder = typeof toolInput.path === "string" ? toolInput.path : ".";
      return pathMayMatch(content, folder, input.cwd) || mayHoldMatch(content, folder, input.cwd);
    }
    if (input.toolName === "Bash" && typeof toolInput.command === "string")
      return commandMayMatch(content, toolInput.command);
    if (PATH_TOOLS.has(input.toolName)) {
      const path = [toolInput.file_path, toolInput.notebook_path, toolInput.path].find(
        (p): p is string => typeof p === "string",
      );
      return path === undefined || pathMayMatch(content, path, input.cwd);
    }
    return true; // no reading of this tool's content here: fail safe
  };
}

/**
 * Compile `text` as a proof (red team v, V4): true only when the call surely is one the rule
 * names — a simple command the rule's pattern matches, with nothing the shell reads otherwise
 * (no quotes, expansions, redirections, `;`, `&`, `|`, comments), or a path tool's path that
 * matches as written and as it really is. `compileIf` runs the handler whenever a call may match
 * (a guard must not be skipped), so a hook that approves what its `if` names (`if: "Bash(npm test
 * *)"`, `echo '{…"allow"}'`) approved `touch "m"` and `touch m # npm test x`, which its rule does
 * not name: its approval counts only where this says yes. Undefined when `text` is not a rule.
 */
export function compileIfSure(text: string): IfFilter | undefined {
  let rule: Rule;
  try {
    rule = parseRule(text, "allow", "hook if");
  } catch {
    return undefined;
  }
  const content = rule.content;
  return (input) => {
    if (input.toolName === undefined || !ruleNamesTool(rule, input.toolName)) return false;
    if (content === undefined) return true;
    const toolInput = input.toolInput ?? {};
    if (input.toolName === "Bash" && typeof toolInput.command === "string") {
      const command = toolInput.command.trim();
      return !UNREADABLE.test(command) && !/[;&|#\r]/.test(command) && compileContent(content).test(command);
    }
    if (PATH_TOOLS.has(input.toolName) && !WALKERS.has(input.toolName)) {
      const path = [toolInput.file_path, toolInput.notebook_path].find((p): p is string => typeof p === "string");
      if (path === undefined) return false;
      const absolute = resolve(input.cwd, path);
      const real = resolveReal(absolute);
      const realCwd = resolveReal(input.cwd) ?? input.cwd;
      return real !== undefined && pathMatchesAt(content, absolute, input.cwd) && pathMatchesAt(content, real, realCwd);
    }
    return false;
  };
}

function commandMayMatch(content: string, command: string): boolean {
  if (UNREADABLE.test(command)) return true;
  const matcher = compileContent(content);
  if (matcher.test(command)) return true;
  // Bash runs the rule's program behind a keyword (`if rm …`, `! rm`, `coproc rm`, `do rm`) or a
  // wrapper no list holds (`flock L rm`, `taskset 1 rm`): any word that names it runs the guard.
  // (By its last path part: `Bash(./deploy.sh:*)` is run by `. ./deploy.sh` and `source deploy.sh` too.)
  const program = (content.replace(/:\*$/, "").trim().split(/\s+/)[0] ?? "").split("/").pop() ?? "";
  if (program !== "" && !program.includes("*") && command.split(/[\s;&|]+/).some((w) => w.split("/").pop() === program))
    return true;
  for (const segment of command.split(/&&|\|\||[;|&]/)) {
    const words = segment.trim().split(/\s+/).filter(Boolean);
    while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift(); // VAR=value cmd
    if (words.length === 0) continue;
    const program = words[0]!.split("/").pop()!;
    if (WRAPPERS.has(program)) return true;
    if (matcher.test([program, ...words.slice(1)].join(" "))) return true;
  }
  return false;
}

function pathMayMatch(content: string, path: string, cwd: string): boolean {
  const absolute = resolve(cwd, path);
  // A link leads elsewhere (`s2/x` with s2 -> secrets): the path the call writes is judged too,
  // against the folder as written and as it really is; one that cannot be resolved runs the hook.
  const real = resolveReal(absolute);
  if (real === undefined) return true;
  const realCwd = resolveReal(cwd) ?? cwd;
  return (
    pathMatchesAt(content, absolute, cwd) || pathMatchesAt(content, real, cwd) || pathMatchesAt(content, real, realCwd)
  );
}

/**
 * Can a file below `folder` match the path rule? Fail safe: yes when the folder holds the rule's
 * fixed part (what comes before its first glob character), or lies inside it, or cannot be resolved.
 */
function mayHoldMatch(content: string, folder: string, cwd: string): boolean {
  const real = resolveReal(resolve(cwd, folder));
  if (real === undefined) return true;
  const realCwd = resolveReal(cwd) ?? cwd;
  for (const [dir, base] of [
    [resolve(cwd, folder), cwd],
    [real, realCwd],
  ] as const) {
    for (const pattern of pathPatterns(content, base)) {
      const fixed = pattern.slice(0, pattern.search(/[*?[{]|$/)).replace(/\/[^/]*$/, "") || "/";
      if (isInside(dir, fixed) || isInside(fixed, dir)) return true;
    }
  }
  return false;
}

/** Claude Code's path rules as absolute patterns: `//abs`, `~/home`, `/relative-to-the-project`, `./rel` or `rel`. */
function pathPatterns(content: string, cwd: string): string[] {
  return content.startsWith("//")
    ? [content.slice(1)]
    : content.startsWith("~/")
      ? [resolve(homedir(), content.slice(2))]
      : content.startsWith("/")
        ? [resolve(cwd, `.${content}`), content]
        : [resolve(cwd, content), resolve(cwd, `**/${content.replace(/^\.\//, "")}`)];
}

function pathMatchesAt(content: string, absolute: string, cwd: string): boolean {
  const mm = micromatch();
  // A path with a line break matches too (LINE_BREAKS: `*` is compiled to `.`).
  const options = { dot: true, ...LINE_BREAKS };
  // Claude Code's path rules: `//abs`, `~/home`, `/relative-to-the-project`, `./rel` or `rel`.
  const patterns = pathPatterns(content, cwd);
  if (patterns.some((p) => mm.isMatch(absolute, p, options))) return true;
  const rel = relative(cwd, absolute);
  return !isAbsolute(rel) && mm.isMatch(rel, content.replace(/^\.\//, ""), options);
}
