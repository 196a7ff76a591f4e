/**
 * A Codex custom agent: a TOML file in `~/.codex/agents/` or a project's `.codex/agents/`, with
 * `name`, `description` and `developer_instructions` (its prompt), and any of a config file's
 * keys for the agent's own session. Read under `compat: ["codex"]` as Codex reads it, into the
 * same definition an agent file gives; what ubiquity does not apply is said, never dropped in
 * silence.
 */
import { createRequire } from "node:module";
import type * as Toml from "smol-toml";
import { REASONING_LEVELS, type ReasoningLevel } from "../reasoning/api";
import type { AgentDefinition } from "./options";
import type { ParsedAgent } from "./parse";

// Loaded only when a Codex agent file is read: most runs never need a TOML parser.
const toml = (): typeof Toml => createRequire(import.meta.url)("smol-toml") as typeof Toml;

/** Codex agent keys ubiquity has no equivalent for, with what happens instead. */
const UNAPPLIED_CODEX_AGENT_KEYS: Readonly<Record<string, string>> = {
  mcp_servers: "an agent gets its parent's MCP servers, not its own",
  skills: "an agent gets its parent's skills",
};

/** Codex agent keys that only change what Codex shows: nothing to apply, nothing to say. */
const DISPLAY_KEYS = new Set(["nickname_candidates"]);

/**
 * Parse a Codex agent file's text; `stem` (the file name without `.toml`) is the name when the
 * file has none. `unapplied` holds each key read but not applied, with why.
 */
export function parseCodexAgentFile(text: string, stem: string): ParsedAgent {
  let data: Record<string, unknown>;
  try {
    data = toml().parse(text) as Record<string, unknown>;
  } catch (error) {
    return { ok: false, problem: `it is not TOML (${(error as Error).message.split("\n")[0]})` };
  }
  const dropped: string[] = [];
  const unapplied: string[] = [];
  let name = stem;
  if ("name" in data) {
    if (typeof data.name === "string" && data.name.trim()) name = data.name.trim();
    else dropped.push("name");
  }
  const description = typeof data.description === "string" ? data.description.trim() : "";
  if (!description) return { ok: false, problem: 'it has no description: add a `description = "…"` line' };
  const prompt = typeof data.developer_instructions === "string" ? data.developer_instructions.trim() : "";
  if (!prompt)
    return {
      ok: false,
      problem: 'it has no developer_instructions: they are the agent\'s prompt (`developer_instructions = """…"""`)',
    };
  const definition: AgentDefinition = { description, prompt };
  if ("model" in data) {
    // Codex runs a bare model name on its default provider, OpenAI's (as the config file's `model`).
    if (typeof data.model === "string" && data.model.trim()) {
      const model = data.model.trim();
      definition.model = model.includes(":") ? model : `openai:${model}`;
    } else dropped.push("model");
  }
  if ("model_reasoning_effort" in data) {
    const effort = typeof data.model_reasoning_effort === "string" ? data.model_reasoning_effort.trim() : undefined;
    if (REASONING_LEVELS.includes(effort as ReasoningLevel)) definition.reasoning = effort as ReasoningLevel;
    else dropped.push("model_reasoning_effort");
  }
  if ("sandbox_mode" in data) {
    // As in a config file: read-only is plan mode (nothing edits, no command runs unasked);
    // workspace-write is the run's own mode; anything wider is not applied.
    if (data.sandbox_mode === "read-only") definition.permissionMode = "plan";
    else if (data.sandbox_mode !== "workspace-write")
      unapplied.push(
        `sandbox_mode = ${JSON.stringify(data.sandbox_mode)} (a Codex file never widens what runs without asking; the run's own mode applies)`,
      );
  }
  const known = new Set(["name", "description", "developer_instructions", "model", "model_reasoning_effort"]);
  for (const key of Object.keys(data)) {
    if (known.has(key) || key === "sandbox_mode" || DISPLAY_KEYS.has(key)) continue;
    unapplied.push(
      key in UNAPPLIED_CODEX_AGENT_KEYS
        ? `${key} (${UNAPPLIED_CODEX_AGENT_KEYS[key]})`
        : `${key} (not a key ubiquity reads for an agent)`,
    );
  }
  return { ok: true, name, definition, dropped, unapplied };
}
