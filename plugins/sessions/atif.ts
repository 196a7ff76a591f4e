/**
 * A stored session as an ATIF trajectory (the Agent Trajectory Interchange Format of the Harbor
 * benchmark framework, v1.4: docs/rfcs/0001-trajectory-format.md in harbor-framework/harbor):
 * the user's prompts and stop-check prompts as `user` steps, each model response as an `agent`
 * step carrying its tool calls and, as its observation, their results; compactions as `system`
 * steps. A subagent's records become a trajectory of their own, referenced from the Agent call
 * that started it and kept under `extra.subagent_trajectories`.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AssistantMessage, ResultMessage, ToolResultMessage } from "../../src/index";
import type { TranscriptRecord } from "./records";

/** The ATIF version this export writes. */
export const ATIF_VERSION = "ATIF-v1.4";

/** One ATIF tool call. */
export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, unknown>;
}

/** One ATIF observation result. */
export interface AtifObservationResult {
  source_call_id?: string;
  content?: string;
  subagent_trajectory_ref?: { session_id: string; trajectory_path?: string; extra?: Record<string, unknown> }[];
}

/** One ATIF step. */
export interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: "system" | "user" | "agent";
  model_name?: string;
  message: string;
  reasoning_content?: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: AtifObservationResult[] };
  extra?: Record<string, unknown>;
}

/** An ATIF trajectory. */
export interface AtifTrajectory {
  schema_version: typeof ATIF_VERSION;
  session_id: string;
  agent: { name: string; version: string; model_name?: string; extra?: Record<string, unknown> };
  steps: AtifStep[];
  notes?: string;
  final_metrics?: {
    total_prompt_tokens?: number;
    total_completion_tokens?: number;
    total_cached_tokens?: number;
    total_cost_usd?: number;
    total_steps?: number;
    extra?: Record<string, unknown>;
  };
  extra?: Record<string, unknown>;
}

/** Options of `toAtif`. */
export interface AtifOptions {
  /** The agent's version [this package's]. */
  agentVersion?: string;
}

/** The version of the installed ubiquity package ("unknown" when it cannot be found). */
export function ubiquityVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "ubiquity" && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) return "unknown";
  }
}

/** ATIF arguments are a JSON object: any other input is kept under `input`. */
function argumentsOf(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === "object" && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : { input };
}

/** The steps of one chain of records (the main conversation, or one subagent's). */
function stepsOf(
  records: readonly TranscriptRecord[],
  subagents: ReadonlyMap<string, string>,
  sessionId: string,
  paths: ReadonlyMap<string, string>,
): AtifStep[] {
  const steps: AtifStep[] = [];
  const results = new Map<string, ToolResultMessage>();
  for (const r of records) if (r.message.type === "tool_result") results.set(r.message.toolUseId, r.message);
  for (const record of records) {
    const m = record.message;
    const base = { step_id: steps.length + 1, timestamp: record.timestamp };
    if (m.type === "user") {
      if (record.blocked) continue; // never reached the model
      steps.push({ ...base, source: "user", message: m.text });
    } else if (m.type === "assistant") {
      steps.push(agentStep(base, m, results, subagents, sessionId, paths));
    } else if (m.type === "system" && m.subtype === "compact_boundary") {
      const summary = (m as { summary?: unknown }).summary;
      steps.push({
        ...base,
        source: "system",
        message: typeof summary === "string" ? summary : "The conversation was compacted.",
        extra: { subtype: m.subtype },
      });
    }
  }
  return steps;
}

function agentStep(
  base: { step_id: number; timestamp: string },
  m: AssistantMessage,
  results: ReadonlyMap<string, ToolResultMessage>,
  subagents: ReadonlyMap<string, string>,
  sessionId: string,
  paths: ReadonlyMap<string, string>,
): AtifStep {
  const step: AtifStep = { ...base, source: "agent", model_name: m.model, message: m.text };
  const reasoning = m.content
    .filter((b) => b.type === "reasoning")
    .map((b) => b.text)
    .join("\n");
  if (reasoning) step.reasoning_content = reasoning;
  const calls = m.content.flatMap((b) => (b.type === "tool_call" ? [b] : []));
  if (calls.length > 0) {
    step.tool_calls = calls.map((c) => ({
      tool_call_id: c.toolUseId,
      function_name: c.toolName,
      arguments: argumentsOf(c.input),
    }));
    const observed: AtifObservationResult[] = [];
    for (const c of calls) {
      const result = results.get(c.toolUseId);
      const agent = subagents.get(c.toolUseId);
      if (!result && !agent) continue;
      observed.push({
        source_call_id: c.toolUseId,
        ...(result ? { content: result.output.content } : {}),
        // trajectory_path says where the embedded trajectory is: a ref then resolves by path, as ATIF v1.6 and v1.7 readers both accept.
        ...(agent
          ? {
              subagent_trajectory_ref: [
                { session_id: `${sessionId}:${agent}`, trajectory_path: paths.get(agent)!, extra: { agent_id: agent } },
              ],
            }
          : {}),
      });
    }
    if (observed.length > 0) step.observation = { results: observed };
  }
  const extra: Record<string, unknown> = { stop_reason: m.stopReason };
  if (m.interrupted) extra.interrupted = true;
  const errors = calls.filter((c) => results.get(c.toolUseId)?.output.isError).map((c) => c.toolUseId);
  if (errors.length > 0) extra.failed_tool_calls = errors;
  step.extra = extra;
  return step;
}

function finalMetrics(result: ResultMessage | undefined, steps: number): NonNullable<AtifTrajectory["final_metrics"]> {
  if (!result) return { total_steps: steps };
  const u = result.usage;
  return {
    total_prompt_tokens: u.inputTokens,
    total_completion_tokens: u.outputTokens,
    total_cached_tokens: u.cacheReadTokens,
    ...(result.totalCostUsd === null ? {} : { total_cost_usd: result.totalCostUsd }),
    total_steps: steps,
    extra: {
      cache_write_tokens: u.cacheWriteTokens,
      requests: u.requests,
      tool_calls: u.toolCalls,
      model_usage: result.modelUsage,
    },
  };
}

/** One chain's trajectory. */
function trajectory(
  sessionId: string,
  records: readonly TranscriptRecord[],
  subagents: ReadonlyMap<string, string>,
  paths: ReadonlyMap<string, string>,
  version: string,
  extra: Record<string, unknown>,
): AtifTrajectory {
  const steps = stepsOf(records, subagents, sessionId.split(":")[0]!, paths);
  const results = records.flatMap((r) => (r.message.type === "result" ? [r.message] : []));
  const last = results.at(-1);
  const model = records.find((r) => r.message.type === "assistant")?.message as AssistantMessage | undefined;
  return {
    schema_version: ATIF_VERSION,
    session_id: sessionId,
    agent: { name: "ubiquity", version, ...(model ? { model_name: model.model } : {}) },
    steps,
    // The metrics are the last run's totals as its result reported them (a resumed session's earlier runs have their own).
    final_metrics: finalMetrics(last, steps.length),
    extra: {
      ...extra,
      ...(last
        ? {
            result: {
              subtype: last.subtype,
              is_error: last.isError,
              num_turns: last.numTurns,
              duration_ms: last.durationMs,
              stop_reason: last.stopReason,
            },
          }
        : {}),
    },
  };
}

/** Export a session's records as an ATIF trajectory. */
export function toAtif(
  sessionId: string,
  records: readonly TranscriptRecord[],
  options: AtifOptions = {},
): AtifTrajectory {
  const version = options.agentVersion ?? ubiquityVersion();
  const main = records.filter((r) => r.message.agentId === undefined);
  // Each subagent's records, by its id, and the Agent call that started it.
  const byAgent = new Map<string, TranscriptRecord[]>();
  const startedBy = new Map<string, string>();
  for (const r of records) {
    const agent = r.message.agentId;
    if (agent === undefined) continue;
    if (!byAgent.has(agent)) byAgent.set(agent, []);
    byAgent.get(agent)!.push(r);
    if (r.message.parentToolUseId && !startedBy.has(r.message.parentToolUseId))
      startedBy.set(r.message.parentToolUseId, agent);
  }
  // Where each subagent's trajectory sits in the exported document.
  const paths = new Map([...byAgent.keys()].map((agent, i) => [agent, `#/extra/subagent_trajectories/${i}`]));
  const subagentTrajectories = [...byAgent].map(([agent, own]) =>
    trajectory(`${sessionId}:${agent}`, own, startedBy, paths, version, { agent_id: agent }),
  );
  const cwd = records[0]?.cwd;
  return trajectory(sessionId, main, startedBy, paths, version, {
    ...(cwd ? { cwd } : {}),
    ...(subagentTrajectories.length > 0 ? { subagent_trajectories: subagentTrajectories } : {}),
  });
}
