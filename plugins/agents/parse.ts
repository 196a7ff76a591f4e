/**
 * One agent file: YAML frontmatter carries the fields, the body is the prompt. Keys may be
 * hyphenated or camelCase; lists may be `a, b` or `[a, b]`. A field that cannot be parsed is
 * dropped (and named), so the run's own setting applies instead of a guessed value.
 */
import { PERMISSION_MODES, type PermissionMode } from "../permissions/api";
import { REASONING_LEVELS, type ReasoningLevel } from "../reasoning/api";
import type { AgentDefinition } from "./options";
import { ISOLATIONS, type Isolation } from "./agent-tool";
import { camelKeys, splitFrontmatter } from "../_kits/sources/index";

/** What parsing one agent file gave. */
export type ParsedAgent =
  | {
      ok: true;
      name: string;
      definition: AgentDefinition;
      dropped: string[];
      unapplied: string[];
      /** Keys as written that belong to skills and commands, not agents (`allowed-tools`): ignored, said. */
      misplaced?: string[];
    }
  | { ok: false; problem: string };

/** `text` split at the commas outside parentheses: `Agent(a, b), Read` is two entries, as Claude Code reads it. */
function splitOutsideParentheses(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of text) {
    if (c === "(") depth++;
    if (c === ")") depth = Math.max(0, depth - 1);
    if (c === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += c;
  }
  parts.push(current);
  return parts;
}

/**
 * A list field: `a, b`, `[a, b]` (a YAML sequence or the same text quoted), or nothing after
 * the key, which is an empty list (grants none). A comma inside parentheses separates nothing
 * (`Agent(worker, researcher)` is one entry). Undefined when it is not a list of names.
 */
export function parseList(value: unknown): string[] | undefined {
  if (value === null) return [];
  if (typeof value === "string") {
    const inner = value.trim().replace(/^\[([\s\S]*)\]$/, "$1");
    return splitOutsideParentheses(inner)
      .map((s) => s.trim().replace(/^["']|["']$/g, ""))
      .filter(Boolean);
  }
  if (Array.isArray(value) && value.every((v) => typeof v === "string"))
    return value.map((v) => v.trim()).filter(Boolean);
  return undefined;
}

function parseMaxTurns(value: unknown): number | undefined {
  const n =
    typeof value === "number" ? value : typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** An `outputSchema` field: a YAML mapping, or JSON text of an object. */
function parseSchema(value: unknown): Record<string, unknown> | undefined {
  let data = value;
  if (typeof value === "string") {
    try {
      data = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return typeof data === "object" && data !== null && !Array.isArray(data)
    ? (data as Record<string, unknown>)
    : undefined;
}

/**
 * Claude Code subagent fields ubiquity has no equivalent for: said when a file sets them, never
 * dropped in silence (the agent runs without them).
 */
export const UNAPPLIED_AGENT_FIELDS: Readonly<Record<string, string>> = {
  memory: "no persistent agent memory",
  mcpServers: "an agent gets its parent's MCP servers, not its own",
  background: "a call runs in the background only when it asks (run_in_background)",
  initialPrompt: "an agent's first prompt is the Agent call's",
};

/**
 * Skills' and commands' `allowed-tools` (any spelling) written in an agent file, where Claude Code
 * reads `tools:` alone: three of laravel-claude-toolkit's agents limit a read-only reviewer this way,
 * and the agent got every tool with nothing said.
 */
const SKILL_ONLY_FIELD = /^allowed[-_ ]?tools$/i;

/** Parse an agent file's text; `stem` (the file name without `.md`) is the default name. */
export function parseAgentFile(text: string, stem: string): ParsedAgent {
  const split = splitFrontmatter(text);
  if (!split.ok) return split;
  const data = camelKeys(split.data);
  const dropped: string[] = [];
  let name = stem;
  if ("name" in data) {
    if (typeof data.name === "string" && data.name.trim()) name = data.name.trim();
    else dropped.push("name");
  }
  const description = typeof data.description === "string" ? data.description.trim() : "";
  if (!description)
    return { ok: false, problem: "it has no description: add a `description:` line to its frontmatter" };
  const prompt = split.body.trim();
  if (!prompt) return { ok: false, problem: "it has no body: the text after the frontmatter is the agent's prompt" };

  const definition: AgentDefinition = { description, prompt };
  for (const key of ["tools", "disallowedTools", "skills"] as const) {
    if (!(key in data)) continue;
    const list = parseList(data[key]);
    if (list) definition[key] = list;
    else dropped.push(key);
  }
  if ("model" in data) {
    if (typeof data.model === "string" && data.model.trim()) definition.model = data.model.trim();
    else dropped.push("model");
  }
  if ("maxTurns" in data) {
    const turns = parseMaxTurns(data.maxTurns);
    if (turns) definition.maxTurns = turns;
    else dropped.push("maxTurns");
  }
  if ("reasoning" in data) {
    if (REASONING_LEVELS.includes(data.reasoning as ReasoningLevel))
      definition.reasoning = data.reasoning as ReasoningLevel;
    else dropped.push("reasoning");
  }
  // Claude Code's `effort` (low, medium, high, xhigh, max) is our reasoning level; `reasoning` wins when both are set.
  if ("effort" in data && !("reasoning" in data)) {
    const effort = typeof data.effort === "string" ? data.effort.trim().toLowerCase() : data.effort;
    if (REASONING_LEVELS.includes(effort as ReasoningLevel)) definition.reasoning = effort as ReasoningLevel;
    else dropped.push("effort");
  }
  if ("permissionMode" in data) {
    if (PERMISSION_MODES.includes(data.permissionMode as PermissionMode))
      definition.permissionMode = data.permissionMode as PermissionMode;
    else dropped.push("permissionMode");
  }
  if ("isolation" in data) {
    if (ISOLATIONS.includes(data.isolation as Isolation)) definition.isolation = data.isolation as Isolation;
    else dropped.push("isolation");
  }
  if ("hooks" in data) {
    // The settings-file shape, read entry by entry when the agent runs (hooks.scope); keys as written.
    const hooks = split.data.hooks ?? data.hooks;
    if (typeof hooks === "object" && hooks !== null && !Array.isArray(hooks))
      definition.hooks = hooks as Record<string, unknown>;
    else dropped.push("hooks");
  }
  if ("outputSchema" in data) {
    const schema = parseSchema(data.outputSchema);
    if (schema) definition.outputSchema = schema;
    else dropped.push("outputSchema");
  }
  const unapplied = Object.keys(UNAPPLIED_AGENT_FIELDS).filter((key) => key in data);
  const misplaced = Object.keys(split.data).filter((key) => SKILL_ONLY_FIELD.test(key));
  return { ok: true, name, definition, dropped, unapplied, ...(misplaced.length ? { misplaced } : {}) };
}
