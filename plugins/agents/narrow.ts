/**
 * What a subagent may do, derived from its parent: a subagent can be narrowed, never widened —
 * one that could widen its own permissions would be an escalation path.
 */
import { z } from "zod";
import { absolutePath, ConfigError, type ResolvedOptions, type RunContext } from "../../src/index";
import { narrowMode, permissionModeOf, permissionsOptions } from "../permissions/api";

export { narrowMode };
import type { AgentDefinition } from "./options";

/** The turn budget of a subagent whose definition sets none. */
export const DEFAULT_AGENT_MAX_TURNS = 20;

/** The options a subagent runs with: the parent's, with its own prompt, model, budget, mode and extra denials (and folder, in a worktree). */
export function subagentOptions(
  options: ResolvedOptions,
  definition: AgentDefinition,
  model: NonNullable<RunContext["model"]>,
  cwd?: string,
): ResolvedOptions {
  const parent = options;
  // The permissions plugin's option, read through its schema (a subagent's options are made here, not by a context).
  const read = permissionsOptions.shape.disallowedTools.safeParse(options.disallowedTools);
  // What cannot be read is refused, never dropped: a subagent must not lose its parent's denials.
  if (!read.success) throw new ConfigError(`disallowedTools: ${z.prettifyError(read.error)}`);
  const inherited = read.data;
  const denied = definition.disallowedTools ?? [];
  // In a folder of its own (a worktree), the parent's extra folders stay the same folders.
  const moved =
    cwd === undefined
      ? {}
      : { cwd, additionalDirectories: (parent.additionalDirectories ?? []).map((d) => absolutePath(parent.cwd, d)) };
  return Object.freeze({
    ...parent,
    ...moved,
    model,
    // The definition's prompt is the subagent's guidance; the run sections still follow it.
    systemPrompt: definition.prompt,
    maxTurns: definition.maxTurns ?? DEFAULT_AGENT_MAX_TURNS,
    // Its own reasoning level, when its definition names one (read by ubiquity:reasoning).
    ...(definition.reasoning ? { reasoning: definition.reasoning } : {}),
    permissionMode: narrowMode(permissionModeOf(parent), definition.permissionMode),
    // Deny rules only ever take away, so adding the definition's is safe (and enforces rule forms like `Bash(rm *)`).
    disallowedTools: denied.length ? [...(inherited ?? []), ...denied] : inherited,
    // The answer's shape is the definition's own: the parent's outputSchema is for the parent's answer.
    outputSchema: definition.outputSchema,
  });
}

/**
 * The edit tools of the other surface (`toolProfile`): a subagent on another model than its
 * parent edits with apply_patch where the parent has Edit and Write, and the other way round.
 */
const SAME_EDITS: Readonly<Record<string, readonly string[]>> = {
  apply_patch: ["Edit", "Write"],
  Edit: ["apply_patch"],
  Write: ["apply_patch"],
};
const named = (names: { has(n: string): boolean }, name: string) =>
  names.has(name) || (SAME_EDITS[name] ?? []).some((n) => names.has(n));

/**
 * An MCP server named whole in an agent's `tools` or `disallowedTools`, as Claude Code takes it:
 * `mcp__context7__*` or `mcp__context7` stands for every tool of that server (`mcp__context7__…`).
 * Nothing else is a pattern: a `*` elsewhere (`mcp__*__x`, `mcp__ctx*`) names a tool that does not exist.
 */
function serverPrefix(entry: string): string | undefined {
  const server = /^mcp__([^*]+?)(?:__\*)?$/.exec(entry)?.[1];
  return server !== undefined && !server.includes("__") ? `mcp__${server}__` : undefined;
}

/** `name` is listed in `entries`: by name, or as a tool of an MCP server listed whole. */
function listed(entries: readonly string[], name: string): boolean {
  if (entries.includes(name)) return true;
  return (
    name.startsWith("mcp__") &&
    entries.some((entry) => {
      const prefix = serverPrefix(entry);
      return prefix !== undefined && name.startsWith(prefix);
    })
  );
}

/** Which of the tools offered to a subagent it keeps: its parent's, cut to `tools` and `disallowedTools`. */
export function keepTool(
  name: string,
  parentTools: ReadonlySet<string> | undefined,
  definition: AgentDefinition | undefined,
): boolean {
  if (parentTools && !named(parentTools, name)) return false;
  // `tools: *` is Claude Code's "every tool": the parent's, as when `tools` is left out.
  if (
    definition?.tools &&
    !definition.tools.includes("*") &&
    !named(new Set(definition.tools), name) &&
    !listed(definition.tools, name)
  )
    return false;
  return !(definition?.disallowedTools && listed(definition.disallowedTools, name));
}
