/**
 * The retrying fetch: it sits under the provider's SDK, the one layer where both the status
 * code and `Retry-After` are visible, and it resends one HTTP request instead of replaying a turn.
 */
import { restartRequestTimer, type Logger } from "../../src/index";
import { isConnectionError } from "../model/api";
import { backoffMs, retryAfterMs, RETRY_STATUSES } from "./policy";
import { sleep } from "./sleep";

/** How one provider's fetch retries. */
export interface RetryConfig {
  /** Retries after the first attempt (so `maxRetries + 1` attempts at most). */
  maxRetries: number;
  /** Cap of any wait; a `Retry-After` above it ends the retries. */
  maxWaitMs: number;
  logger: Logger;
  /** Named in log lines. */
  provider: string;
  /** For tests that pin the jitter. */
  random?: () => number;
}

type Fetch = typeof globalThis.fetch;

function isStreamBody(body: unknown): boolean {
  return typeof body === "object" && body !== null && typeof (body as ReadableStream).getReader === "function";
}

/** `METHOD origin/path`, never the query string (some APIs put keys there) nor headers. */
function target(input: Parameters<Fetch>[0], init: RequestInit | undefined): string {
  const raw = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const method = init?.method ?? (input instanceof Request ? input.method : "GET");
  try {
    const url = new URL(raw);
    return `${method} ${url.origin}${url.pathname}`;
  } catch {
    return method;
  }
}

/** Wrap `next` so retryable statuses and connection failures are tried again under `config`. */
export function retryingFetch(next: Fetch, config: RetryConfig): Fetch {
  const { maxRetries, maxWaitMs, logger, provider } = config;
  const log = (message: string) => logger.debug(`[ubiquity:retry] ${provider} ${message}`);
  const retrying = async (input: Parameters<Fetch>[0], init?: RequestInit): Promise<Response> => {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const where = target(input, init);
    const total = maxRetries + 1;
    // A streamed body is consumed by the first attempt; resending it would send a truncated request.
    if (isStreamBody(init?.body) || (input instanceof Request && input.body !== null)) {
      log(`${where}: request body is a stream; sent once, not retried`);
      return next(input, init);
    }
    for (let attempt = 0; ; attempt++) {
      const label = `${where} attempt ${attempt + 1}/${total}`;
      // requestTimeoutMs bounds each attempt, not the waits between them.
      if (attempt > 0) restartRequestTimer(signal);
      let response: Response;
      try {
        response = await next(input, init);
      } catch (error) {
        if (signal?.aborted || !isConnectionError(error)) throw error;
        if (attempt >= maxRetries) {
          log(`${label}: ${describe(error)}; no retries left`);
          throw error;
        }
        const wait = backoffMs(attempt, maxWaitMs, config.random);
        log(`${label}: ${describe(error)}; retrying in ${wait} ms`);
        await sleep(wait, signal);
        continue;
      }
      if (!RETRY_STATUSES.has(response.status)) {
        log(`${label}: HTTP ${response.status}`);
        return response;
      }
      if (attempt >= maxRetries) {
        log(`${label}: HTTP ${response.status}; no retries left`);
        return response;
      }
      const asked = retryAfterMs(response.headers);
      if (asked !== undefined && asked > maxWaitMs) {
        // Sleeping for the cap only to ask again spends an attempt to be refused on the same grounds.
        log(
          `${label}: HTTP ${response.status}; Retry-After ${asked} ms exceeds retryMaxWaitMs (${maxWaitMs} ms), returning the response`,
        );
        return response;
      }
      const wait = asked ?? backoffMs(attempt, maxWaitMs, config.random);
      log(`${label}: HTTP ${response.status}; retrying in ${wait} ms${asked !== undefined ? " (Retry-After)" : ""}`);
      await response.body?.cancel().catch(() => undefined);
      await sleep(wait, signal);
    }
  };
  return retrying as Fetch;
}

function describe(error: unknown): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `${e?.message ?? String(error)}${cause ? ` (${cause})` : ""}`;
}
