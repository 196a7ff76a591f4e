/**
 * The agent loop: drives the kernel hooks one model step at a time. The loop owns ordering
 * (`system/init` first, `result` last on every path) and the funnel; every feature is a tap.
 */
import { jsonSchema, streamText, type AssistantModelMessage, type LanguageModel, type ModelMessage, type ToolSet } from "ai";
import type { RunContext } from "./run";
import { hasTaps } from "./kernel";
import type { ModelRequest, ModelResponse, TurnPrompt } from "./hooks";
import type { Tool } from "./tool";
import { toolJsonSchema } from "./tool";
import { addUsage, emptyUsage, type AssistantBlock, type AssistantMessage, type ResultMessage, type StopReason, type Usage } from "./messages";
import { runToolCalls, type RawToolCall } from "./funnel";
import { describeError, ModelError, UbiquityError } from "./errors";
import { redactText, secretsOf } from "./redact";
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

/** `provider:model` label of a constructed model (`openai.responses` → `openai`). */
export function modelLabel(model: Model): string {
  const m = model as { provider?: string; modelId?: string };
  const id = m.provider ?? "unknown";
  if (id === "ubiquity-test") return "test";
  return `${providerName(id)}:${m.modelId ?? "unknown"}`;
}

/**
 * The provider name a user writes (`bedrock`, `google-vertex`) for an AI SDK provider id
 * (`amazon-bedrock`, `google.vertex.chat`); otherwise the id up to its first dot
 * (`openai.responses` → `openai`).
 */
function providerName(id: string): string {
  if (id === "amazon-bedrock" || id.startsWith("amazon-bedrock.")) return "bedrock";
  if (id.startsWith("google.vertex")) return "google-vertex";
  return id.split(".")[0]!;
}

/** The model the options ask for: `model`, else `UBIQUITY_MODEL` (trimmed; blank = unset). */
export function requestedModel(options: { model?: unknown }, env: NodeJS.ProcessEnv = process.env): string | Model | undefined {
  if (options.model !== undefined && options.model !== "") return options.model as string | Model;
  const fromEnv = env.UBIQUITY_MODEL?.trim();
  return fromEnv ? fromEnv : undefined;
}

/** Resolve a model string through `model.resolve` (the offline `test` model needs no plugin). */
export async function resolveModel(run: RunContext, spec: string | Model, role: "main" | "fallback" | "compact" | "subagent"): Promise<Model> {
  if (typeof spec !== "string") return spec;
  const model = await run.kernel.hooks.model.resolve.promise({ spec, role, options: run.options }, run.kernel);
  if (model) return model;
  if (spec === "test") return testModel();
  if (!hasTaps(run.kernel.hooks.model.resolve)) {
    throw new ModelError(
      `cannot resolve model "${spec}": no plugin resolves model strings. Add the ubiquity:model plugin (it is in the default preset) or pass a constructed AI SDK LanguageModel as options.model`,
    );
  }
  throw new ModelError(`cannot resolve model "${spec}": no provider plugin knows it. Use "provider:model" (e.g. "openai:gpt-5"), an alias, or "test"`);
}

function toToolSet(tools: Tool[]): ToolSet {
  const set: ToolSet = {};
  for (const tool of tools) {
    set[tool.name] = { description: tool.description, inputSchema: jsonSchema(toolJsonSchema(tool) as Parameters<typeof jsonSchema>[0]) };
  }
  return set;
}

// Tool JSON schemas are computed once per Tool instance: the tool block must stay byte-stable.
const toolSetCache = new WeakMap<Tool, ToolSet[string]>();
function cachedToolSet(tools: Tool[]): ToolSet {
  const set: ToolSet = {};
  for (const tool of tools) {
    let entry = toolSetCache.get(tool);
    if (!entry) {
      entry = toToolSet([tool])[tool.name]!;
      toolSetCache.set(tool, entry);
    }
    set[tool.name] = entry;
  }
  return set;
}

function usageFrom(u: {
  inputTokens?: number;
  outputTokens?: number;
  inputTokenDetails?: { cacheReadTokens?: number; cacheWriteTokens?: number };
}): Usage {
  const usage = emptyUsage();
  usage.inputTokens = u.inputTokens ?? 0;
  usage.outputTokens = u.outputTokens ?? 0;
  usage.cacheReadTokens = u.inputTokenDetails?.cacheReadTokens ?? 0;
  usage.cacheWriteTokens = u.inputTokenDetails?.cacheWriteTokens ?? 0;
  usage.requests = 1;
  return usage;
}

interface StepOutcome {
  text: string;
  content: AssistantBlock[];
  calls: RawToolCall[];
  response: ModelResponse;
  assistant: ModelMessage[];
}

/** The stop reason of a response from the AI SDK's unified finish reason. */
export function stopReasonOf(finishReason: string): StopReason {
  switch (finishReason) {
    case "stop":
      return "end_turn";
    case "tool-calls":
      return "tool_use";
    case "length":
      return "max_tokens";
    case "content-filter":
      return "refusal";
    default:
      return "other";
  }
}

/** What a tool call of a response cut by maxTokens gets instead of running. */
function cutCallMessage(run: RunContext, request: ModelRequest): string {
  const limit = request.maxOutputTokens ?? run.options.maxTokens;
  return (
    `Not run: the response was cut at the output limit${limit !== undefined ? ` (maxTokens: ${limit})` : ""} while its tool calls were being written, ` +
    "so their input may be incomplete. Make the call again in a shorter response (split large content over several calls)."
  );
}

/** One model call, streamed; deltas become `stream_event` messages when asked for. */
async function callModel(run: RunContext, request: ModelRequest): Promise<StepOutcome> {
  const partial = run.options.includePartialMessages === true;
  const watch = new CallWatch({
    requestTimeoutMs: run.options.requestTimeoutMs,
    streamIdleTimeoutMs: run.options.streamIdleTimeoutMs,
    maxTokens: request.maxOutputTokens,
    label: request.modelLabel,
  });
  try {
    return await readStream(run, request, watch, partial);
  } catch (error) {
    // A limit aborts the call; whatever the stream then reports, the limit is the cause.
    throw watch.error ?? error;
  } finally {
    watch.dispose();
  }
}

/** Parts the SDK emits on its own, before the provider has said anything. */
const SDK_PARTS = new Set(["start", "start-step"]);

async function readStream(run: RunContext, request: ModelRequest, watch: CallWatch, partial: boolean): Promise<StepOutcome> {
  let streamError: unknown;
  const result = streamText({
    model: request.model,
    // An empty prompt (no system-prompt plugin) is sent as none: some providers reject an empty system block.
    instructions: request.instructions === "" ? undefined : request.instructions,
    messages: request.messages,
    tools: request.tools,
    maxRetries: 0, // retries belong to the transport (ubiquity:retry), never stacked
    abortSignal: watch.watch(AbortSignal.any([run.abortSignal, watch.signal])),
    maxOutputTokens: request.maxOutputTokens,
    temperature: request.temperature,
    providerOptions: request.providerOptions as never,
    headers: request.headers,
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
  let modelId: string | undefined;
  for await (const part of result.fullStream) {
    if (!SDK_PARTS.has(part.type)) {
      const delta = part.type === "text-delta" || part.type === "reasoning-delta" ? part.text : part.type === "tool-input-delta" ? part.delta : "";
      watch.part(delta.length);
    }
    if (watch.error) throw watch.error;
    switch (part.type) {
      case "text-delta":
        text += part.text;
        if (partial && part.text) run.emit({ type: "stream_event", delta: { type: "text", text: part.text } });
        break;
      case "reasoning-delta":
        reasoning += part.text;
        if (partial && part.text) run.emit({ type: "stream_event", delta: { type: "reasoning", text: part.text } });
        break;
      case "tool-input-delta":
        if (partial && part.delta) run.emit({ type: "stream_event", delta: { type: "tool_input", text: part.delta, toolUseId: part.id } });
        break;
      case "tool-call":
        calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        break;
      case "finish-step":
        usage = usageFrom(part.usage);
        finishReason = part.finishReason;
        providerMetadata = part.providerMetadata as Record<string, unknown> | undefined;
        modelId = part.response?.modelId;
        break;
      case "error":
        throw part.error;
      case "abort":
        throw watch.error ?? new RunEnd("Run aborted.");
      default:
        break;
    }
  }
  if (watch.error) throw watch.error;
  if (streamError) throw streamError;
  const response = await result.response;
  const assistant = response.messages.filter((m): m is AssistantModelMessage => m.role === "assistant");
  const content: AssistantBlock[] = [];
  if (reasoning) content.push({ type: "reasoning", text: reasoning });
  if (text) content.push({ type: "text", text });
  for (const c of calls) content.push({ type: "tool_call", toolUseId: c.toolCallId, toolName: c.toolName, input: c.input });
  void modelId;
  return {
    text,
    content,
    calls,
    assistant,
    response: {
      request,
      modelLabel: request.modelLabel,
      usage: usage ?? Object.assign(emptyUsage(), { requests: 1 }),
      text,
      finishReason,
      providerMetadata,
    },
  };
}

/**
 * Call the model, offering failures to `model.error` (retry, fallback, compact-and-retry). A
 * recovery that hands the call to another model has the turn's request (`base`, as it was
 * before `model.request`) built again through `model.request` for that model, so every stage
 * (its dialect, its cache markers) sees the model that will answer.
 */
async function callWithRecovery(run: RunContext, base: ModelRequest, request: ModelRequest): Promise<StepOutcome> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await callModel(run, request);
    } catch (error) {
      if (run.abortSignal.aborted) throw new RunEnd("Run aborted.");
      if (error instanceof RunEnd || attempt >= 10) throw error;
      const recovery = await run.kernel.hooks.model.error.promise({ error, request, attempt }, run);
      if (!recovery?.retry) throw error;
      const next = recovery.request ?? request;
      request =
        next.model === request.model
          ? next
          : await run.kernel.hooks.model.request.promise({ ...base, model: next.model, modelLabel: next.modelLabel }, run);
    }
  }
}

function maxTurnsReached(run: RunContext): RunEnd {
  return new RunEnd(`Reached the maximum number of turns (${run.options.maxTurns}); raise maxTurns to let the agent go on`, "error_max_turns");
}

/** What the provider counted for the last request: its input tokens and how much history it carried. */
interface SentRecord {
  inputTokens: number;
  messages: number;
  history: ModelMessage[];
}

/**
 * Tokens the next request will carry: the provider's count for the last request plus an estimate
 * (characters / 4) of what was added since — the tool results that just landed are never in that
 * count. A response that reports no usage keeps the last reported count. Without a usable count
 * (first turn, a provider that never reports, history replaced) the whole history is estimated.
 */
function pressure(history: ModelMessage[], sent: SentRecord | undefined): number {
  const estimate = (messages: ModelMessage[]) => Math.ceil(JSON.stringify(messages).length / 4);
  if (!sent || sent.inputTokens <= 0 || sent.history !== history || history.length < sent.messages) return estimate(history);
  return sent.inputTokens + estimate(history.slice(sent.messages));
}

function userModelMessage(prompt: TurnPrompt): ModelMessage {
  if (prompt.context.length === 0) return { role: "user", content: prompt.text };
  return { role: "user", content: [...prompt.context.map((text) => ({ type: "text" as const, text })), { type: "text" as const, text: prompt.text }] };
}

/** Describe a model failure for the result, naming provider and status, with secrets masked. */
export function describeModelFailure(run: RunContext, error: unknown): string {
  const e = error as { statusCode?: number; responseBody?: string; url?: string; name?: string; cause?: { message?: string; code?: string; cause?: { code?: string } } };
  let message = describeError(error);
  if (typeof e?.statusCode === "number" && e.statusCode >= 200 && e.statusCode < 300 && e.cause) {
    // "Failed to process successful response": the body broke while it was read.
    const code = e.cause.code ?? e.cause.cause?.code;
    message = `the answer broke off after HTTP ${e.statusCode}: ${describeError(e.cause)}${code && !describeError(e.cause).includes(code) ? ` (${code})` : ""}`;
  } else if (typeof e?.statusCode === "number") {
    const body = typeof e.responseBody === "string" && e.responseBody && !message.includes(e.responseBody) ? ` — ${e.responseBody.slice(0, 500)}` : "";
    message = `HTTP ${e.statusCode}: ${message}${body}`;
  }
  const label = run.modelLabel ? ` (${run.modelLabel})` : "";
  return redactText(`Model request failed${label}: ${message}`, secretsOf(run.options));
}

/** Replay a stored session (`resume`, `continueConversation`, `forkSession`) through `session.load`. */
async function loadSession(run: RunContext): Promise<void> {
  const { resume, continueConversation, forkSession } = run.options as { resume?: string; continueConversation?: boolean; forkSession?: boolean };
  const request = { sessionId: resume, latest: !resume && continueConversation === true, cwd: run.cwd, fork: forkSession === true };
  if (!hasTaps(run.kernel.hooks.session.load)) {
    throw new RunEnd("Cannot resume: no session store plugin is loaded (add ubiquity:sessions, which the default preset has)");
  }
  const loaded = await run.kernel.hooks.session.load.promise(request, run);
  if (!loaded && !resume) {
    // Nothing to continue in this folder yet: the first run starts the conversation (as in the original).
    run.logger.debug(`continueConversation: no stored session for ${run.cwd}, starting a new one`);
    return;
  }
  if (!loaded) throw new RunEnd(`No stored session with id "${resume}": check the id (ubiquity sessions list) and sessionDir`);
  run.history.push(...loaded.history);
  if (!request.fork) run.sessionId = loaded.sessionId;
}

/**
 * Drive one run to its end. Emits `system/init` first and `result` last (also on failure)
 * through `run.emit`, and returns the result.
 */
export async function driveRun(run: RunContext, prompt: string, pre?: { error?: unknown }): Promise<ResultMessage> {
  const started = performance.now();
  const hooks = run.kernel.hooks;
  let initSent = false;
  let finalText = "";
  const sendInit = () => {
    if (initSent) return;
    initSent = true;
    const requested = requestedModel(run.options);
    const label = run.modelLabel ?? (typeof requested === "string" ? requested : requested ? modelLabel(requested) : null);
    run.emit({
      type: "system",
      subtype: "init",
      model: label,
      cwd: run.cwd,
      tools: run.tools.map((t) => t.name),
      permissionMode: typeof run.options.permissionMode === "string" ? run.options.permissionMode : "default",
      plugins: run.kernel.plugins.map((p) => p.plugin.name),
      extra: { ...run.initExtra },
    });
  };

  let subtype: ResultMessage["subtype"] = "success";
  let errorMessage: string | undefined;
  let stopReason: StopReason | null = null;
  try {
    if (pre?.error) throw pre.error;
    if (!run.agent) await run.kernel.ready();
    let modelError: unknown;
    const requested = requestedModel(run.options);
    if (requested !== undefined) {
      try {
        run.model = await resolveModel(run, requested, run.agent ? "subagent" : "main");
        run.modelLabel = modelLabel(run.model);
      } catch (error) {
        modelError = error;
      }
    }
    run.tools = await hooks.tool.list.promise(run.kernel.registries.tools.values(), run);
    if (!run.agent && (run.options.resume || run.options.continueConversation)) await loadSession(run);
    await hooks.session.start.promise(run);
    sendInit();
    if (requested === undefined) {
      throw new RunEnd(
        'No model configured: set options.model (e.g. model: "openai:gpt-5", or "test" for the offline model) or the UBIQUITY_MODEL environment variable',
      );
    }
    if (modelError) throw modelError;

    run.emit({ type: "user", text: prompt });
    let next: TurnPrompt | undefined = await hooks.turn.prompt.promise({ text: prompt, source: "user", context: [] }, run);
    let continuations = 0;
    let firstTurn = true;
    let sent: SentRecord | undefined;
    for (;;) {
      if (next) {
        if (next.blocked) throw new RunEnd(`Prompt blocked: ${next.blocked}`);
        run.history.push(userModelMessage(next));
        next = undefined;
      }
      if (run.abortSignal.aborted) throw new RunEnd("Run aborted.");
      if (run.interrupted) throw new RunEnd(`Run interrupted: ${run.interrupted}`);
      if (run.numTurns >= run.options.maxTurns) throw maxTurnsReached(run);
      if (!firstTurn) run.tools = await hooks.tool.list.promise(run.kernel.registries.tools.values(), run);
      firstTurn = false;
      const sections = await hooks.turn.system.promise([], run);
      if (hasTaps(hooks.context.compact)) {
        // Only compaction needs the estimate, so skip it when nobody listens.
        const estimated = pressure(run.history, sent);
        const compact = await hooks.context.compact.promise({ messages: run.history, estimatedTokens: estimated, changed: false }, run);
        if (compact.changed) run.history = compact.messages;
      }
      const base: ModelRequest = {
        model: run.model!,
        modelLabel: run.modelLabel!,
        instructions: sections.map((s) => s.text).filter(Boolean).join("\n\n"),
        messages: run.history,
        tools: cachedToolSet(run.tools),
        toolList: run.tools,
        maxOutputTokens: run.options.maxTokens,
        temperature: run.options.temperature,
        providerOptions: run.options.providerOptions,
        call: run.usage.requests + 1,
      };
      const request = await hooks.model.request.promise(base, run);
      const sentLength = run.history.length;
      let step: StepOutcome;
      try {
        step = await callWithRecovery(run, base, request);
      } catch (error) {
        if (error instanceof RunEnd) throw error;
        throw new RunEnd(describeModelFailure(run, error));
      }
      run.numTurns++;
      const { usage, modelLabel: answered } = step.response;
      // A response without usage keeps the last reported count (what was added since is estimated on top).
      if (usage.inputTokens > 0 || !sent || sent.history !== run.history) sent = { inputTokens: usage.inputTokens, messages: sentLength, history: run.history };
      addUsage(run.usage, usage);
      addUsage((run.modelUsage[answered] ??= emptyUsage()), usage);
      stopReason = stopReasonOf(step.response.finishReason);
      const assistant = run.emit({ type: "assistant", text: step.text, content: step.content, model: answered, stopReason }) as AssistantMessage;
      if (step.text) finalText = step.text;
      await hooks.model.response.promise(step.response, run);
      run.history.push(...step.assistant);
      if (stopReason === "max_tokens") {
        run.logger.warn(`[ubiquity] the response of ${answered} was cut at the output limit (maxTokens: ${request.maxOutputTokens ?? "the provider's default"}); its text is incomplete`);
      }

      if (step.calls.length > 0) {
        const byName = new Map(run.tools.map((t) => [t.name, t] as const));
        // A cut response's calls may carry half an input: none of them runs, each is answered.
        const cut = stopReason === "max_tokens" ? cutCallMessage(run, request) : undefined;
        const calls = cut ? step.calls.map((c) => ({ ...c, refusal: cut })) : step.calls;
        const outcomes = await runToolCalls(run, byName, calls);
        // usage.toolCalls counts in the funnel; the model's requests were counted above
        run.history.push({ role: "tool", content: outcomes.map((o) => o.part) });
        await hooks.turn.end.promise({ turn: run.numTurns, assistant, toolResults: outcomes.map((o) => o.message) }, run);
        continue;
      }
      await hooks.turn.end.promise({ turn: run.numTurns, assistant, toolResults: [] }, run);
      const decision = await hooks.turn.stop.promise({ text: step.text, continuations }, run);
      if (!decision) break;
      // No turn left to answer it: the continuation prompt is neither emitted nor saved.
      if (run.numTurns >= run.options.maxTurns) throw maxTurnsReached(run);
      continuations++;
      run.emit({ type: "user", text: decision.continueWith });
      next = await hooks.turn.prompt.promise({ text: decision.continueWith, source: "stop", context: [] }, run);
    }
  } catch (error) {
    sendInit();
    if (error instanceof RunEnd) subtype = error.subtype;
    else subtype = "error_during_execution";
    errorMessage = redactText(describeError(error), secretsOf(run.options));
    if (!(error instanceof RunEnd)) run.logger.debug("run failed:", error);
  }
  const isError = subtype !== "success";
  const result = run.emit({
    type: "result",
    subtype,
    result: isError ? errorMessage! : finalText,
    isError,
    numTurns: run.numTurns,
    durationMs: Math.round(performance.now() - started),
    usage: { ...run.usage },
    totalCostUsd: run.totalCostUsd,
    permissionDenials: [...run.permissionDenials],
    modelUsage: run.modelUsage,
    stopReason,
  }) as ResultMessage;
  try {
    await hooks.session.end.promise(run, result);
  } catch (error) {
    run.logger.error("session.end failed:", describeError(error));
  }
  return result;
}
