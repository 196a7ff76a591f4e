/**
 * The Agent tool: delegates a task to a configured subagent. The listing of agents in its
 * description is sorted by name, so the tool block (the start of the cached prefix) renders
 * the same for the same set of agents.
 */
import { z } from "zod";
import { Tool, type ToolContext, type ToolOutput } from "../../src/index";
import type { AgentDefinition } from "./options";
import { budgetedListing, displayNameOf, MIN_LISTING_CHARS } from "../_kits/sources/index";

/** The tool's name. */
export const AGENT_TOOL = "Agent";

/** The SendMessage tool's name (the tool is in send-message.ts, loaded when agents are configured). */
export const SEND_MESSAGE_TOOL = "SendMessage";

/** What a background agent's name may be. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Where an agent may work apart from its caller. */
export const ISOLATIONS = ["worktree", "none"] as const;
export type Isolation = (typeof ISOLATIONS)[number];

/** The input schema for a set of agent names (at least one). */
export function agentInput(names: [string, ...string[]]) {
  return z.object({
    subagent_type: z.enum(names).describe("Which agent runs the task: one of those listed in the tool description"),
    description: z.string().describe("A short (3-5 word) summary of the task, for the record"),
    prompt: z
      .string()
      .min(1)
      .describe("The task, with everything the agent needs to know: it sees nothing of this conversation"),
    run_in_background: z
      .boolean()
      .optional()
      .describe("Start the agent and return at once with its task id; its reply comes to you when it finishes"),
    name: z
      .string()
      .regex(AGENT_NAME, "a name is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit")
      .optional()
      .describe("A name for a background agent, to message it with SendMessage while it runs"),
    isolation: z
      .enum(ISOLATIONS)
      .optional()
      .describe(
        '"worktree": the agent works in a fresh git worktree on its own branch, so its edits never touch this working tree; "none": in this folder (the agent\'s own setting applies when omitted)',
      ),
  });
}

/** What the Agent tool receives. */
export type AgentInput = z.output<ReturnType<typeof agentInput>>;

/**
 * The description: what delegation is for, then the agents sorted by name, within `budget`
 * characters (see the sources kit's `budgetedListing`; it says what it left out).
 */
export function describeAgents(
  agents: Readonly<Record<string, AgentDefinition>>,
  budget: number = MIN_LISTING_CHARS,
): string {
  const listing = budgetedListing(
    Object.entries(agents).map(([name, def]) => ({
      name,
      ...(def.displayName ? { displayName: displayNameOf(def.displayName) } : {}),
      description: def.description,
      suffix: def.tools ? ` (tools: ${def.tools.length ? def.tools.join(", ") : "none"})` : "",
    })),
    budget,
    "agent",
  );
  return [
    "Delegate a task to a subagent. It works on its own, with its own conversation and tools, and returns only its final reply to you.",
    "Use it for self-contained work (a search, a review, an investigation) whose details need not fill this conversation. Several Agent calls in one response run in parallel.",
    "The subagent sees nothing of this conversation: put everything it needs in `prompt`. Its reply comes back to you, not to the user: relay what matters.",
    "With `run_in_background: true` the call returns at once with a task id and the agent works while you go on; give it a `name` to send it more instructions with SendMessage. You are told when it finishes, with its reply; if you end your turn while background agents still run, the run waits for them and their replies come to you as the next message.",
    'With `isolation: "worktree"` the agent works in a fresh git worktree on a branch of its own (from this repository\'s HEAD; uncommitted changes here are not in it): you are told the branch, its folder and what changed; a worktree left unchanged is removed.',
    "",
    "Agents (subagent_type):",
    listing.text,
    ...(listing.note ? ["", listing.note] : []),
  ].join("\n");
}

/** Runs one delegation; the plugin supplies it (it needs the calling run). */
export type Launch = (input: AgentInput, ctx: ToolContext) => Promise<ToolOutput>;

/** The Agent tool for a fixed set of agents. */
export class AgentTool extends Tool<ReturnType<typeof agentInput>> {
  readonly name = AGENT_TOOL;
  /** A delegation runs many turns, each bounded on its own (model calls, tool calls, maxTurns). */
  override timeoutMs = Infinity;
  readonly description: string;
  readonly inputSchema: ReturnType<typeof agentInput>;

  constructor(
    readonly agents: Readonly<Record<string, AgentDefinition>>,
    private readonly launch: Launch,
    /** The listing's budget in characters (see `listingBudget`). */
    readonly budget: number = MIN_LISTING_CHARS,
  ) {
    super();
    const names = Object.keys(agents).sort() as [string, ...string[]];
    this.description = describeAgents(agents, budget);
    this.inputSchema = agentInput(names);
  }

  // Delegating changes nothing by itself: every call the subagent makes is judged on its own,
  // under a mode that can only be narrower than this run's.
  override isReadOnly(): boolean {
    return true;
  }
  override isConcurrencySafe(): boolean {
    return true;
  }
  /** `Agent(name)` rules, as Claude Code writes them (`deny: ["Agent(Explore)"]`): the agent called. */
  override permissionRuleContent(input: AgentInput): string[] {
    return [input.subagent_type];
  }
  call(input: AgentInput, ctx: ToolContext): Promise<ToolOutput> {
    return this.launch(input, ctx);
  }
}
