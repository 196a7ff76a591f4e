/**
 * The summary call: `compactModel` (or the run's model), streamed through the AI SDK's
 * `streamText` under the same time limits as every model call (`requestTimeoutMs`,
 * `streamIdleTimeoutMs`, the output bound), so a silent compact model cannot hang the run.
 * Its tokens are the run's tokens and its cost is the run's cost — housekeeping is never spent
 * invisibly — so its usage is added to the run and offered to `model.response` under its own
 * label, where the pricing plugin prices every response against the model that served it.
 */
import { streamText, type LanguageModel, type ModelMessage } from "ai";
import { addUsage, CallWatch, emptyUsage, modelLabel, UbiquityError, type ModelRequest, type ModelResponse, type RunContext, type Usage } from "../../src/index";
import { renderTranscript } from "./transcript";
import { summarizerInstructions, summaryRequest } from "./prompt";
import type { SummarizeCompactionResolvedOptions } from "./options";

type Model = Exclude<LanguageModel, string>;

/** A summary that came back empty: nothing to replace the history with. */
export class EmptySummaryError extends UbiquityError {
  override name = "EmptySummaryError";
}

/** Summarize `head` with `model`; charges the call to `run`. Resolves to the summary text. */
export async function writeSummary(run: RunContext, model: Model, head: readonly ModelMessage[], maxOutputTokens: number): Promise<string> {
  const label = modelLabel(model);
  const instructions = summarizerInstructions((run.options as SummarizeCompactionResolvedOptions).compactInstructions);
  const messages: ModelMessage[] = [summaryRequest(renderTranscript(head))];
  const result = await summaryCall(run, model, label, instructions, messages, maxOutputTokens);
  const usage: Usage = Object.assign(emptyUsage(), {
    inputTokens: result.usage.inputTokens ?? 0,
    outputTokens: result.usage.outputTokens ?? 0,
    cacheReadTokens: result.usage.inputTokenDetails?.cacheReadTokens ?? 0,
    cacheWriteTokens: result.usage.inputTokenDetails?.cacheWriteTokens ?? 0,
    requests: 1,
  });
  addUsage(run.usage, usage);
  addUsage((run.modelUsage[label] ??= emptyUsage()), usage);
  const request: ModelRequest = { model, modelLabel: label, instructions, messages, tools: {}, toolList: [], maxOutputTokens, call: run.usage.requests };
  const response: ModelResponse = {
    request,
    modelLabel: label,
    usage,
    text: result.text,
    finishReason: result.finishReason,
    providerMetadata: result.providerMetadata as Record<string, unknown> | undefined,
  };
  await run.kernel.hooks.model.response.promise(response, run);
  if (!result.text.trim()) {
    throw new EmptySummaryError(`the summarizer (${label}) returned no text (finish reason: ${result.finishReason}); set compactModel to a model that writes summaries`);
  }
  return result.text;
}

/** One summary call, streamed under the run's call limits; resolves to its text, usage and finish. */
async function summaryCall(run: RunContext, model: Model, label: string, instructions: string, messages: ModelMessage[], maxOutputTokens: number) {
  const watch = new CallWatch({ requestTimeoutMs: run.options.requestTimeoutMs, streamIdleTimeoutMs: run.options.streamIdleTimeoutMs, maxTokens: maxOutputTokens, label });
  let streamError: unknown;
  try {
    const result = streamText({
      model,
      instructions,
      messages,
      maxOutputTokens,
      maxRetries: 0, // retries belong to the transport (ubiquity:retry), never stacked
      abortSignal: watch.watch(AbortSignal.any([run.abortSignal, watch.signal])),
      onError: ({ error }) => {
        streamError ??= error;
      },
    });
    let text = "";
    for await (const part of result.fullStream) {
      if (part.type === "start" || part.type === "start-step") continue;
      watch.part(part.type === "text-delta" || part.type === "reasoning-delta" ? part.text.length : 0);
      if (watch.error) throw watch.error;
      if (part.type === "text-delta") text += part.text;
      else if (part.type === "error") throw part.error;
    }
    if (watch.error) throw watch.error;
    if (streamError) throw streamError;
    return { text, usage: await result.usage, finishReason: await result.finishReason, providerMetadata: await result.providerMetadata };
  } catch (error) {
    throw watch.error ?? error;
  } finally {
    watch.dispose();
  }
}
