/**
 * One delegation: a nested run on the same kernel with its own history, tools, budget and
 * file-read state. Only its final text goes back to the caller; its usage and cost are the
 * caller's too (the kernel's usage ledger and pricing charge every ancestor of the run that paid).
 */
import { randomUUID } from "node:crypto";
import {
  createRun,
  describeError,
  driveRun,
  requestedModel,
  resolveModel,
  type ResultMessage,
  type RunContext,
  type RunInput,
  type ToolOutput,
} from "../../src/index";
import type { AgentDefinition } from "./options";
import { getHooksApi } from "../hooks/index";
import { getSkillsApi } from "../skills/api";
import type { AgentInput } from "./agent-tool";
import { subagentOptions } from "./narrow";
import { getPermissionsApi } from "../permissions/api";
import { fileModel, modelAliasesOf } from "../model/index";
export { CLAUDE_MODEL_TIERS } from "../model/index";

/** What the plugin remembers about a subagent run while it runs. */
export interface Delegation {
  definition: AgentDefinition;
  /** The tools its parent was offered when it delegated: a subagent never gets more. */
  parentTools: ReadonlySet<string>;
  /** `additionalContext` from SubagentStart hooks, placed ahead of its prompt. */
  context: string[];
}

type Model = NonNullable<RunContext["model"]>;

/**
 * The model an agent file's `model` asks for, or undefined for the parent's own (`inherit`, or a
 * Claude tier no alias maps): the model plugin's `fileModel`, shared with hook and command files.
 */
export const agentModel = fileModel;

/** The subagent's model: `inherit`, an unmapped Claude tier (or none) is the parent's own; a string resolves with role `subagent`. */
async function modelFor(parent: RunContext, definition: AgentDefinition): Promise<Model> {
  const wanted = agentModel(
    typeof definition.model === "string" ? definition.model : undefined,
    modelAliasesOf(parent.options),
  );
  if (typeof definition.model !== "string" && definition.model !== undefined)
    return resolveModel(parent, definition.model, "subagent");
  if (wanted !== undefined) return resolveModel(parent, wanted, "subagent");
  if (parent.model) return parent.model;
  const requested = requestedModel(parent.options);
  if (requested === undefined) throw new Error("the parent run has no model to inherit; set the agent's model");
  return resolveModel(parent, requested, "subagent");
}

/** Where and how a subagent runs, beyond its definition. */
export interface LaunchPlace {
  /** Its own working directory (a worktree); the parent's when unset. */
  cwd?: string;
  /** Its own abort signal (a background agent outlives the call that started it); the parent's when unset. */
  abortSignal?: AbortSignal;
  /** Its live input (a background agent's inbox, for SendMessage). */
  input?: RunInput;
}

/** A subagent ready to run, or the tool output saying why it could not start. */
export type Prepared = { child: RunContext; agentId: string } | { refused: ToolOutput };

/** Create the run of agent `type` for the Agent call `toolUseId` of `parent`, and fire SubagentStart. */
export async function prepareSubagent(
  parent: RunContext,
  type: string,
  definition: AgentDefinition,
  input: AgentInput,
  toolUseId: string,
  remember: (child: RunContext, delegation: Delegation) => void,
  place: LaunchPlace = {},
): Promise<Prepared> {
  let model: Model;
  try {
    model = await modelFor(parent, definition);
  } catch (error) {
    return {
      refused: {
        content: `Agent ${type} could not start: ${describeError(error)}. Fix the agent's model (or use "inherit").`,
        isError: true,
      },
    };
  }
  // A fresh id per invocation: the same agent may run several times at once.
  const agentId = randomUUID();
  const child = createRun({
    kernel: parent.kernel,
    abortSignal: place.abortSignal ?? parent.abortSignal,
    parent,
    agent: { agentId, agentType: type, parentToolUseId: toolUseId },
    options: subagentOptions(parent.options, definition, model, place.cwd),
    input: place.input,
  });
  // The definition's own mode holds for the whole run: a later switch of the parent's mode does not widen it.
  if (definition.permissionMode) getPermissionsApi(parent.kernel).capMode(child, definition.permissionMode);
  const delegation: Delegation = { definition, parentTools: new Set(parent.tools.map((t) => t.name)), context: [] };
  remember(child, delegation);
  getSkillsApi(parent.kernel)?.narrow(child, definition.skills);

  const hooks = getHooksApi(parent.kernel);
  if (hooks?.has("SubagentStart")) {
    const outcome = await hooks.fire("SubagentStart", child, {
      prompt: input.prompt,
      extra: { description: input.description, parentToolUseId: toolUseId },
    });
    if (outcome.blocked)
      return {
        refused: {
          content: `Agent ${type} was not started: ${outcome.blocked}`,
          isError: true,
          metadata: { agentId, agentType: type },
        },
      };
    delegation.context.push(...outcome.context);
  }
  // The agent file's own hooks (Claude Code's frontmatter `hooks`) watch this run alone.
  if (definition.hooks !== undefined) hooks?.scope(child, definition.hooks, `agent ${type}`);
  return { child, agentId };
}

/** What a finished subagent run gives its caller: its final text (or structured answer), with its usage and cost. */
export function subagentOutput(type: string, agentId: string, result: ResultMessage): ToolOutput {
  const metadata = {
    agentId,
    agentType: type,
    subtype: result.subtype,
    numTurns: result.numTurns,
    usage: result.usage,
    totalCostUsd: result.totalCostUsd,
  };
  if (result.isError)
    return { content: `Agent ${type} did not finish (${result.subtype}): ${result.result}`, isError: true, metadata };
  // A definition with an outputSchema answers with its validated value, as JSON.
  const structured = (result as { structuredOutput?: unknown }).structuredOutput;
  if (structured !== undefined)
    return { content: JSON.stringify(structured), metadata: { ...metadata, structuredOutput: structured } };
  return { content: result.result || `Agent ${type} finished without a reply.`, metadata };
}

/** Run agent `type` on `input` for the Agent call `toolUseId` of `parent`, and wait for its reply. */
export async function runSubagent(
  parent: RunContext,
  type: string,
  definition: AgentDefinition,
  input: AgentInput,
  toolUseId: string,
  remember: (child: RunContext, delegation: Delegation) => void,
  place: LaunchPlace = {},
): Promise<ToolOutput> {
  const prepared = await prepareSubagent(parent, type, definition, input, toolUseId, remember, place);
  if ("refused" in prepared) return prepared.refused;
  const { child, agentId } = prepared;
  const result = await driveRun(child, input.prompt);
  // A handler that asked to end the run meant the whole run, not just the delegated part.
  if (child.interrupted && !parent.interrupted) parent.interrupted = child.interrupted;
  return subagentOutput(type, agentId, result);
}
