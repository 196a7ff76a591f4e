/** The options the agents plugin reads, and the subagent definition shape. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import { ModelSchema, type ResolvedOptions } from "../../src/index";
import { SourcesSchema } from "../_kits/sources/index";
import { PERMISSION_MODES } from "../permissions/api";
import { settingsOptions } from "../settings/api";
import { ClaudePluginsOption } from "../_kits/sources/index";
import { OutputSchemaSchema } from "../structured-output/api";
import { ReasoningLevel } from "../reasoning/api";
import { ISOLATIONS } from "./agent-tool";

/** A subagent definition. */
export const AgentDefinitionSchema = z.strictObject({
  description: z.string().min(1),
  /** A name written for people, shown next to the agent's identifier in the Agent tool's listing. */
  displayName: z.string().min(1).max(64).optional(),
  prompt: z.string().min(1),
  tools: z.array(z.string()).optional(),
  disallowedTools: z.array(z.string()).optional(),
  model: z.union([z.literal("inherit"), ModelSchema]).optional(),
  skills: z.array(z.string()).optional(),
  maxTurns: z.number().int().positive().optional(),
  /** How much it reasons (over the parent's `reasoning`): none, minimal, low, medium, high, xhigh or max. */
  reasoning: ReasoningLevel.optional(),
  permissionMode: z.enum(PERMISSION_MODES).optional(),
  /** The shape of its final answer (a JSON Schema, or zod in code): the Agent tool then returns that JSON. */
  outputSchema: OutputSchemaSchema.optional(),
  /** `worktree`: it works in a fresh git worktree on a branch of its own; `none`: in its caller's folder. */
  isolation: z.enum(ISOLATIONS).optional(),
  /** Claude Code's agent-scoped hooks (the settings-file shape): they watch this agent's run alone; its `Stop` hooks run at SubagentStop. */
  hooks: z.record(z.string(), z.unknown()).optional(),
});
export type AgentDefinition = z.input<typeof AgentDefinitionSchema>;

/** The agents plugin's slice of the config schema (`trust` is the settings plugin's, read here too). */
export const agentsOptions = lazyOptions(
  ["agents", "agent", "agentSources", "agentIsolation", "worktreeDir", "trust", "compat", "claudePlugins"],
  () => ({
    agents: z.record(z.string(), AgentDefinitionSchema).optional(),
    /**
     * The main agent runs as this one of `agents` (or of the agent files): its prompt is the
     * guidance, its tools and model are the run's (Claude Code's `--agent` and `agent` setting).
     */
    agent: z.string().min(1).optional(),
    agentSources: SourcesSchema.optional(),
    /** Where subagents work when neither their definition nor the call says: `worktree` or `none` [none]. */
    agentIsolation: z.enum(ISOLATIONS).optional(),
    /** The folder of isolated agents' worktrees [$XDG_DATA_HOME/ubiquity/worktrees, else ~/.local/share/ubiquity/worktrees]. */
    worktreeDir: z.string().min(1).optional(),
    trust: settingsOptions.shape.trust,
    compat: settingsOptions.shape.compat,
    claudePlugins: ClaudePluginsOption,
  }),
);
export type AgentsOptions = z.input<typeof agentsOptions>;
export type AgentsResolvedOptions = ResolvedOptions & Readonly<AgentsOptions>;
