/**
 * The main agent as a named agent (Claude Code's `--agent <name>` and `agent` setting): the
 * definition's prompt is the run's guidance, its `tools` and `disallowedTools` narrow the run's
 * tools, and its `model` is the run's model. Its other fields (permission mode, turn budget,
 * hooks, isolation) stay a subagent's: the user's own options govern the main run.
 */
import { modelLabel, resolveModel, RunEnd, type RunContext, type SystemSection, type Tool } from "../../src/index";
import { fileModel as agentModel, modelAliasesOf } from "../model/index";
import { keepTool } from "./narrow";
import type { AgentDefinition } from "./options";

/** The definition the main run of `run` runs as, or undefined (a subagent, no `agent` option, an unknown name). */
export function mainAgentOf(
  run: RunContext,
  name: string | undefined,
  agents: Record<string, AgentDefinition>,
): AgentDefinition | undefined {
  if (name === undefined || run.parent || run.agent) return undefined;
  return Object.hasOwn(agents, name) ? agents[name] : undefined;
}

/** At the session's start: an unknown name ends the run naming the agents there are; a definition's model becomes the run's. */
export async function startMainAgent(
  run: RunContext,
  name: string | undefined,
  agents: Record<string, AgentDefinition>,
): Promise<void> {
  if (name === undefined || run.parent || run.agent) return;
  const definition = mainAgentOf(run, name, agents);
  if (!definition) {
    const known = Object.keys(agents);
    throw new RunEnd(
      `No agent named "${name}" (--agent, or the "agent" setting): ${known.length ? `the agents are ${known.join(", ")}` : "no agent is defined"}; define it under "agents" in a config file, in .claude/agents/${name}.md, or pass --agents`,
    );
  }
  const modelAliases = modelAliasesOf(run.options);
  const wanted = typeof definition.model === "string" ? agentModel(definition.model, modelAliases) : definition.model;
  if (wanted === undefined) return;
  run.model = await resolveModel(run, wanted, "main");
  run.modelLabel = modelLabel(run.model, run.kernel);
}

/** The main agent's tools: the definition's `tools` and `disallowedTools` narrow them, as a subagent's. */
export function mainAgentTools(tools: Tool[], definition: AgentDefinition | undefined): Tool[] {
  return definition ? tools.filter((t) => keepTool(t.name, undefined, definition)) : tools;
}

/** The definition's prompt in place of the base guidance. */
export function mainAgentGuidance(sections: SystemSection[], definition: AgentDefinition | undefined): SystemSection[] {
  if (!definition) return sections;
  const guidance = { id: "guidance", text: definition.prompt };
  return sections.some((s) => s.id === "guidance")
    ? sections.map((s) => (s.id === "guidance" ? guidance : s))
    : [guidance, ...sections];
}
