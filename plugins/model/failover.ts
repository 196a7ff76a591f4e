/**
 * Which failures the fallback model answers: a provider API error (an HTTP status) or a failure
 * to reach the provider at all. Everything else — a bad setting, a malformed stream, a bug — would
 * fail the same way on any backend, so it does not fail over.
 */
import { APICallError } from "@ai-sdk/provider";
import { StreamProviderError } from "ai";

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  // A call cut by requestTimeoutMs / streamIdleTimeoutMs / the output bound (src/call-limits.ts).
  "UBIQUITY_MODEL_TIMEOUT",
  // A 200 that is not the stream asked for (stream-check.ts).
  "UBIQUITY_NOT_A_STREAM",
]);

/**
 * True when `error` (or anything in its cause chain) is a connection or timeout failure, or an
 * answer that broke off or was not a stream: failures another attempt may not meet.
 */
export function isConnectionError(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 6;
    depth++
  ) {
    if (typeof e.code === "string" && CONNECTION_CODES.has(e.code)) return true;
    if (e.name === "TimeoutError" || e.name === "ConnectTimeoutError") return true;
    if (e.name === "TypeError" && e.message === "fetch failed") return true;
    e = e.cause as typeof e;
  }
  return false;
}

/**
 * True for an error the provider reported inside a stream it had started with HTTP 200, where the
 * AI SDK reads it as one another attempt may not meet: Anthropic's `overloaded_error` and
 * `api_error` events (529, 500), a gateway's 5xx in an SSE `error` event. The transport saw a 200,
 * so only a retry of the whole call can send it again.
 */
export function isRetryableStreamError(error: unknown): boolean {
  return StreamProviderError.isInstance(error) && error.isRetryable;
}

/** True for a provider API error with an HTTP status (in a stream's error event too), or a connection failure. */
export function isProviderFailure(error: unknown): boolean {
  if (StreamProviderError.isInstance(error) && (error.isRetryable || typeof error.statusCode === "number")) return true;
  // isInstance checks a global marker, so it holds across the several copies of @ai-sdk/provider.
  if (APICallError.isInstance(error)) {
    if (typeof error.statusCode === "number") return true;
    // The AI SDK wraps a fetch that never got a response as "Cannot connect to API: <cause>".
    if (/^Cannot connect to API/.test(error.message)) return true;
  }
  return isConnectionError(error);
}
