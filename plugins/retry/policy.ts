/**
 * The retry policy, as pure functions: which statuses are worth another attempt, how long a
 * server asked us to wait, and the backoff when it did not say.
 */

/** Statuses retried: timeouts, rate limits, server errors and Anthropic's 529 (overloaded). Never 400 or other 4xx. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504, 529]);

/** The first backoff ceiling; it doubles per attempt up to `retryMaxWaitMs`. */
export const BASE_DELAY_MS = 500;

/** Default `maxRetries`. */
export const DEFAULT_MAX_RETRIES = 3;
/** Default `retryMaxWaitMs`. */
export const DEFAULT_MAX_WAIT_MS = 60_000;

/**
 * How long the response asks us to wait, in ms: `Retry-After` as seconds or as an HTTP date
 * (`retry-after-ms`, which OpenAI and Anthropic send, is more precise and read first).
 * Undefined when the response names no usable wait.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Exponential backoff with full jitter: a uniform draw below the ceiling rather than the ceiling
 * itself, because concurrent runs backing off by the same amount rebuild the burst that limited them.
 */
export function backoffMs(attempt: number, capMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, BASE_DELAY_MS * 2 ** attempt);
  return Math.floor(random() * ceiling);
}
