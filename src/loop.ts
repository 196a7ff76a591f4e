/**
 * The loop: drives the kernel hooks one model step at a time. The loop owns ordering
 * (`system/init` first, `result` last on every path) and the funnel; every feature is a tap.
 * Model calls go through `callModel` (`model-call.ts`), the path every call takes.
 */
import type { ModelMessage, UserContent } from "ai";
import { endStream, initMessage, lastEmitted, resultMessage, type RunContext } from "./run";
import type { CompactState, ModelRequest, TurnPrompt } from "./hooks";
import type { AssistantMessage, ResultMessage, StopReason } from "./messages";
import { runToolCalls } from "./funnel";
import { UserInterrupt, type UserContentParts, type UserTurn } from "./live";
import { describeError } from "./errors";
import { redactText, secretsOf } from "./redact";
import {
  callModel,
  modelFailure,
  modelLabel,
  requestedModel,
  resolveRunModel,
  RunEnd,
  abortedEnd,
  stopReasonOf,
  streamedText,
  unwrapRunEnd,
} from "./model-call";

/** What an interrupted response says in the conversation, after the text that arrived before the interrupt. */
export const INTERRUPTED_MARKER = "[interrupted by the user]";

/** What a tool call of a response cut by maxTokens gets instead of running. */
function cutCallMessage(run: RunContext, request: ModelRequest): string {
  const limit = request.maxOutputTokens ?? run.options.maxTokens;
  return (
    `Not run: the response was cut at the output limit${limit !== undefined ? ` (maxTokens: ${limit})` : ""} while its tool calls were being written, ` +
    "so their input may be incomplete. Make the call again in a shorter response (split large content over several calls)."
  );
}

function maxTurnsReached(run: RunContext): RunEnd {
  return new RunEnd(
    `Reached the maximum number of turns (${run.options.maxTurns}); raise maxTurns (--max-turns on the command line) to let the run go on`,
    "error_max_turns",
  );
}

/** What the provider counted for the last turn's request, and the history it was counted for. */
type SentRecord = NonNullable<CompactState["reported"]> & { history: ModelMessage[] };

function userModelMessage(prompt: TurnPrompt): ModelMessage {
  if (prompt.context.length === 0) return { role: "user", content: prompt.content ?? prompt.text };
  return {
    role: "user",
    content: [
      ...prompt.context.map((text) => ({ type: "text" as const, text })),
      ...(prompt.content ?? [{ type: "text" as const, text: prompt.text }]),
    ],
  };
}

const partsOf = (content: UserContent): UserContentParts =>
  typeof content === "string" ? [{ type: "text", text: content }] : content;

/** How a stretch of work ended: what its `result` says. */
type Outcome = Pick<ResultMessage, "subtype" | "result" | "stopReason">;

/** Emit user messages and put them in the conversation, through `turn.prompt` (a blocked one ends the work). */
async function enter(run: RunContext, turns: UserTurn[], source: TurnPrompt["source"]): Promise<void> {
  for (const turn of turns) {
    const content = turn.content ? { content: turn.content } : {};
    run.emit({ type: "user", text: turn.text, ...content });
    const prompt = await run.kernel.hooks.turn.prompt.promise(
      { text: turn.text, source, context: [], ...content },
      run,
    );
    if (prompt.blocked) throw new RunEnd(`Prompt blocked: ${prompt.blocked}`);
    const message = userModelMessage(prompt);
    const last = run.history.at(-1);
    // Two user messages in a row (one left unanswered by an interrupt) become one, as a replay merges them.
    if (last?.role !== "user") run.history.push(message);
    else
      run.history[run.history.length - 1] = {
        role: "user",
        content: [...partsOf(last.content), ...partsOf(message.content as UserContent)],
      };
  }
}

/**
 * An interrupted stretch stays in the conversation as interrupted: its prompt, the text that
 * streamed before the interrupt and the marker, as one assistant message (emitted, so the
 * transcript keeps it too). The prompt is then answered, so it is never sent again as a new one.
 * A stretch whose last response was whole (the interrupt came after it) needs nothing.
 */
function keepInterrupted(run: RunContext): void {
  const partial = streamedText.get(run)?.trimEnd();
  if (!["user", "tool"].includes(run.history.at(-1)?.role ?? "")) return;
  const text = partial ? `${partial}\n\n${INTERRUPTED_MARKER}` : INTERRUPTED_MARKER;
  run.emit({
    type: "assistant",
    text,
    content: [{ type: "text", text }],
    model: run.modelLabel ?? "",
    stopReason: "other",
    interrupted: true,
  });
  run.history.push({ role: "assistant", content: [{ type: "text", text }] });
}

/** The `RunEnd` (or other error) a run or stretch ended with, as its outcome. */
function failure(run: RunContext, thrown: unknown): Outcome {
  // A tap may end the run with a RunEnd of its own (e.g. a stored session that cannot be found): its words stand.
  const error = unwrapRunEnd(thrown);
  if (!(error instanceof RunEnd)) run.logger.debug("run failed:", error);
  return {
    subtype: error instanceof RunEnd ? error.subtype : "error_during_execution",
    result: redactText(describeError(error), secretsOf(run.options)),
    stopReason: null,
  };
}

/**
 * Drive one run to its end. Emits `system/init` first and `result` last (also on failure)
 * through `run.emit`, and returns the result. With live input (`run.input`), the run is a
 * session: each stretch of work (the messages waiting when it began, and those queued at its
 * turn boundaries) ends in a `result`, the last of which is the stream's last message.
 */
export async function driveRun(
  run: RunContext,
  prompt?: string | UserTurn,
  pre?: { error?: unknown },
): Promise<ResultMessage> {
  const started = performance.now();
  const hooks = run.kernel.hooks;
  const requested = requestedModel(run.options);
  let initSent = false;
  const sendInit = () => {
    if (initSent) return;
    initSent = true;
    const label = typeof requested === "string" ? requested : requested && modelLabel(requested, run.kernel);
    run.emit(initMessage(run, run.modelLabel ?? label ?? null));
  };

  let outcome: Outcome = { subtype: "success", result: "", stopReason: null };
  let from = started;
  // The result of the last stretch when the input ended after it (the session's last message).
  let last: ResultMessage | undefined;
  // Until the first stretch of work begins, a failure is the run's set-up (no model, an unknown
  // session or provider): nothing was asked of the model, and the result says so.
  let settingUp = true;
  try {
    if (pre?.error) throw pre.error;
    if (!run.parent) await run.kernel.ready();
    let modelError: unknown;
    await resolveRunModel(run).catch((error: unknown) => void (modelError = error));
    run.tools = await hooks.tool.list.promise(run.kernel.registries.tools.values(), run);
    await hooks.session.start.promise(run);
    sendInit();
    // A resumed session's stored model counts (the sessions plugin sets it at session.start).
    if (requested === undefined && run.model === undefined) {
      throw new RunEnd(
        'No model configured: set options.model (e.g. model: "openai:gpt-5", or "test" for the offline model) or the UBIQUITY_MODEL environment variable',
      );
    }
    if (modelError) throw modelError;
    settingUp = false;

    const base = run.abortSignal;
    const sent: { record?: SentRecord } = {};
    let turns =
      prompt === undefined
        ? ((await run.input?.next()) ?? [])
        : [typeof prompt === "string" ? { text: prompt } : prompt];
    while (turns.length > 0) {
      // A live session's results time their own stretch; a prompt's, the whole run.
      if (prompt === undefined) from = performance.now();
      last = undefined;
      outcome = await work(run, turns, sent);
      // The input ended with this stretch: its result is the session's last.
      if (base.aborted || !run.input || (run.input.ended && run.input.failure === undefined)) break;
      last = run.emit(
        resultMessage(run, { ...outcome, durationMs: Math.round(performance.now() - from) }),
      ) as ResultMessage;
      turns = await run.input.next();
    }
    // A broken input (it threw, or yielded a non-message) ends the session with a result naming it.
    if (run.input?.failure !== undefined && !base.aborted)
      throw new RunEnd(`The session's input failed: ${describeError(run.input.failure)}`);
  } catch (thrown) {
    sendInit();
    last = undefined;
    outcome = failure(run, thrown);
    if (settingUp && outcome.subtype === "error_during_execution") outcome.subtype = "error_configuration";
  }
  const durationMs = Math.round(performance.now() - from);
  // A message that came after the last stretch's result while the session was idle (a background
  // task ended, say) would end the stream: a result closes it again, so the last message is one.
  const closed = last !== undefined && lastEmitted(run) === last ? last : undefined;
  const result =
    closed ??
    (run.emit(resultMessage(run, { ...outcome, durationMs: last?.durationMs ?? durationMs })) as ResultMessage);
  endStream(run);
  try {
    await hooks.session.end.promise(run, result);
  } catch (error) {
    run.logger.error("session.end failed:", describeError(error));
  }
  return result;
}

/** One stretch of work: `turns` enter, and the model works until it stops (or maxTurns, an error, an interrupt). */
async function work(run: RunContext, turns: UserTurn[], sent: { record?: SentRecord }): Promise<Outcome> {
  const hooks = run.kernel.hooks;
  const base = run.abortSignal;
  const firstTurn = run.numTurns;
  run.abortSignal = run.input?.begin(base) ?? base;
  let finalText = "";
  let stopReason: StopReason | null = null;
  try {
    await enter(run, turns, "user");
    let continuations = 0;
    for (;;) {
      if (run.abortSignal.aborted) throw abortedEnd(run);
      if (run.interrupted) throw new RunEnd(`Run interrupted: ${run.interrupted}`);
      if (run.numTurns - firstTurn >= run.options.maxTurns) throw maxTurnsReached(run);
      if (run.numTurns > 0) run.tools = await hooks.tool.list.promise(run.kernel.registries.tools.values(), run);
      const sections = await hooks.turn.system.promise([], run);
      const last = sent.record;
      const reported =
        last?.history === run.history ? { inputTokens: last.inputTokens, messages: last.messages } : undefined;
      const state = { messages: run.history, reported, changed: false, compactions: [] };
      const compact = await hooks.context.compact.promise(state, run);
      if (compact.changed) run.history = compact.messages;
      for (const info of compact.compactions ?? []) await hooks.context.compacted.promise(info, run);
      const sentLength = run.history.length;
      const step = await callModel(run, {
        model: run.model!,
        modelLabel: run.modelLabel!,
        instructions: sections
          .map((s) => s.text)
          .filter(Boolean)
          .join("\n\n"),
        messages: run.history,
        toolList: run.tools,
        maxOutputTokens: run.options.maxTokens,
        temperature: run.options.temperature,
        providerOptions: run.options.providerOptions,
      }).catch((error: unknown) => {
        throw modelFailure(run, error);
      });
      run.numTurns++;
      const { usage, modelLabel: answered } = step.response;
      // A response without usage keeps the last reported count (what was added since is estimated on top).
      if (usage.inputTokens > 0 || !last || last.history !== run.history)
        sent.record = { inputTokens: usage.inputTokens, messages: sentLength, history: run.history };
      stopReason = stopReasonOf(step.response.finishReason);
      const assistant = run.emit({
        type: "assistant",
        text: step.text,
        content: step.content,
        model: answered,
        stopReason,
        usage,
      }) as AssistantMessage;
      if (step.text) finalText = step.text;
      run.history.push(...step.assistant);
      streamedText.delete(run); // the response is whole: an interrupt from now on keeps none of it
      if (stopReason === "max_tokens") {
        run.logger.warn(
          `[ubiquity] the response of ${answered} was cut at the output limit (maxTokens: ${step.request.maxOutputTokens ?? "the provider's default"}); its text is incomplete`,
        );
      }

      if (step.calls.length > 0) {
        const byName = new Map(run.tools.map((t) => [t.name, t] as const));
        // A cut response's calls may carry half an input: none of them runs, each is answered.
        const cut = stopReason === "max_tokens" ? cutCallMessage(run, step.request) : undefined;
        const calls = step.calls.map((c) => ({ ...c, refusal: cut, model: answered }));
        const outcomes = await runToolCalls(run, byName, calls);
        // usage.toolCalls counts in the funnel; the model's requests were counted by callModel
        run.history.push({ role: "tool", content: outcomes.map((o) => o.part) });
        await hooks.turn.end.promise(
          { turn: run.numTurns, assistant, toolResults: outcomes.map((o) => o.message) },
          run,
        );
        if (run.finished) break;
        // A turn boundary: messages queued meanwhile enter now (after an interrupt, the next stretch takes them).
        if (!run.abortSignal.aborted) await enter(run, run.input?.take() ?? [], "user");
        continue;
      }
      await hooks.turn.end.promise({ turn: run.numTurns, assistant, toolResults: [] }, run);
      const decision = await hooks.turn.stop.promise({ text: step.text, continuations }, run);
      if (!decision) break;
      // No turn left to answer it: the continuation prompt is neither emitted nor saved.
      if (run.numTurns - firstTurn >= run.options.maxTurns) throw maxTurnsReached(run);
      continuations++;
      await enter(run, [{ text: decision.continueWith }], "stop");
    }
    return { subtype: "success", result: finalText, stopReason };
  } catch (thrown) {
    const interrupted = run.abortSignal.reason instanceof UserInterrupt && !base.aborted;
    if (interrupted) keepInterrupted(run);
    return interrupted
      ? { subtype: "error_during_execution", result: run.abortSignal.reason.message, stopReason }
      : { ...failure(run, thrown), stopReason };
  } finally {
    streamedText.delete(run);
    run.abortSignal = base;
    // A live session goes on with the next message (a subagent's caller reads them after it ends).
    if (run.input) run.finished = run.interrupted = undefined;
  }
}
