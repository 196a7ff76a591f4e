import { APICallError, type LanguageModelV4, type LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { offlineModel, type OfflineStep } from "./model-base";

/** One scripted response: plain text, or text/reasoning/tool calls/usage, or an HTTP-shaped failure. */
export type ScriptedTurn =
  | string
  | (OfflineStep & {
      /** Fail this call with an HTTP-shaped API error instead of answering. */
      error?: { status: number; message?: string; headers?: Record<string, string>; body?: string } | undefined;
    });

/** A script: a list of turns played in order, or a function choosing the turn for each call. */
export type Script = ScriptedTurn[] | ((call: { index: number; request: LanguageModelV4CallOptions }) => ScriptedTurn);

/** The scripted model: a real LanguageModelV4 that also records every request it received. */
export interface ScriptedModel extends LanguageModelV4 {
  /** Every call's options, in order (prompt, tools, settings). */
  readonly requests: LanguageModelV4CallOptions[];
  /** How many turns of a list script were played. */
  readonly played: number;
}

/**
 * A `LanguageModelV4` that replays scripted turns: streams deltas, reports usage (with cached
 * tokens when scripted), can fail with HTTP errors, and records the requests it received.
 * The one test double Ubiquity uses: it stands in for the LLM, nothing else.
 */
export function scriptedModel(script: Script, options: { provider?: string; modelId?: string } = {}): ScriptedModel {
  const requests: LanguageModelV4CallOptions[] = [];
  let played = 0;
  const model = offlineModel(options.provider ?? "scripted", options.modelId ?? "scripted", (request, index) => {
    requests.push(request);
    let turn: ScriptedTurn | undefined;
    if (typeof script === "function") turn = script({ index, request });
    else {
      turn = script[played];
      if (turn === undefined) {
        throw new Error(
          `scriptedModel: the script has ${script.length} ${script.length === 1 ? "turn" : "turns"} and call #${index + 1} asked for another: add a turn for it (model.requests[${index}] is what the run sent)`,
        );
      }
      played++;
    }
    const step: ScriptedTurn = typeof turn === "string" ? { text: turn } : turn;
    if (step.error) {
      throw new APICallError({
        message: step.error.message ?? `HTTP ${step.error.status}`,
        url: "scripted://model",
        requestBodyValues: {},
        statusCode: step.error.status,
        responseHeaders: step.error.headers,
        responseBody: step.error.body,
        isRetryable: [408, 429, 500, 502, 503, 504, 529].includes(step.error.status),
      });
    }
    return step;
  });
  return Object.defineProperties(model, {
    requests: { get: () => requests, enumerable: true },
    played: { get: () => played, enumerable: true },
  }) as ScriptedModel;
}
