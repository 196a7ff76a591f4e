/**
 * `decidePermission()`: the engine as a plain function, for tests of one's own rules and for
 * `ubiquity permissions check`. It reaches the verdict a run with the same options would reach
 * before any handler is asked.
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { Tool } from "../../src/index";
import { absolutePath } from "../../src/index";
import type { PermissionMode } from "./options";
import { compilePolicy, DEFAULT_TOOL_KINDS, type PolicySources, type RuleLists } from "./policy";
import { decide, placeholderContext, type Decision, type EngineSetup } from "./engine";
import { insideRoots, judgePath, resolveRoots } from "./paths";
import type { Place } from "./subject";
import { loadShellParser } from "./shell/parser";

/** What `decidePermission` is asked. */
export interface DecidePermissionInput {
  toolName: string;
  input: Record<string, unknown>;
  /** Rules as in `allowedTools` / `disallowedTools` / `askTools`. */
  rules?: RuleLists;
  /** ['default'] */
  mode?: PermissionMode;
  /** [process.cwd()] */
  cwd?: string;
  /** [[]] */
  additionalDirectories?: readonly string[];
  /** The tool itself, when you have it: its isReadOnly, checkPermissions and rule content take part as in a run. */
  tool?: Tool;
  /** The home folder `~` rules and paths mean [os.homedir()]. */
  home?: string;
  /**
   * Bash runs inside the OS sandbox (as a run with the sandbox on) [false]: in bypassPermissions
   * a write the engine cannot name is then left to the sandbox instead of asking.
   */
  sandbox?: boolean;
}

/** The verdict: `allow`, `ask` (a handler would be asked) or `deny`, why, and the deciding rule. */
export interface PermissionDecision {
  behavior: "allow" | "ask" | "deny";
  message: string;
  rule?: string;
}

/** Decide one call the way a run with these rules and mode would, before any handler is asked. */
export async function decidePermission(request: DecidePermissionInput): Promise<PermissionDecision> {
  const { behavior, message, rule } = await explainPermission(request);
  return rule === undefined ? { behavior, message } : { behavior, message, rule };
}

/** Like `decidePermission`, with the deciding step, the suggestions and the candidates it judged. */
export async function explainPermission(
  request: DecidePermissionInput & { sources?: PolicySources },
): Promise<Decision> {
  // Before the rules compile: the grammar normalises command rules.
  await loadShellParser();
  const cwd = resolve(request.cwd ?? process.cwd());
  const home = request.home ?? homedir();
  const roots = [cwd, ...(request.additionalDirectories ?? []).map((d) => absolutePath(cwd, d, home))];
  const policy = compilePolicy(request.rules ?? {}, {
    cwd,
    home,
    kinds: DEFAULT_TOOL_KINDS,
    ...(request.sources ? { sources: request.sources } : {}),
  });
  return judgeCall(request, {
    mode: request.mode ?? "default",
    policy,
    place: { cwd, home, roots: resolveRoots(roots) },
    sandboxed: () => request.sandbox === true,
  });
}

/**
 * One call judged as a run judges it before anyone is asked: the tool's input check (a path
 * outside the roots is refused there), then the engine. `decidePermission` and `ubiquity
 * permissions check` on a project's own setup both come here.
 */
export async function judgeCall(call: CallToJudge, env: EngineSetup): Promise<Decision> {
  await loadShellParser();
  const refusal = await refused(call, env.place);
  if (refusal)
    return {
      behavior: "deny",
      step: "tool",
      message: `Invalid arguments for ${call.toolName}: ${refusal}`,
      suggestions: [],
    };
  return decide({ toolName: call.toolName, input: call.input, ...(call.tool ? { tool: call.tool } : {}) }, env);
}

/** The call `judgeCall` judges. */
type CallToJudge = Pick<DecidePermissionInput, "toolName" | "input" | "tool">;

/** What the tool's own input check would refuse: its validateInput, or (without a tool) a built-in path tool's roots check. */
async function refused(request: CallToJudge, place: Place): Promise<string | undefined> {
  if (request.tool) {
    try {
      return (await request.tool.validateInput?.(request.input, placeholderContext(place))) ?? undefined;
    } catch (error) {
      return `its input check failed (${String(error)})`;
    }
  }
  if (!DEFAULT_TOOL_KINDS.path.has(request.toolName)) return undefined;
  const written =
    ["file_path", "notebook_path", "path"]
      .map((k) => request.input[k])
      .find((v): v is string => typeof v === "string") ?? ".";
  const path = judgePath(place.cwd, place.home, written);
  return insideRoots(path, place.roots)
    ? undefined
    : `${path.absolute} is outside the folders this run may access. Permitted: ${place.roots.join(", ")}.`;
}
