/**
 * The loop: drives the kernel hooks one model step at a time. The loop owns ordering
 * (`system/init` first, `result` last on every path) and the funnel; every feature is a tap.
 * Model calls go through `callModel` (`model-call.ts`), the path every call takes.
 */
import type { ModelMessage } from "ai";
import { initMessage, resultMessage, type RunContext } from "./run";
import type { ModelRequest, TurnPrompt } from "./hooks";
import type { AssistantMessage, ResultMessage, StopReason } from "./messages";
import { runToolCalls } from "./funnel";
import { describeError, PluginError } from "./errors";
import { redactText, secretsOf } from "./redact";
import { callModel, describeModelFailure, modelLabel, requestedModel, resolveRunModel, RunEnd, stopReasonOf, type ModelCall } from "./model-call";

/** What a tool call of a response cut by maxTokens gets instead of running. */
function cutCallMessage(run: RunContext, request: ModelRequest): string {
  const limit = request.maxOutputTokens ?? run.options.maxTokens;
  return (
    `Not run: the response was cut at the output limit${limit !== undefined ? ` (maxTokens: ${limit})` : ""} while its tool calls were being written, ` +
    "so their input may be incomplete. Make the call again in a shorter response (split large content over several calls)."
  );
}

function maxTurnsReached(run: RunContext): RunEnd {
  return new RunEnd(`Reached the maximum number of turns (${run.options.maxTurns}); raise maxTurns to let the run go on`, "error_max_turns");
}

/** What the provider counted for the last turn's request, and the history it was counted for. */
interface SentRecord {
  inputTokens: number;
  messages: number;
  history: ModelMessage[];
}

function userModelMessage(prompt: TurnPrompt): ModelMessage {
  if (prompt.context.length === 0) return { role: "user", content: prompt.text };
  return { role: "user", content: [...prompt.context.map((text) => ({ type: "text" as const, text })), { type: "text" as const, text: prompt.text }] };
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
    run.emit(initMessage(run, run.modelLabel ?? (typeof requested === "string" ? requested : requested ? modelLabel(requested, run.kernel) : null)));
  };

  let subtype: ResultMessage["subtype"] = "success";
  let errorMessage: string | undefined;
  let stopReason: StopReason | null = null;
  try {
    if (pre?.error) throw pre.error;
    if (!run.parent) await run.kernel.ready();
    let modelError: unknown;
    await resolveRunModel(run).catch((error: unknown) => void (modelError = error));
    const requested = requestedModel(run.options);
    run.tools = await hooks.tool.list.promise(run.kernel.registries.tools.values(), run);
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
      const reported = sent?.history === run.history ? { inputTokens: sent.inputTokens, messages: sent.messages } : undefined;
      const compact = await hooks.context.compact.promise({ messages: run.history, reported, changed: false }, run);
      if (compact.changed) run.history = compact.messages;
      const sentLength = run.history.length;
      let step: ModelCall;
      try {
        step = await callModel(run, {
          model: run.model!,
          modelLabel: run.modelLabel!,
          instructions: sections.map((s) => s.text).filter(Boolean).join("\n\n"),
          messages: run.history,
          toolList: run.tools,
          maxOutputTokens: run.options.maxTokens,
          temperature: run.options.temperature,
          providerOptions: run.options.providerOptions,
        });
      } catch (error) {
        if (error instanceof RunEnd) throw error;
        throw new RunEnd(describeModelFailure(run, error));
      }
      run.numTurns++;
      const { usage, modelLabel: answered } = step.response;
      // A response without usage keeps the last reported count (what was added since is estimated on top).
      if (usage.inputTokens > 0 || !sent || sent.history !== run.history) sent = { inputTokens: usage.inputTokens, messages: sentLength, history: run.history };
      stopReason = stopReasonOf(step.response.finishReason);
      const assistant = run.emit({ type: "assistant", text: step.text, content: step.content, model: answered, stopReason }) as AssistantMessage;
      if (step.text) finalText = step.text;
      run.history.push(...step.assistant);
      if (stopReason === "max_tokens") {
        run.logger.warn(`[ubiquity] the response of ${answered} was cut at the output limit (maxTokens: ${step.request.maxOutputTokens ?? "the provider's default"}); its text is incomplete`);
      }

      if (step.calls.length > 0) {
        const byName = new Map(run.tools.map((t) => [t.name, t] as const));
        // A cut response's calls may carry half an input: none of them runs, each is answered.
        const cut = stopReason === "max_tokens" ? cutCallMessage(run, step.request) : undefined;
        const calls = cut ? step.calls.map((c) => ({ ...c, refusal: cut })) : step.calls;
        const outcomes = await runToolCalls(run, byName, calls);
        // usage.toolCalls counts in the funnel; the model's requests were counted by callModel
        run.history.push({ role: "tool", content: outcomes.map((o) => o.part) });
        await hooks.turn.end.promise({ turn: run.numTurns, assistant, toolResults: outcomes.map((o) => o.message) }, run);
        if (run.finished) break;
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
  } catch (thrown) {
    sendInit();
    // A tap may end the run with a RunEnd of its own (e.g. a stored session that cannot be found): its words stand.
    const error = thrown instanceof PluginError && thrown.original instanceof RunEnd ? thrown.original : thrown;
    if (error instanceof RunEnd) subtype = error.subtype;
    else subtype = "error_during_execution";
    errorMessage = redactText(describeError(error), secretsOf(run.options));
    if (!(error instanceof RunEnd)) run.logger.debug("run failed:", error);
  }
  const isError = subtype !== "success";
  const durationMs = Math.round(performance.now() - started);
  const result = run.emit(resultMessage(run, { subtype, result: isError ? errorMessage! : finalText, isError, durationMs, stopReason })) as ResultMessage;
  try {
    await hooks.session.end.promise(run, result);
  } catch (error) {
    run.logger.error("session.end failed:", describeError(error));
  }
  return result;
}
