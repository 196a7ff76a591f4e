/**
 * Retries of a whole model call, on `model.error`, for what the retrying fetch cannot see: a call
 * cut by a time limit, an answer that broke off after its headers (a reset mid-stream, an empty
 * body, an overload or server error the provider reported inside the stream), and — for models whose requests do not go through the run's fetch (a constructed model
 * the kernel cannot rewire) — the same statuses the transport retries, with the same
 * `Retry-After` rules. Runs before the fallback model takes over.
 */
import { APICallError } from "@ai-sdk/provider";
import type { ModelErrorInfo, ModelRecovery, RunContext } from "../../src/index";
import { getModelApi, isConnectionError, isRetryableStreamError } from "../model/api";
import { backoffMs, DEFAULT_MAX_RETRIES, DEFAULT_MAX_WAIT_MS, retryAfterMs, RETRY_STATUSES } from "./policy";
import { sleep } from "./sleep";
import type { RetryResolvedOptions } from "./options";

/** Failures that happen after the transport handed the response over: never retried by it. */
function afterHeaders(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; statusCode?: unknown; phase?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 6;
    depth++
  ) {
    if (e.code === "UBIQUITY_MODEL_TIMEOUT") return true;
    // A 200 that was no stream is seen at the headers by the fetch (which retried it: retrying it
    // here too sent it (maxRetries + 1)² times); an empty body only while the body was read.
    if (e.code === "UBIQUITY_NOT_A_STREAM") return e.phase === "body";
    // The provider's "Failed to process successful response": the body broke while being read.
    if (typeof e.statusCode === "number" && e.statusCode >= 200 && e.statusCode < 300)
      return isConnectionError(e.cause ?? e);
    e = e.cause as typeof e;
  }
  return false;
}

function headersOf(error: unknown): Headers | undefined {
  if (!APICallError.isInstance(error) || !error.responseHeaders) return undefined;
  return new Headers(error.responseHeaders);
}

/** How long to wait before the next attempt, or undefined when this failure is not retried here. */
export function callRetryWait(
  error: unknown,
  wrapped: boolean,
  attempt: number,
  maxWaitMs: number,
  random?: () => number,
): number | undefined {
  const backoff = () => backoffMs(attempt, maxWaitMs, random);
  // A stream that started and then reported an overload or a server error (Anthropic's
  // `overloaded_error` event after a 200): the transport saw only the 200.
  if (afterHeaders(error) || isRetryableStreamError(error)) return backoff();
  // The retrying fetch already spent the budget on everything else it could see.
  if (wrapped) return undefined;
  if (APICallError.isInstance(error) && typeof error.statusCode === "number") {
    if (!RETRY_STATUSES.has(error.statusCode)) return undefined;
    const headers = headersOf(error);
    const asked = headers ? retryAfterMs(headers) : undefined;
    if (asked !== undefined && asked > maxWaitMs) return undefined;
    return asked ?? backoff();
  }
  return isConnectionError(error) ? backoff() : undefined;
}

/** What a run keeps of its call retries: the attempts at its current model call and model. */
export interface CallRetryState {
  attempts?: { key: string; count: number };
}

/** The `model.error` tap: another attempt with the same request, after a wait. `stateOf` is the plugin's per-run state. */
export function callRetry(
  kernel: RunContext["kernel"],
  name: string,
  stateOf: (run: RunContext) => CallRetryState,
  optionsOf: (run: RunContext) => RetryResolvedOptions,
) {
  return async (info: ModelErrorInfo, run: RunContext): Promise<ModelRecovery | undefined> => {
    const maxRetries = optionsOf(run).maxRetries ?? DEFAULT_MAX_RETRIES;
    if (maxRetries === 0) return undefined;
    const key = `${info.request.call}\u0000${info.request.modelLabel}`;
    const own = stateOf(run);
    if (own.attempts?.key !== key) own.attempts = { key, count: 0 };
    const state = own.attempts;
    if (state.count >= maxRetries) return undefined;
    const maxWaitMs = optionsOf(run).retryMaxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    const wait = callRetryWait(info.error, getModelApi(kernel).isWrapped(info.request.model), state.count, maxWaitMs);
    if (wait === undefined) return undefined;
    state.count++;
    const message = info.error instanceof Error ? info.error.message : String(info.error);
    run.logger.debug(
      `[${name}] ${info.request.modelLabel} call attempt ${state.count}/${maxRetries + 1} failed: ${message}; retrying in ${wait} ms`,
    );
    // An abort during the wait ends the run the usual way (the loop reports "Run aborted.").
    const slept = await sleep(wait, run.abortSignal).then(
      () => true,
      () => false,
    );
    return slept ? { retry: true } : undefined;
  };
}
