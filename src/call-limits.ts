/**
 * Time and size limits on one model call, enforced around the stream the loop reads, so they
 * hold for every model (built from a string, `openaiCompatible()`, or constructed by the user):
 * - `requestTimeoutMs`: from sending the request to the first part of the answer;
 * - `streamIdleTimeoutMs`: the longest silence between two parts once the answer has started;
 * - the output bound: a stream that keeps sending past twice `maxTokens` (a server ignoring the
 *   limit, or one that never ends) is cut.
 * Hitting one aborts the call with a `ModelTimeoutError`, which the retry plugin retries and the
 * fallback model answers like any failure to reach the provider.
 */
import { UbiquityError } from "./errors";
import { CHARS_PER_TOKEN } from "./tokens";

/** Default `requestTimeoutMs` and `streamIdleTimeoutMs`. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;
/** The output bound when `maxTokens` is unset: above any model's real output cap. */
export const DEFAULT_OUTPUT_BOUND_TOKENS = 256_000;

/** Which limit a call hit. */
export type CallLimit = "requestTimeoutMs" | "streamIdleTimeoutMs" | "maxTokens";

/** A model call cut by one of its limits; the message names the limit and how long the call ran. */
export class ModelTimeoutError extends UbiquityError {
  override name = "ModelTimeoutError";
  /** Read by the retry and fallback checks (a connection-class failure). */
  readonly code = "UBIQUITY_MODEL_TIMEOUT";
  constructor(
    message: string,
    readonly limit: CallLimit,
    readonly elapsedMs: number,
  ) {
    super(message);
  }
}

/** The limits of one call. */
export interface CallLimitOptions {
  requestTimeoutMs?: number;
  streamIdleTimeoutMs?: number;
  maxTokens?: number;
  /** Named in messages (`openai:gpt-5`). */
  label: string;
}

// The watch of each call, by the signal handed to the model: the transport finds it through the
// fetch's signal and restarts the request timer for each attempt it makes after a wait.
const watches = new WeakMap<AbortSignal, CallWatch>();

/**
 * A transport is about to send another attempt of a request (after a retry wait): the time to
 * the first part counts from now, so `requestTimeoutMs` bounds each attempt, not their sum.
 * A no-op for a signal that is not a watched call's.
 */
export function restartRequestTimer(signal: AbortSignal | null | undefined): void {
  if (signal) watches.get(signal)?.restart();
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** Watches one call: `signal` aborts when a limit is hit, `error` then says which. */
export class CallWatch {
  readonly #controller = new AbortController();
  readonly #started = performance.now();
  readonly #request: number;
  readonly #idle: number;
  readonly #boundChars: number;
  readonly #boundTokens: number;
  readonly #usesMaxTokens: boolean;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #chars = 0;
  #answered = false;
  /** Set when a limit was hit. */
  error: ModelTimeoutError | undefined;

  constructor(private readonly options: CallLimitOptions) {
    this.#request = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#idle = options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
    this.#usesMaxTokens = options.maxTokens !== undefined;
    // Characters / 4 estimates tokens; twice the limit (plus slack) leaves room for the estimate's error.
    this.#boundTokens = options.maxTokens !== undefined ? 2 * options.maxTokens + 256 : DEFAULT_OUTPUT_BOUND_TOKENS;
    this.#boundChars = this.#boundTokens * CHARS_PER_TOKEN;
    this.#armRequest();
  }

  #armRequest() {
    this.#arm(this.#request, () =>
      this.#fail(
        "requestTimeoutMs",
        `no answer from ${this.options.label} within ${seconds(this.#request)} of the request (requestTimeoutMs: ${this.#request}); the server accepted the connection or is unreachable but sent nothing`,
      ),
    );
  }

  /** Aborts when a limit is hit. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Watch `signal` too (the one handed to the model, combining this one with the run's). */
  watch(signal: AbortSignal): AbortSignal {
    watches.set(signal, this);
    return signal;
  }

  /** Restart the request timer (a new attempt); nothing once the answer has started. */
  restart(): void {
    if (this.error || this.#answered) return;
    this.#armRequest();
  }

  /** Milliseconds since the request was sent. */
  get elapsedMs(): number {
    return Math.round(performance.now() - this.#started);
  }

  /** A part of the answer arrived; `chars` of output in it count toward the bound. */
  part(chars = 0): void {
    if (this.error) return;
    this.#answered = true;
    this.#chars += chars;
    if (this.#chars > this.#boundChars) {
      const limit = this.#usesMaxTokens ? `maxTokens: ${this.options.maxTokens}, cut at twice that plus 256` : `no maxTokens set, cut at ${this.#boundTokens} tokens`;
      this.#fail(
        "maxTokens",
        `the stream from ${this.options.label} sent about ${Math.round(this.#chars / CHARS_PER_TOKEN)} tokens in ${seconds(this.elapsedMs)} without finishing (${limit}); the server ignores the output limit or never ends the stream`,
      );
      return;
    }
    this.#arm(this.#idle, () =>
      this.#fail(
        "streamIdleTimeoutMs",
        `the stream from ${this.options.label} went silent for ${seconds(this.#idle)} (streamIdleTimeoutMs: ${this.#idle}) after ${seconds(this.elapsedMs - this.#idle)} of answer`,
      ),
    );
  }

  /** Stop the timers (the call ended). */
  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number, onFire: () => void) {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = Number.isFinite(ms) && ms > 0 ? setTimeout(onFire, ms) : undefined;
  }

  #fail(limit: CallLimit, message: string) {
    if (this.error) return;
    this.dispose();
    this.error = new ModelTimeoutError(message, limit, this.elapsedMs);
    this.#controller.abort(this.error);
  }
}
