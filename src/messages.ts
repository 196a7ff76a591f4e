import { randomUUID } from "node:crypto";
import type { JSONValue } from "@ai-sdk/provider";
import type { ToolResultPart } from "ai";
import type { UserContentParts } from "./live";

/** Token usage summed over a run (or one response). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Model requests made. */
  requests: number;
  /** Tool calls executed (every tool_use counts, whatever its outcome). */
  toolCalls: number;
}

/** A fresh all-zero usage record. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, requests: 0, toolCalls: 0 };
}

const USAGE_KEYS = Object.keys(emptyUsage()) as (keyof Usage)[];

/** Add `b` into `a` in place and return `a`. */
export function addUsage(a: Usage, b: Partial<Usage>): Usage {
  for (const key of USAGE_KEYS) a[key] += b[key] ?? 0;
  return a;
}

/** A part a tool result carries besides its text (an image), as the AI SDK's tool-result content. */
export type ToolContentPart = Extract<ToolResultPart["output"], { type: "content" }>["value"][number];

/** What a tool returns: content for the model, plus structured metadata for the program. */
export interface ToolOutput {
  content: string;
  isError?: boolean | undefined;
  metadata?: Record<string, unknown> | undefined;
  /**
   * Parts sent to the model after `content`'s text (not on an error result). They go to the model
   * only: the `tool_result` message and transcripts keep `content` and `metadata`.
   */
  parts?: ToolContentPart[] | undefined;
}

/** One content block of an assistant message. */
export type AssistantBlock =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool_call"; toolUseId: string; toolName: string; input: unknown };

/** The fields the kernel stamps on every message. */
export interface MessageBase {
  uuid: string;
  sessionId: string;
  /** Set on messages produced inside a subagent: the Agent call that spawned it. */
  parentToolUseId?: string;
  /** Set on messages produced inside a subagent: that subagent's unique id. */
  agentId?: string;
}

/** A permission denial recorded in `result.permissionDenials`. */
export interface PermissionDenial {
  toolName: string;
  toolUseId: string;
  toolInput: unknown;
  message: string;
}

/**
 * Top-level fields plugins add to `system/init`, declared by module augmentation (the permissions
 * plugin adds `permissionMode`) and filled in `run.initFields` at `session.start`. A run that fails
 * before its plugins start has only the kernel's fields.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface InitFields {}

/** The first message of every run: the resolved configuration. */
export interface SystemInitMessage extends MessageBase, InitFields {
  type: "system";
  subtype: "init";
  /** The model label (`provider:model`), or `null` when no model is configured. */
  model: string | null;
  cwd: string;
  tools: string[];
  plugins: string[];
  /** Extra facts contributed by plugins (MCP server status, skills, ...). */
  extra: Record<string, JSONValue>;
}

/**
 * Messages plugins add to the stream, by name, declared by module augmentation (compaction adds
 * its `system/compact_boundary` and `system/microcompact`). Each extends `MessageBase` and is
 * discriminated on `type` (and `subtype` for a `system` message).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface PluginMessages {}

/** A message plugins declared (see `PluginMessages`). */
export type PluginMessage = PluginMessages[keyof PluginMessages];

export type SystemMessage = SystemInitMessage | Extract<PluginMessage, { type: "system" }>;

/** A user prompt entering the conversation. */
export interface UserMessage extends MessageBase {
  type: "user";
  text: string;
  /** The message's own parts (text and images, as the AI SDK's user content), when it came with them. */
  content?: UserContentParts;
}

/**
 * Why a model response ended: it finished (`end_turn`), it called tools (`tool_use`), it was cut
 * by `maxTokens` (`max_tokens`: its text is incomplete and its tool calls were not run), a
 * content filter stopped it (`refusal`), or the provider said something else (`other`).
 */
export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "refusal" | "other";

/** One complete model response. */
export interface AssistantMessage extends MessageBase {
  type: "assistant";
  text: string;
  content: AssistantBlock[];
  /** The model that produced this response (`provider:model`). */
  model: string;
  /** Why the response ended; `max_tokens` means it was cut short. */
  stopReason: StopReason;
  /** The tokens of this response's model request (`requests: 1`); absent on an interrupted response. */
  usage?: Usage;
  /** The user interrupted this response: `text` is what arrived before, then `[interrupted by the user]`. */
  interrupted?: true;
}

/** A tool call about to run, with the input it runs with. */
export interface ToolUseMessage extends MessageBase {
  type: "tool_use";
  toolName: string;
  toolInput: unknown;
  toolUseId: string;
}

/** The answer to one `tool_use`, on every path. */
export interface ToolResultMessage extends MessageBase {
  type: "tool_result";
  toolName: string;
  toolUseId: string;
  output: { content: string; isError: boolean; metadata: Record<string, unknown> };
  durationMs: number;
}

/** A streamed delta (only with `includePartialMessages`). */
export interface StreamEventMessage extends MessageBase {
  type: "stream_event";
  delta: { type: "text" | "reasoning" | "tool_input"; text: string; toolUseId?: string };
}

/**
 * The subtypes a `result` can have: the kernel's three, plus what plugins declare by module
 * augmentation (a plugin that ends runs for its own reason adds its subtype here).
 */
export interface ResultSubtypes {
  success: true;
  error_max_turns: true;
  error_during_execution: true;
  /** The run failed while it was set up, before any model request: no model, an unknown session or provider, a bad option. */
  error_configuration: true;
}

/**
 * Top-level fields plugins add to `result`, declared by module augmentation and filled in
 * `run.resultFields` before the run ends. They follow the kernel's fields.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ResultFields {}

/** The last message of every run. */
export interface ResultMessage extends MessageBase, ResultFields {
  type: "result";
  subtype: keyof ResultSubtypes;
  /** Final assistant text on success; the error message otherwise. */
  result: string;
  /** Why the last model response ended (`max_tokens`: the final text was cut short); null when no response came. */
  stopReason: StopReason | null;
  isError: boolean;
  numTurns: number;
  durationMs: number;
  usage: Usage;
  /** USD; `null` means unknown (something went unpriced), never free. */
  totalCostUsd: number | null;
  permissionDenials: PermissionDenial[];
  /** Usage per model that answered, keyed by `provider:model`: its requests, tokens and the tool calls its responses made. */
  modelUsage: Record<string, Usage>;
}

/** Everything `summon()` yields, discriminated on `type`. */
export type Message =
  | SystemInitMessage
  | UserMessage
  | AssistantMessage
  | ToolUseMessage
  | ToolResultMessage
  | StreamEventMessage
  | ResultMessage
  | PluginMessage;

/** Distributive Omit over a union. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A message before the kernel stamps `uuid` and `sessionId` on it. */
export type MessageInit = DistributiveOmit<Message, "uuid" | "sessionId"> & { uuid?: string; sessionId?: string };

/** Stamp a message with a fresh uuid and the session id. */
export function stamp<M extends MessageInit>(message: M, sessionId: string): M & { uuid: string; sessionId: string } {
  return { ...message, uuid: message.uuid ?? randomUUID(), sessionId: message.sessionId ?? sessionId };
}
