/**
 * The kernel's hook catalogue, declared once. Every lifecycle point a plugin can tap is here,
 * grouped by domain; the TypeScript types come from the tapable constructors. Stages for the
 * staged hooks live in `stages.ts`. Hooks are for plugin authors; SDK users see `options.hooks`
 * (the user-facing events), a separate vocabulary.
 */
import {
  AsyncParallelHook,
  AsyncSeriesBailHook,
  AsyncSeriesHook,
  AsyncSeriesWaterfallHook,
  SyncHook,
  SyncWaterfallHook,
} from "tapable";
import type { LanguageModel, ModelMessage, OutputInterface, streamText, SystemModelMessage, ToolSet } from "ai";
import type { Kernel, ResolvedOptions } from "./kernel";
import type { RunContext } from "./run";
import type { Tool, ToolContext } from "./tool";
import type {
  Message,
  ResultMessage,
  AssistantMessage,
  ToolOutput,
  ToolResultMessage,
  PermissionDenial,
  Usage,
} from "./messages";
import type { UbiquityConfig } from "./config/schema";
import type { UserContentParts } from "./live";

/** The prompt entering a turn; `turn.prompt` taps may add context or block it. */
export interface TurnPrompt {
  text: string;
  /** `user` for the run's prompt, `stop` for a continuation sent back by `turn.stop`. */
  source: "user" | "stop";
  /** Text placed ahead of the prompt (e.g. hook context, unfinished todos). */
  context: string[];
  /** The message's own parts (text and images): what the model receives instead of `text`, after the context. */
  content?: UserContentParts;
  /** Set to a reason to refuse the prompt: the run ends with a result saying why. */
  blocked?: string;
}

/** One section of the system prompt. */
export interface SystemSection {
  /** Stable id, e.g. `guidance`, `environment`, `tools`, `memory`. */
  id: string;
  text: string;
}

/** What `turn.stop` sees when the model ended without tool calls. */
export interface StopInfo {
  /** The final assistant text of this turn. */
  text: string;
  /** How many times the run was already sent back. */
  continuations: number;
}

/** Answer of `turn.stop`: send the agent back with this prompt. */
export interface StopDecision {
  continueWith: string;
}

/** Passed to `turn.end` after each model response and its tool calls. */
export interface TurnInfo {
  turn: number;
  assistant: AssistantMessage;
  toolResults: ToolResultMessage[];
}

/** What `model.resolve` is asked to resolve. */
export interface ModelRef {
  /** The model string after alias expansion (`provider:model`). */
  spec: string;
  role: "main" | "fallback" | "compact" | "subagent";
  options: ResolvedOptions;
  /** The run the model is resolved for. */
  run: RunContext;
}

/**
 * Why a model call is made: `turn` for the loop's own turns, `compact` for a compaction summary;
 * a plugin making its own calls names its own. Taps that shape the conversation (dialect, cache
 * markers, transcripts) leave other purposes alone.
 */
export type ModelPurpose = "turn" | "compact" | (string & {});

/** A request on its way to the model; `model.request` taps rewrite it in stage order. */
export interface ModelRequest {
  /** Why the call is made (set by `callModel`; undefined reads as `turn`). */
  purpose?: ModelPurpose;
  model: Exclude<LanguageModel, string>;
  /** `provider:model` label of `model`. */
  modelLabel: string;
  /** The system prompt: a string, or a system message carrying provider options (cache breakpoints). */
  instructions: string | SystemModelMessage;
  messages: ModelMessage[];
  tools: ToolSet;
  /** The tools behind `tools`, in offer order. */
  toolList: Tool[];
  maxOutputTokens?: number;
  temperature?: number;
  providerOptions?: Record<string, Record<string, unknown>>;
  headers?: Record<string, string>;
  /** The AI SDK's output specification (`Output.object(...)`): the response format the provider is asked to keep. */
  output?: OutputInterface;
  /**
   * Further AI SDK `streamText` settings for this call (an observer's `telemetry` integration);
   * the fields above and the kernel's own (abort signal, retries, error handler) win over them.
   */
  streamSettings?: Omit<Partial<Parameters<typeof streamText>[0]>, "prompt" | "messages" | "system">;
  /** 1-based index of the model call in the run. */
  call: number;
}

/** One completed model response. */
export interface ModelResponse {
  request: ModelRequest;
  /** Label of the model that actually answered (a fallback may differ from the request's). */
  modelLabel: string;
  usage: Usage;
  text: string;
  finishReason: string;
  providerMetadata?: Record<string, unknown>;
}

/** A failed model call, offered to `model.error` for recovery. */
export interface ModelErrorInfo {
  error: unknown;
  request: ModelRequest;
  /** How many recoveries were already attempted for this call. */
  attempt: number;
}

/** Answer of `model.error`: retry, optionally with another request (e.g. a fallback model). */
export interface ModelRecovery {
  retry: true;
  /** The request to send instead; one naming another model is built again through `model.request` for it. */
  request?: ModelRequest;
}

/** How a `tool.ask` tap (a person, a handler) answers a call that needs a decision. */
export type PermissionResult =
  | { behavior: "allow"; updatedInput?: Record<string, unknown> | undefined; message?: string | undefined }
  | { behavior: "deny"; message: string; interrupt?: boolean | undefined };

/** The permission verdict being built by `tool.permission` taps. A deny is final. */
export interface PermissionVerdict {
  behavior: "allow" | "ask" | "deny";
  message?: string;
  /** The rule or check that decided, for messages and `ubiquity permissions check`. */
  rule?: string;
  /** The plugin that cast the deciding vote. */
  decidedBy?: string;
  /** Rules a handler could add to allow this kind of call from now on. */
  suggestions?: string[];
  /** With deny: end the run after this call. */
  interrupt?: boolean;
  /** With allow: the input the call runs with instead (a tool's own check may rewrite it). */
  updatedInput?: Record<string, unknown>;
  /**
   * With ask: only whoever answers prompts may answer it (a `tool.ask` tap: a handler, the
   * terminal, a PermissionRequest hook), never a vote cast before the verdict such as a
   * PreToolUse hook's approve. Set for an ask rule's question and a sensitive path's.
   */
  firm?: boolean;
}

/** One tool call going through the funnel. */
export interface ToolCall {
  run: RunContext;
  tool: Tool;
  toolName: string;
  toolUseId: string;
  /** The input as currently authorized (rewrites by hooks or handlers replace it). */
  input: Record<string, unknown>;
  context: ToolContext;
}

/** State of `tool.beforeCall`: taps may rewrite the input or block the call. */
export interface BeforeCall {
  input: Record<string, unknown>;
  /** Set to a reason to block: the tool does not run, the reason goes back as its result. */
  block?: string;
}

/** State of `context.compact`: the history and what the provider last counted of it. */
export interface CompactState {
  messages: ModelMessage[];
  /**
   * Estimated tokens the next request will carry: unset until a tier estimates it (from
   * `reported` plus what was added since); a tier that changes the history sets it.
   */
  estimatedTokens?: number;
  /** The provider's input-token count for the last turn's request and how many of `messages` it carried (unset when unusable). */
  reported?: { inputTokens: number; messages: number };
  /** Set by a tier that changed the history. */
  changed: boolean;
  /** What each tier that changed the history did: the kernel fires `context.compacted` for each once the tiers ran. */
  compactions?: CompactInfo[];
}

/** What `context.compacted` observers receive. */
export interface CompactInfo {
  tier: string;
  tokensBefore: number;
  tokensAfter: number;
  summary?: string;
}

/** A model provider: turns a model id into a `LanguageModel`. */
export interface ModelProvider {
  /**
   * AI SDK provider ids (`model.provider`, up to a dot) of the models it builds, when they differ
   * from its registered name: a model carrying one is labelled `<name>:<model>` (`bedrock:…`).
   */
  providerIds?: readonly string[];
  /** Build the model; throws a clear error when the provider cannot be built. */
  languageModel(
    modelId: string,
    ref: ModelRef,
  ): Exclude<LanguageModel, string> | Promise<Exclude<LanguageModel, string>>;
}

/**
 * Events plugins add to the `event` firehose, by type. A plugin declares its own by module
 * augmentation, so observers narrow on them like on the kernel's:
 * `declare module "ubiquity" { interface PluginEvents { "acme.sent": { type: "acme.sent"; id: string } } }`
 * (a built-in plugin augments `../../src/hooks`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface PluginEvents {}

/** Everything the `event` firehose carries. */
export type KernelEvent =
  | { type: "message"; message: Message }
  | { type: "registry.override"; registry: string; name: string; winner: string; loser: string }
  | { type: "plugin.error"; plugin: string; hook: string; error: unknown }
  | { type: "warning"; source: string; message: string }
  | PluginEvents[keyof PluginEvents];

/**
 * How a tap is ordered besides its `stage` (the options every hook takes, next to `name` and
 * `stage`): `order: "first"` / `"last"` runs it before / after every tap without one, whatever
 * their stage (Rollup's `order: "pre" | "post"`); `before` / `after` name plugins whose taps on
 * the same hook it runs before / after (a plugin not in the list is ignored). Ties keep plugin order.
 */
export interface TapOrder {
  order?: "first" | "last";
  before?: string | string[];
  after?: string | string[];
}

// The constructors, each taking the tap options `TapOrder` adds (the hook types come from them).
type Args = unknown[];
const sync = <T extends Args>(...names: string[]) => new SyncHook<T, void, TapOrder>(names as never);
const syncWaterfall = <T extends Args>(...names: string[]) => new SyncWaterfallHook<T, T[0], TapOrder>(names as never);
const series = <T extends Args>(...names: string[]) => new AsyncSeriesHook<T, TapOrder>(names as never);
const parallel = <T extends Args>(...names: string[]) => new AsyncParallelHook<T, TapOrder>(names as never);
const waterfall = <T extends Args>(...names: string[]) =>
  new AsyncSeriesWaterfallHook<T, T[0], TapOrder>(names as never);
const bail = <T extends Args, R>(...names: string[]) =>
  new AsyncSeriesBailHook<T, R | undefined, TapOrder>(names as never);

/** Build a fresh, frozen hook catalogue (one per kernel). */
export function createHooks() {
  return Object.freeze({
    kernel: Object.freeze({
      /** Rewrite the options before validation defaults are applied (waterfall). */
      config: syncWaterfall<[UbiquityConfig]>("config"),
      /** The final options, once (sync). */
      configResolved: sync<[ResolvedOptions]>("options"),
      /** Async start-up: MCP connect, skill scan, price load. The hooks are sealed from here on. */
      ready: series<[Kernel]>("kernel"),
      /** Tear-down, in parallel; a failing tap is logged, the others still run. */
      dispose: parallel<[Kernel]>("kernel"),
    }),
    session: Object.freeze({
      /** A run is starting (series). */
      start: series<[RunContext]>("run"),
      /** A run ended; observers only (parallel, isolated). */
      end: parallel<[RunContext, ResultMessage]>("run", "result"),
    }),
    turn: Object.freeze({
      /** The prompt entering a turn (waterfall; may add context or block). */
      prompt: waterfall<[TurnPrompt, RunContext]>("prompt", "run"),
      /** System prompt sections, once per turn, in SYSTEM_STAGE order (waterfall). */
      system: waterfall<[SystemSection[], RunContext]>("sections", "run"),
      /** The model stopped calling tools: a tap may send it back with a prompt (bail). */
      stop: bail<[StopInfo, RunContext], StopDecision>("info", "run"),
      /** A turn finished; observers only (parallel, isolated). */
      end: parallel<[TurnInfo, RunContext]>("turn", "run"),
    }),
    model: Object.freeze({
      /** Model string to `LanguageModel`: the first provider plugin that knows it answers (bail; `ref.run` is the run). */
      resolve: bail<[ModelRef, Kernel], Exclude<LanguageModel, string>>("ref", "kernel"),
      /** Build up the request in REQUEST_STAGE order (waterfall). */
      request: waterfall<[ModelRequest, RunContext]>("request", "run"),
      /** A response arrived: usage, cost, cache-break detection (series, isolated). */
      response: series<[ModelResponse, RunContext]>("response", "run"),
      /** A call failed: retry, fall back, or compact-and-retry (bail). */
      error: bail<[ModelErrorInfo, RunContext], ModelRecovery>("error", "run"),
    }),
    tool: Object.freeze({
      /** The tools offered this turn, in offer order (waterfall: availability). */
      list: waterfall<[Tool[], RunContext]>("tools", "run"),
      /** Votes on one call (waterfall; a deny from any tap is final whatever the order). */
      permission: waterfall<[PermissionVerdict, ToolCall]>("verdict", "call"),
      /** Answer an `ask` verdict (bail; no answer means deny). */
      ask: bail<[PermissionVerdict, ToolCall], PermissionResult>("verdict", "call"),
      /** Before the tool runs: rewrite the input or block (waterfall). */
      beforeCall: waterfall<[BeforeCall, ToolCall]>("state", "call"),
      /** The verdict is final and allows the call (asked or not): the last point before it runs (series; a throw refuses it). */
      allowed: series<[PermissionVerdict, ToolCall]>("verdict", "call"),
      /** After the tool ran: rewrite its output (waterfall). */
      afterCall: waterfall<[ToolOutput, ToolCall]>("output", "call"),
      /** A call was denied (by a rule, a mode, a handler or a failing check); observers only. */
      denied: series<[PermissionDenial, ToolCall]>("denial", "call"),
    }),
    context: Object.freeze({
      /** Shrink the history, one COMPACT_STAGE per tier (waterfall; a tier skips when under budget). */
      compact: waterfall<[CompactState, RunContext]>("state", "run"),
      /** A compaction happened: fired by the kernel for each of `CompactState.compactions` once the tiers ran (series). */
      compacted: series<[CompactInfo, RunContext]>("info", "run"),
    }),
    /** The observe-only firehose: every message and kernel event, with the run it belongs to (sync, isolated). */
    event: sync<[KernelEvent, RunContext | undefined]>("event", "run"),
  });
}

/** The hook catalogue type. */
export type Hooks = ReturnType<typeof createHooks>;

/** Hooks whose taps only observe: a throwing tap is logged and the run goes on. */
export const OBSERVER_HOOKS: ReadonlySet<string> = new Set([
  "event",
  "session.end",
  "turn.end",
  "model.response",
  "kernel.dispose",
  "tool.denied",
]);
