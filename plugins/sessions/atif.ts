/**
 * A stored session as an ATIF trajectory (the Agent Trajectory Interchange Format of the Harbor
 * benchmark framework; Harbor validates it with the Pydantic models of `harbor.models.trajectories`):
 * the user's prompts (with their images) as `user` steps, each model response as an `agent` step
 * carrying its tool calls and, as its observation, their results; compactions as `system` steps.
 * Each subagent's records become a trajectory of their own, embedded in `subagent_trajectories`
 * of the trajectory whose Agent call started it and referenced from that call's result by
 * `trajectory_id` (ATIF v1.7's single-file form).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ModelMessage } from "ai";
import {
  addUsage,
  emptyUsage,
  type AssistantMessage,
  type ResultMessage,
  type ToolResultMessage,
  type Usage,
  type UserMessage,
} from "../../src/index";
import type { TranscriptRecord } from "./records";

/**
 * The ATIF version this export writes. v1.7 has every field it uses (`trajectory_id`, embedded
 * `subagent_trajectories`, `llm_call_count`); Harbor's v1.8 models accept it too, while Harbor
 * releases that stop at v1.7 would refuse a document labelled v1.8 (v1.8 adds audio only).
 */
export const ATIF_VERSION = "ATIF-v1.7";

/** The image types ATIF's `ImageSource` takes. */
const ATIF_IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"] as const;

/** One part of a multimodal ATIF message: text, or an image by path or URL. */
export type AtifContentPart =
  | { type: "text"; text: string }
  | { type: "image"; source: { media_type: (typeof ATIF_IMAGE_TYPES)[number]; path: string } };

/** One ATIF tool call. */
export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, unknown>;
  extra?: Record<string, unknown>;
}

/** A reference from an observation to the trajectory of the subagent it delegated to. */
export interface AtifSubagentTrajectoryRef {
  /** The `trajectory_id` of the embedded trajectory: the key a reader resolves it by. */
  trajectory_id: string;
  /** The run the subagent belongs to (informational in ATIF, never a resolution key). */
  session_id?: string;
  trajectory_path?: string;
  extra?: Record<string, unknown>;
}

/** One ATIF observation result. */
export interface AtifObservationResult {
  source_call_id?: string;
  content?: string | AtifContentPart[];
  subagent_trajectory_ref?: AtifSubagentTrajectoryRef[];
  extra?: Record<string, unknown>;
}

/** One ATIF step. */
export interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: "system" | "user" | "agent";
  model_name?: string;
  message: string | AtifContentPart[];
  reasoning_content?: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: AtifObservationResult[] };
  /** Model inferences this step stands for: 1 for each model response. */
  llm_call_count?: number;
  /** The tokens of the step's model request (agent steps whose message carries its usage). */
  metrics?: AtifMetrics;
  extra?: Record<string, unknown>;
}

/** ATIF's metrics of one agent step (its model request). */
export interface AtifMetrics {
  /** Every input token, the cached ones included (ATIF's and Ubiquity's meaning). */
  prompt_tokens?: number;
  completion_tokens?: number;
  /** The part of `prompt_tokens` read from the cache. */
  cached_tokens?: number;
  cost_usd?: number;
  extra?: Record<string, unknown>;
}

/** ATIF's aggregate metrics. */
export interface AtifFinalMetrics {
  total_prompt_tokens?: number;
  total_completion_tokens?: number;
  total_cached_tokens?: number;
  total_cost_usd?: number;
  total_steps?: number;
  extra?: Record<string, unknown>;
}

/** An ATIF trajectory. */
export interface AtifTrajectory {
  schema_version: typeof ATIF_VERSION;
  /** The run (a subagent's trajectory carries its parent's). */
  session_id: string;
  /** This document: the session id for the root, `<session id>:<agent id>` for a subagent. */
  trajectory_id: string;
  agent: { name: string; version: string; model_name?: string; extra?: Record<string, unknown> };
  steps: AtifStep[];
  notes?: string;
  final_metrics?: AtifFinalMetrics;
  extra?: Record<string, unknown>;
  subagent_trajectories?: AtifTrajectory[];
}

/** Options of `toAtif`. */
export interface AtifOptions {
  /** The agent's version [this package's]. */
  agentVersion?: string;
}

/** Raised when a session cannot be written as ATIF (a trajectory needs at least one step). */
export class AtifExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AtifExportError";
  }
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

/** Image bytes as a transcript holds them (a base64 string, a URL, or bytes serialized as JSON) to base64; undefined if unreadable. */
function base64Of(data: unknown): string | undefined {
  if (typeof data === "string") return data;
  if (data instanceof Uint8Array || data instanceof ArrayBuffer)
    return Buffer.from(data as Uint8Array).toString("base64");
  if (data === null || typeof data !== "object") return undefined;
  const o = data as { type?: unknown; data?: unknown };
  if (o.type === "Buffer" && Array.isArray(o.data)) return Buffer.from(o.data as number[]).toString("base64");
  if (o.type === "data") return base64Of(o.data);
  const values = Object.values(o);
  return values.length > 0 && values.every((v) => Number.isInteger(v))
    ? Buffer.from(values as number[]).toString("base64")
    : undefined;
}

/** An image part: by its URL, or inline as a data URL (the export is one self-contained document). */
function imagePart(data: unknown, mediaType: string | undefined): AtifContentPart {
  const href =
    data instanceof URL ? data.href : typeof data === "string" && /^(https?|data):/i.test(data) ? data : undefined;
  const type = (mediaType ?? href?.match(/^data:([^;,]+)/i)?.[1])?.toLowerCase();
  const known = ATIF_IMAGE_TYPES.find((t) => t === (type === "image/jpg" ? "image/jpeg" : type));
  const body = href ? undefined : base64Of(data);
  if (!known || (!href && !body))
    return {
      type: "text",
      text: `[image (${type ?? "unknown type"}) not exported: ATIF takes a jpeg, png, gif or webp image]`,
    };
  return { type: "image", source: { media_type: known, path: href ?? `data:${known};base64,${body}` } };
}

/** A user step's message: its text, or its parts when it came with images. */
function userMessage(m: UserMessage): string | AtifContentPart[] {
  const parts = m.content ?? [];
  if (!parts.some((p) => p.type !== "text")) return m.text;
  return parts.map((p): AtifContentPart => {
    if (p.type === "text") return { type: "text", text: p.text };
    if (p.type === "image") return imagePart(p.image, p.mediaType);
    if (p.mediaType.startsWith("image/")) return imagePart(p.data, p.mediaType);
    return { type: "text", text: `[file (${p.mediaType}) not exported: ATIF messages carry text and images]` };
  });
}

/** The subagents one chain started: the id of the Agent call, to the subagent's id. */
type Started = ReadonlyMap<string, string>;

/** The steps of one chain of records (the main conversation, or one subagent's). */
function stepsOf(records: readonly TranscriptRecord[], started: Started, sessionId: string): AtifStep[] {
  const steps: AtifStep[] = [];
  const results = new Map<string, ToolResultMessage>();
  for (const r of records) if (r.message.type === "tool_result") results.set(r.message.toolUseId, r.message);
  for (const record of records) {
    const m = record.message;
    const base = { step_id: steps.length + 1, timestamp: record.timestamp };
    if (m.type === "user") {
      if (record.blocked) continue; // never reached the model
      // Text placed ahead of the prompt (`turn.prompt` context) reached the model with it: kept beside the message.
      steps.push({
        ...base,
        source: "user",
        message: userMessage(m),
        ...(record.context ? { extra: { context: record.context } } : {}),
      });
    } else if (m.type === "assistant") {
      steps.push(agentStep(base, m, results, started, sessionId));
    } else if (m.type === "system" && m.subtype === "compact_boundary") {
      steps.push(compactionStep(base, m as unknown as CompactBoundary, record.history));
    }
  }
  return steps;
}

/** The fields of a `system/compact_boundary` message this export reads (the compaction plugin declares it). */
interface CompactBoundary {
  subtype: string;
  tokensBefore?: number;
  tokensAfter?: number;
  trigger?: string;
}

/** One message of a compacted history as text: what the model read after the compaction. */
function historyText(message: ModelMessage): string {
  const parts = typeof message.content === "string" ? [message.content] : message.content.map(partText);
  return `[${message.role}]\n${parts.join("\n")}`;
}

function partText(part: Exclude<ModelMessage["content"], string>[number]): string {
  if (part.type === "text" || part.type === "reasoning") return part.text;
  if (part.type === "tool-call") return `[tool call ${part.toolName} ${JSON.stringify(part.input)}]`;
  if (part.type === "tool-result") {
    const value = "value" in part.output ? part.output.value : undefined;
    return `[tool result ${part.toolName}] ${typeof value === "string" ? value : JSON.stringify(value)}`;
  }
  return `[${part.type}]`;
}

/**
 * A compaction as ATIF v1.7's context-management boundary: a `system` step whose observation is
 * the conversation as the model had it afterwards (the record's history), marked
 * `boundary: "replace"` — readers rebuild the model's context from it, not from the earlier steps.
 * A record without its history (an older transcript) is only marked as a compaction.
 */
function compactionStep(
  base: { step_id: number; timestamp: string },
  m: CompactBoundary,
  history: readonly ModelMessage[] | undefined,
): AtifStep {
  const tokens =
    m.tokensBefore !== undefined && m.tokensAfter !== undefined
      ? ` from ${m.tokensBefore} to ${m.tokensAfter} tokens`
      : "";
  return {
    ...base,
    source: "system",
    message: `The conversation was compacted${tokens}${m.trigger ? ` (${m.trigger})` : ""}.`,
    ...(history ? { observation: { results: [{ content: history.map(historyText).join("\n\n") }] } } : {}),
    extra: {
      subtype: m.subtype,
      ...(history ? { context_management: { type: "compaction", boundary: "replace" } } : {}),
      ...(m.tokensBefore !== undefined ? { tokens_before: m.tokensBefore } : {}),
      ...(m.tokensAfter !== undefined ? { tokens_after: m.tokensAfter } : {}),
      ...(m.trigger ? { trigger: m.trigger } : {}),
    },
  };
}

/** A response's usage as ATIF step metrics; tokens written to the cache are an extra, as ATIF says. */
function stepMetrics(usage: Usage): AtifMetrics {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    cached_tokens: usage.cacheReadTokens,
    ...(usage.cacheWriteTokens ? { extra: { cache_creation_input_tokens: usage.cacheWriteTokens } } : {}),
  };
}

function agentStep(
  base: { step_id: number; timestamp: string },
  m: AssistantMessage,
  results: ReadonlyMap<string, ToolResultMessage>,
  started: Started,
  sessionId: string,
): AtifStep {
  const step: AtifStep = { ...base, source: "agent", model_name: m.model, message: m.text, llm_call_count: 1 };
  const reasoning = m.content
    .filter((b) => b.type === "reasoning")
    .map((b) => b.text)
    .join("\n");
  if (reasoning) step.reasoning_content = reasoning;
  if (m.usage) step.metrics = stepMetrics(m.usage);
  // ATIF wants each call id once per step: a repeated id (a provider quirk) keeps its first call.
  const seen = new Set<string>();
  const calls = m.content.flatMap((b) =>
    b.type === "tool_call" && !seen.has(b.toolUseId) && seen.add(b.toolUseId) ? [b] : [],
  );
  if (calls.length > 0) {
    step.tool_calls = calls.map((c) => ({
      tool_call_id: c.toolUseId,
      function_name: c.toolName,
      arguments: argumentsOf(c.input),
    }));
    const observed: AtifObservationResult[] = [];
    for (const c of calls) {
      const result = results.get(c.toolUseId);
      const agent = started.get(c.toolUseId);
      if (!result && !agent) continue;
      observed.push({
        source_call_id: c.toolUseId,
        ...(result ? { content: result.output.content } : {}),
        ...(result?.output.isError ? { extra: { is_error: true } } : {}),
        ...(agent
          ? {
              subagent_trajectory_ref: [
                { trajectory_id: `${sessionId}:${agent}`, session_id: sessionId, extra: { agent_id: agent } },
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

/** The session's totals: each run's result counts its own run (a subagent's usage counted in its parent's), so they add up. */
function finalMetrics(results: readonly ResultMessage[], steps: number): AtifFinalMetrics {
  if (results.length === 0) return { total_steps: steps };
  const u = emptyUsage();
  const byModel: Record<string, Usage> = {};
  for (const r of results) {
    addUsage(u, r.usage);
    for (const [label, usage] of Object.entries(r.modelUsage)) addUsage((byModel[label] ??= emptyUsage()), usage);
  }
  // A cost is a total only when every run was priced: one unknown makes it unknown, never smaller.
  const costs = results.map((r) => r.totalCostUsd);
  return {
    // Both count the cached tokens among the prompt tokens (the AI SDK's inputTokens include cache reads and writes).
    total_prompt_tokens: u.inputTokens,
    total_completion_tokens: u.outputTokens,
    total_cached_tokens: u.cacheReadTokens,
    ...(costs.includes(null) ? {} : { total_cost_usd: (costs as number[]).reduce((a, b) => a + b, 0) }),
    total_steps: steps,
    extra: {
      cache_write_tokens: u.cacheWriteTokens,
      requests: u.requests,
      tool_calls: u.toolCalls,
      runs: results.length,
      model_usage: byModel,
    },
  };
}

/** Export a session's records as an ATIF trajectory (subagents embedded). */
export function toAtif(
  sessionId: string,
  records: readonly TranscriptRecord[],
  options: AtifOptions = {},
): AtifTrajectory {
  const version = options.agentVersion ?? ubiquityVersion();
  // Each chain's records: the main conversation under "", each subagent under its id.
  const chains = new Map<string, TranscriptRecord[]>([["", []]]);
  const parentCall = new Map<string, string>();
  for (const r of records) {
    const key = r.message.agentId ?? "";
    if (!chains.has(key)) chains.set(key, []);
    chains.get(key)!.push(r);
    if (key && r.message.parentToolUseId && !parentCall.has(key)) parentCall.set(key, r.message.parentToolUseId);
  }
  // A subagent belongs to the chain holding the Agent call that started it (a subagent's subagent, to that subagent).
  const callOwner = new Map<string, string>();
  for (const [key, own] of chains)
    for (const r of own)
      if (r.message.type === "assistant")
        for (const b of r.message.content) if (b.type === "tool_call") callOwner.set(b.toolUseId, key);
  const started = new Map<string, Map<string, string>>();
  for (const agent of chains.keys()) {
    if (!agent) continue;
    const call = parentCall.get(agent);
    const owner = (call && callOwner.get(call)) ?? "";
    if (!started.has(owner)) started.set(owner, new Map());
    started.get(owner)!.set(call ?? `${agent}:unreferenced`, agent);
  }
  const cwd = records[0]?.cwd;
  const build = (key: string): AtifTrajectory => {
    const own = chains.get(key)!;
    const mine = started.get(key) ?? new Map<string, string>();
    const steps = stepsOf(own, mine, sessionId);
    if (steps.length === 0) {
      if (!key)
        throw new AtifExportError(
          `Session ${sessionId} has no step to export (no prompt reached the model): ATIF needs at least one step`,
        );
      steps.push({ step_id: 1, source: "system", message: "The subagent recorded no messages." });
    }
    const results = own.flatMap((r) => (r.message.type === "result" ? [r.message] : []));
    const last = results.at(-1);
    const model = own.find((r) => r.message.type === "assistant")?.message as AssistantMessage | undefined;
    const subagents = [...new Set(mine.values())].map(build);
    return {
      schema_version: ATIF_VERSION,
      session_id: sessionId,
      trajectory_id: key ? `${sessionId}:${key}` : sessionId,
      agent: { name: "ubiquity", version, ...(model ? { model_name: model.model } : {}) },
      steps,
      final_metrics: finalMetrics(results, steps.length),
      extra: {
        ...(key ? { agent_id: key } : cwd ? { cwd } : {}),
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
      ...(subagents.length > 0 ? { subagent_trajectories: subagents } : {}),
    };
  };
  return build("");
}
