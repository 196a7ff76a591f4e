/**
 * The summary call: `compactModel` (or the run's model) through the AI SDK's `generateText`.
 * Its tokens are the run's tokens and its cost is the run's cost — housekeeping is never spent
 * invisibly — so its usage is added to the run and offered to `model.response` under its own
 * label, where the pricing plugin prices every response against the model that served it.
 */
import { generateText, type LanguageModel, type ModelMessage } from "ai";
import { addUsage, emptyUsage, modelLabel, UbiquityError, type ModelRequest, type ModelResponse, type RunContext, type Usage } from "../../src/index";
import { renderTranscript } from "./transcript";
import { summarizerInstructions, summaryRequest } from "./prompt";

type Model = Exclude<LanguageModel, string>;

/** A summary that came back empty: nothing to replace the history with. */
export class EmptySummaryError extends UbiquityError {
  override name = "EmptySummaryError";
}

/** Summarize `head` with `model`; charges the call to `run`. Resolves to the summary text. */
export async function writeSummary(run: RunContext, model: Model, head: readonly ModelMessage[], maxOutputTokens: number): Promise<string> {
  const label = modelLabel(model);
  const instructions = summarizerInstructions(run.options.compactInstructions);
  const messages: ModelMessage[] = [summaryRequest(renderTranscript(head))];
  const result = await generateText({
    model,
    instructions,
    messages,
    maxOutputTokens,
    maxRetries: 0, // retries belong to the transport (ubiquity:retry), never stacked
    abortSignal: run.abortSignal,
  });
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
