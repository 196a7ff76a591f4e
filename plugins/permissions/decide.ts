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
import { decide, placeholderContext, type Decision } from "./engine";
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
  const place = { cwd, home, roots: resolveRoots(roots) };
  // A run checks the input before any permission (a path outside the roots is refused there): so does this.
  const refusal = await refused(request, place);
  if (refusal)
    return {
      behavior: "deny",
      step: "tool",
      message: `Invalid arguments for ${request.toolName}: ${refusal}`,
      suggestions: [],
    };
  return decide(
    { toolName: request.toolName, input: request.input, ...(request.tool ? { tool: request.tool } : {}) },
    { mode: request.mode ?? "default", policy, place, sandboxed: () => request.sandbox === true },
  );
}

/** What the tool's own input check would refuse: its validateInput, or (without a tool) a built-in path tool's roots check. */
async function refused(request: DecidePermissionInput, place: Place): Promise<string | undefined> {
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
