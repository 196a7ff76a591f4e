/**
 * The one model-call path. Every call a run makes — the loop's turn, a compaction summary, any
 * plugin's own call — goes through `callModel`: the request is built through `model.request`
 * (stage order), streamed through the AI SDK under the call limits (`call-limits.ts`), failures
 * are offered to `model.error` (retry, fallback), and a response is charged to the run's usage
 * ledger (and every ancestor's: a subagent's tokens are its parent's too) before `model.response`
 * sees it (pricing, cache-break detection). A request's `purpose` lets taps that only concern the
 * conversation (dialect, cache markers, transcripts) leave other calls alone.
 */
import {
  jsonSchema,
  streamText,
  type AssistantModelMessage,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  type ToolSet,
} from "ai";
import { chargeUsage, type RunContext } from "./run";
import type { Kernel } from "./kernel";
import type { ModelPurpose, ModelRef, ModelRequest, ModelResponse } from "./hooks";
import { toolJsonSchema, type Tool } from "./tool";
import {
  emptyUsage,
  type AssistantBlock,
  type ResultMessage,
  type StopReason,
  type StreamEventMessage,
  type Usage,
} from "./messages";

type StreamDelta = StreamEventMessage["delta"];
import type { RawToolCall } from "./funnel";
import { describeError, ModelError, PluginError, UbiquityError } from "./errors";
import { secretsOfRun, streamMasker } from "./redact";
import { testModel } from "./testing/test-model";
import { CallWatch } from "./call-limits";

type Model = Exclude<LanguageModel, string>;

/** An error that ends the run with a given result subtype and message. */
export class RunEnd extends UbiquityError {
  override name = "RunEnd";
  constructor(
    message: string,
    readonly subtype: ResultMessage["subtype"] = "error_during_execution",
  ) {
    super(message);
  }
}

/**
 * The run was aborted: its signal's reason, when the caller gave one (`AbortSignal.timeout`, an
 * `abort(reason)`), says why; the plain `abort()` leaves "Run aborted.".
 */
export function abortedEnd(run: RunContext): RunEnd {
  const reason: unknown = run.abortSignal.reason;
  const why = reason instanceof Error ? (reason.name === "AbortError" ? "" : reason.message) : String(reason ?? "");
  return new RunEnd(why ? `Run aborted: ${why}` : "Run aborted.");
}

/** The `RunEnd` a tap threw to end the run in its own words (the kernel wraps it in a PluginError), else `error` as it came. */
export function unwrapRunEnd(error: unknown): unknown {
  return error instanceof PluginError && error.original instanceof RunEnd ? error.original : error;
}

/**
 * `provider:model` label of a constructed model. The provider is the name a user writes: the
 * registered provider of `kernel` that claims the model's AI SDK id (`amazon-bedrock` → `bedrock`,
 * `google.vertex.chat` → `google-vertex`), else the id up to its first dot (`openai.responses` →
 * `openai`).
 */
export function modelLabel(model: Model, kernel?: Pick<Kernel, "registries">): string {
  const m = model as { provider?: string; modelId?: string };
  const id = m.provider ?? "unknown";
  if (id === "ubiquity-test") return "test";
  const claims = (p: string) => id === p || id.startsWith(`${p}.`);
  const named = kernel?.registries.providers.entries().find((e) => e.value.providerIds?.some(claims))?.name;
  return `${named ?? id.split(".")[0]!}:${m.modelId ?? "unknown"}`;
}

/** The model the options ask for: `model`, else `UBIQUITY_MODEL` (trimmed; blank = unset). */
export function requestedModel(
  options: { model?: unknown },
  env: NodeJS.ProcessEnv = process.env,
): string | Model | undefined {
  if (options.model !== undefined && options.model !== "") return options.model as string | Model;
  const fromEnv = env.UBIQUITY_MODEL?.trim();
  return fromEnv ? fromEnv : undefined;
}

/** Resolve a model string through `model.resolve` (the offline `test` model needs no plugin). */
export async function resolveModel(run: RunContext, spec: string | Model, role: ModelRef["role"]): Promise<Model> {
  if (typeof spec !== "string") return spec;
  const model = await run.kernel.hooks.model.resolve.promise({ spec, role, options: run.options, run }, run.kernel);
  if (model) return model;
  if (spec === "test") return testModel();
  // The hook's own taps: tapable's isUsed() counts interceptors too, and the kernel intercepts every hook.
  const why =
    run.kernel.hooks.model.resolve.taps.length === 0
      ? "no plugin resolves model strings. Add the ubiquity:model plugin (it is in the default preset) or pass a constructed AI SDK LanguageModel as options.model"
      : 'no provider plugin knows it. Use "provider:model" (e.g. "openai:gpt-5"), an alias, or "test"';
  throw new ModelError(`cannot resolve model "${spec}": ${why}`);
}

/** The model a run asks for, resolved (role `main`, or `subagent` in a nested run); undefined when none is asked for. */
export async function resolveRunModel(run: RunContext): Promise<Model | undefined> {
  const requested = requestedModel(run.options);
  if (requested === undefined) return undefined;
  run.model = await resolveModel(run, requested, run.parent ? "subagent" : "main");
  run.modelLabel = modelLabel(run.model, run.kernel);
  return run.model;
}

// Tool JSON schemas are computed once per Tool instance: the tool block must stay byte-stable.
const toolSetCache = new WeakMap<Tool, ToolSet[string]>();

/** The AI SDK tool set offering `tools`. */
export function toolSetOf(tools: Tool[]): ToolSet {
  const set: ToolSet = {};
  for (const tool of tools) {
    const schema = () => jsonSchema(toolJsonSchema(tool) as Parameters<typeof jsonSchema>[0]);
    const entry = toolSetCache.get(tool) ?? { description: tool.description, inputSchema: schema() };
    toolSetCache.set(tool, entry);
    set[tool.name] = entry;
  }
  return set;
}

/** What a caller hands `callModel`: a request without the fields the kernel fills in. */
export type ModelRequestInit = Omit<ModelRequest, "call" | "purpose" | "tools" | "toolList"> & { toolList?: Tool[] };

/** A completed call: the response `model.response` saw, and what the stream carried. */
export interface ModelCall {
  /** The request as sent (after `model.request` and any recovery). */
  request: ModelRequest;
  response: ModelResponse;
  text: string;
  content: AssistantBlock[];
  calls: RawToolCall[];
  /** The assistant messages to append to the history. */
  assistant: ModelMessage[];
}

/**
 * Make one model call for `run`: `model.request` → the streamed call (recovered through
 * `model.error`) → the usage ledger → `model.response`. `purpose` is `turn` for the loop's own
 * turns; only a turn streams its deltas as `stream_event` messages. Throws the call's failure;
 * a `RunEnd` when the run was aborted or the request could not be built (a `model.request` tap threw).
 */
export async function callModel(
  run: RunContext,
  init: ModelRequestInit,
  options: { purpose?: ModelPurpose } = {},
): Promise<ModelCall> {
  const toolList = init.toolList ?? [];
  let base: ModelRequest = {
    ...init,
    toolList,
    tools: toolSetOf(toolList),
    call: run.usage.requests + 1,
    purpose: options.purpose ?? "turn",
  };
  // A request that cannot be built never reached the model: it ends the run in the tap's own words.
  const build = (init: ModelRequest) =>
    run.kernel.hooks.model.request.promise(init, run).catch((thrown: unknown) => {
      const error = unwrapRunEnd(thrown);
      if (error instanceof RunEnd) throw error;
      run.logger.debug("model.request failed:", error);
      throw new RunEnd(describeError(error));
    });
  let request = await build(base);
  const partial = base.purpose === "turn" && run.options.includePartialMessages === true;
  for (let attempt = 0; ; attempt++) {
    let outcome: ModelCall;
    try {
      outcome = await limitedCall(run, request, partial);
    } catch (error) {
      if (run.abortSignal.aborted) throw abortedEnd(run);
      if (error instanceof RunEnd || attempt >= 10) throw error;
      // A recovery that hands the call to another model, or other messages (a compacted history),
      // has the request built again through `model.request`, so every stage (its dialect, its cache
      // markers, the image guard) sees it.
      const recovery = await run.kernel.hooks.model.error.promise({ error, request, attempt }, run);
      if (!recovery?.retry) throw error;
      const next = recovery.request ?? request;
      if (next.messages !== request.messages) base = { ...base, messages: next.messages };
      else if (next.model === request.model) request = next;
      if (request !== next) request = await build({ ...base, model: next.model, modelLabel: next.modelLabel });
      continue;
    }
    // Charged once, outside the recovery: an answered call is never offered to model.error.
    chargeUsage(run, outcome.response.usage, outcome.response.modelLabel);
    await run.kernel.hooks.model.response.promise(outcome.response, run);
    return outcome;
  }
}

/** One streamed call under the run's call limits. */
async function limitedCall(run: RunContext, request: ModelRequest, partial: boolean): Promise<ModelCall> {
  const { modelLabel: label, maxOutputTokens: maxTokens } = request;
  const watch = new CallWatch({ ...run.options, maxTokens, label, parent: run.abortSignal });
  try {
    return await readStream(run, request, watch, partial);
  } catch (error) {
    // A limit aborts the call; whatever the stream then reports, the limit is the cause.
    throw watch.error ?? error;
  } finally {
    watch.dispose();
  }
}

/** The text the turn in progress has streamed so far, per run (the loop clears it once a response is whole, and when a stretch ends): what an interrupted response leaves in the conversation. */
export const streamedText = new WeakMap<RunContext, string>();

/**
 * The run's `stream_event`s, masked as they go, a secret split across deltas included: each kind
 * of delta (and each tool call's input) has its own masker, flushed when the stream ends.
 */
function maskedDeltas(run: RunContext) {
  const open = new Map<string, { masker: ReturnType<typeof streamMasker>; delta: StreamDelta }>();
  const send = (delta: StreamDelta, text: string) =>
    text && run.emit({ type: "stream_event", delta: { ...delta, text } as StreamDelta });
  const streamDelta = (delta: StreamDelta) => {
    const key = `${delta.type}\0${delta.toolUseId ?? ""}`;
    if (!open.has(key)) open.set(key, { masker: streamMasker(() => secretsOfRun(run)), delta });
    send(delta, open.get(key)!.masker.push(delta.text));
  };
  const flushDeltas = () => {
    for (const { masker, delta } of open.values()) send(delta, masker.flush());
    open.clear();
  };
  return { streamDelta, flushDeltas };
}

/** Parts the SDK emits on its own, before the provider has said anything. */
const SDK_PARTS = new Set(["start", "start-step"]);

function usageFrom(u: LanguageModelUsage): Usage {
  return Object.assign(emptyUsage(), {
    inputTokens: u.inputTokens ?? 0,
    outputTokens: u.outputTokens ?? 0,
    cacheReadTokens: u.inputTokenDetails?.cacheReadTokens ?? 0,
    cacheWriteTokens: u.inputTokenDetails?.cacheWriteTokens ?? 0,
    requests: 1,
  });
}

async function readStream(
  run: RunContext,
  request: ModelRequest,
  watch: CallWatch,
  partial: boolean,
): Promise<ModelCall> {
  let streamError: unknown;
  const result = streamText({
    ...request.streamSettings,
    model: request.model,
    // An empty prompt (no system-prompt plugin) is sent as none: some providers reject an empty system block.
    instructions: request.instructions === "" ? undefined : request.instructions,
    messages: request.messages,
    tools: request.tools,
    maxRetries: 0, // retries belong to the transport (ubiquity:retry), never stacked
    abortSignal: watch.signal,
    maxOutputTokens: request.maxOutputTokens,
    temperature: request.temperature,
    providerOptions: request.providerOptions as never,
    headers: request.headers,
    output: request.output,
    onError: ({ error }) => {
      streamError ??= error;
    },
  });
  let text = "";
  let reasoning = "";
  const calls: RawToolCall[] = [];
  let usage: Usage | undefined;
  let finishReason = "unknown";
  let providerMetadata: Record<string, unknown> | undefined;
  const { streamDelta, flushDeltas } = maskedDeltas(run);
  for await (const part of result.fullStream) {
    if (!SDK_PARTS.has(part.type)) {
      const delta =
        part.type === "text-delta" || part.type === "reasoning-delta"
          ? part.text
          : part.type === "tool-input-delta"
            ? part.delta
            : "";
      watch.part(delta.length);
    }
    if (watch.error) throw watch.error;
    switch (part.type) {
      case "text-delta":
        text += part.text;
        if (request.purpose === "turn") streamedText.set(run, text);
        if (partial && part.text) streamDelta({ type: "text", text: part.text });
        break;
      case "reasoning-delta":
        reasoning += part.text;
        if (partial && part.text) streamDelta({ type: "reasoning", text: part.text });
        break;
      case "tool-input-delta":
        if (partial && part.delta) streamDelta({ type: "tool_input", text: part.delta, toolUseId: part.id });
        break;
      case "tool-call":
        calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        break;
      case "finish-step":
        usage = usageFrom(part.usage);
        finishReason = part.finishReason;
        providerMetadata = part.providerMetadata as Record<string, unknown> | undefined;
        break;
      case "error":
        throw part.error;
      case "abort":
        throw watch.error ?? abortedEnd(run);
      default:
        break;
    }
  }
  flushDeltas();
  if (watch.error) throw watch.error;
  if (streamError) throw streamError;
  const response = await result.response;
  const assistant = response.messages.filter((m): m is AssistantModelMessage => m.role === "assistant");
  const content: AssistantBlock[] = [];
  if (reasoning) content.push({ type: "reasoning", text: reasoning });
  if (text) content.push({ type: "text", text });
  for (const c of calls)
    content.push({ type: "tool_call", toolUseId: c.toolCallId, toolName: c.toolName, input: c.input });
  const answered: ModelResponse = {
    request,
    modelLabel: request.modelLabel,
    usage: usage ?? Object.assign(emptyUsage(), { requests: 1 }),
    text,
    finishReason,
    providerMetadata,
  };
  return { request, response: answered, text, content, calls, assistant };
}

/** The stop reason of each of the AI SDK's unified finish reasons; any other is `other`. */
const STOP_REASONS: ReadonlyMap<string, StopReason> = new Map([
  ["stop", "end_turn"],
  ["tool-calls", "tool_use"],
  ["length", "max_tokens"],
  ["content-filter", "refusal"],
]);

/** The stop reason of a response from the AI SDK's unified finish reason. */
export const stopReasonOf = (finishReason: string): StopReason => STOP_REASONS.get(finishReason) ?? "other";

/**
 * How a failed model call ends the run: a `RunEnd` naming provider and status (a `RunEnd` stays
 * as it is). A missing key or setting stopped the request before it was sent: a configuration error.
 */
export function modelFailure(run: RunContext, error: unknown): RunEnd {
  if (error instanceof RunEnd) return error;
  const e = error as {
    statusCode?: number;
    responseBody?: string;
    cause?: { message?: string; code?: string; cause?: { code?: string } };
  };
  let message = describeError(error);
  if (typeof e?.statusCode === "number" && e.statusCode >= 200 && e.statusCode < 300 && e.cause) {
    // "Failed to process successful response": the body broke while it was read.
    const code = e.cause.code ?? e.cause.cause?.code;
    message = `the answer broke off after HTTP ${e.statusCode}: ${describeError(e.cause)}${code && !describeError(e.cause).includes(code) ? ` (${code})` : ""}`;
  } else if (typeof e?.statusCode === "number") {
    const body =
      typeof e.responseBody === "string" && e.responseBody && !message.includes(e.responseBody)
        ? ` — ${e.responseBody.slice(0, 500)}`
        : "";
    message = `HTTP ${e.statusCode}: ${message}${body}`;
  }
  const label = run.modelLabel ? ` (${run.modelLabel})` : "";
  const configuration = /^AI_Load(APIKey|Setting)Error$/.test(String((error as Error)?.name));
  // Its secrets are masked where every failure's are: in the run's outcome (the loop's `failure`).
  return new RunEnd(`Model request failed${label}: ${message}`, configuration ? "error_configuration" : undefined);
}
