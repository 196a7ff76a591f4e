/**
 * The summary call: `compactModel` (or the run's model), made through the kernel's one
 * model-call path (`callModel`, purpose `compact`): `model.request`, the same time limits as
 * every model call (`requestTimeoutMs`, `streamIdleTimeoutMs`, the output bound), `model.error`
 * (retry, fallback), the run's usage ledger and `model.response` (pricing). Its tokens are the
 * run's tokens and its cost is the run's cost — housekeeping is never spent invisibly.
 */
import type { LanguageModel, ModelMessage } from "ai";
import { callModel, modelLabel, UbiquityError, type RunContext } from "../../src/index";
import { renderTranscript } from "./transcript";
import { summarizerInstructions, summaryRequest } from "./prompt";

type Model = Exclude<LanguageModel, string>;

/** A summary that came back empty: nothing to replace the history with. */
export class EmptySummaryError extends UbiquityError {
  override name = "EmptySummaryError";
}

/** Summarize `head` with `model`; charges the call to `run`. Resolves to the summary text. */
export async function writeSummary(
  run: RunContext,
  model: Model,
  head: readonly ModelMessage[],
  maxOutputTokens: number,
): Promise<string> {
  const { compactInstructions } = run.options; // validated by this plugin's slice: a string or unset
  const instructions = summarizerInstructions(
    typeof compactInstructions === "string" ? compactInstructions : undefined,
  );
  const messages: ModelMessage[] = [summaryRequest(renderTranscript(head))];
  const { response } = await callModel(
    run,
    { model, modelLabel: modelLabel(model, run.kernel), instructions, messages, maxOutputTokens },
    { purpose: "compact" },
  );
  if (!response.text.trim()) {
    throw new EmptySummaryError(
      `the summarizer (${response.modelLabel}) returned no text (finish reason: ${response.finishReason}); set compactModel to a model that writes summaries`,
    );
  }
  return response.text;
}
