/**
 * Time and size limits on one model call, enforced around the stream the loop reads, so they
 * hold for every model (built from a string, `openaiCompatible()`, or constructed by the user):
 * - `requestTimeoutMs`: from sending the request to the first part of the answer;
 * - `streamIdleTimeoutMs`: the longest silence once the answer has started, measured on the bytes
 *   received where the transport is the run's fetch (a keep-alive comment is not silence), and on
 *   the parts read otherwise (a constructed model);
 * - `responseTimeoutMs`: the whole answer, from sending the request to its end, so a provider
 *   trickling a character a second cannot hold a run past every other limit;
 * - the output bound: a stream that keeps sending past twice `maxTokens` (a server ignoring the
 *   limit, or one that never ends) is cut.
 * Hitting one aborts the call with a `ModelTimeoutError`, which the retry plugin retries and the
 * fallback model answers like any failure to reach the provider.
 */
import { UbiquityError } from "./errors";
import { CHARS_PER_TOKEN } from "./tokens";
import type { KernelOptions } from "./config/schema";

/** Default `requestTimeoutMs` and `streamIdleTimeoutMs`. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;
/** Default `responseTimeoutMs`: longer than any real answer takes (a long reasoning answer runs minutes). */
export const DEFAULT_RESPONSE_TIMEOUT_MS = 600_000;
/** The output bound when `maxTokens` is unset: above any model's real output cap. */
export const DEFAULT_OUTPUT_BOUND_TOKENS = 256_000;

/** Which limit a call hit. */
export type CallLimit = "requestTimeoutMs" | "streamIdleTimeoutMs" | "responseTimeoutMs" | "maxTokens";

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

/** The limits of one call: the run's time limits, the output limit, the model's label (named in messages) and the run's signal (its abort aborts the call too, with its reason). */
export type CallLimitOptions = Pick<KernelOptions, "requestTimeoutMs" | "streamIdleTimeoutMs" | "responseTimeoutMs"> & {
  maxTokens?: number;
  label: string;
  parent?: AbortSignal;
};

// The watch of each call, on the signal handed to the model: the transport finds it through the
// fetch's signal and restarts the request timer for each attempt it makes after a wait. A
// property of the call's own signal, not a WeakMap entry (one per call, each an ephemeron to GC).
const WATCH = Symbol("ubiquity.callWatch");
type Watched = { [WATCH]?: CallWatch } | null | undefined;

/**
 * A transport is about to send another attempt of a request (after a retry wait): the time to
 * the first part counts from now, so `requestTimeoutMs` (and `responseTimeoutMs`) bound each
 * attempt, not their sum. A no-op for a signal that is not a watched call's.
 */
export function restartRequestTimer(signal: AbortSignal | null | undefined): void {
  (signal as Watched)?.[WATCH]?.restart();
}

/**
 * The transport received `bytes` of a watched call's answer body: the stream is alive, whether or
 * not the bytes make a part (a keep-alive comment, half an event). A no-op for other signals.
 */
export function noteBytesReceived(signal: AbortSignal | null | undefined, bytes: number): void {
  if (bytes > 0) (signal as Watched)?.[WATCH]?.part();
}

/** A duration as messages give it: `0.2 s`, `120 s`. */
export const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/**
 * Watches one call: `signal` aborts when a limit is hit, `error` then says which. One timer per
 * call, not one per limit or per part (the hot path of a stream): it fires at the nearest deadline
 * it knows of, and a part only notes its time; fired early, the timer waits out the rest.
 */
export class CallWatch {
  readonly #controller = new AbortController();
  #started = performance.now();
  readonly #request: number;
  readonly #idle: number;
  readonly #total: number;
  readonly #boundTokens: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the timer fires (performance.now() time). */
  #due = 0;
  #chars = 0;
  /** When the last part arrived; undefined until the answer starts. */
  #lastPart: number | undefined;
  /** Set when a limit was hit. */
  error: ModelTimeoutError | undefined;

  constructor(private readonly options: CallLimitOptions) {
    this.#request = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#idle = options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
    this.#total = options.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS;
    // Characters / 4 estimates tokens; twice the limit (plus slack) leaves room for the estimate's error.
    this.#boundTokens = options.maxTokens !== undefined ? 2 * options.maxTokens + 256 : DEFAULT_OUTPUT_BOUND_TOKENS;
    // The run's abort reaches the call through a listener: AbortSignal.any per call would cost the
    // run's signal a weak reference and two registrations until a GC.
    if (options.parent?.aborted) this.#follow();
    else options.parent?.addEventListener("abort", this.#follow, { once: true });
    Object.defineProperty(this.#controller.signal, WATCH, { value: this });
    this.#arm(this.#started);
  }

  readonly #follow = () => this.#controller.abort(this.options.parent!.reason);

  /** Aborts when a limit is hit or the parent signal aborts; the one to hand the model. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Restart the request timer (a new attempt); nothing once the answer has started. */
  restart(): void {
    if (this.error || this.#lastPart !== undefined) return;
    this.#arm((this.#started = performance.now()));
  }

  /** Milliseconds since the request was sent. */
  get elapsedMs(): number {
    return Math.round(performance.now() - this.#started);
  }

  /** A part of the answer (or, from the transport, bytes of it) arrived; `chars` of output in it count toward the bound. */
  part(chars = 0): void {
    if (this.error) return;
    this.#chars += chars;
    if (this.#chars > this.#boundTokens * CHARS_PER_TOKEN) {
      const limit =
        this.options.maxTokens !== undefined
          ? `maxTokens: ${this.options.maxTokens}, cut at twice that plus 256`
          : `no maxTokens set, cut at ${this.#boundTokens} tokens`;
      this.#fail(
        "maxTokens",
        `the stream from ${this.options.label} sent about ${Math.round(this.#chars / CHARS_PER_TOKEN)} tokens in ${seconds(this.elapsedMs)} without finishing (${limit}); the server ignores the output limit or never ends the stream`,
      );
      return;
    }
    const first = this.#lastPart === undefined;
    this.#lastPart = performance.now();
    // The idle limit replaces the request limit: the timer comes forward if it is the nearer.
    if (first && this.#lastPart + this.#idle < this.#due) this.#arm(this.#lastPart);
  }

  /** Arm the timer for the nearest deadline after `now`: the total, and the request's or the silence's. */
  #arm(now: number) {
    clearTimeout(this.#timer);
    const step = this.#lastPart === undefined ? this.#started + this.#request : this.#lastPart + this.#idle;
    this.#due = Math.min(step, this.#started + this.#total);
    this.#timer = Number.isFinite(this.#due) ? setTimeout(this.#check, this.#due - now) : undefined;
  }

  readonly #check = (): void => {
    const now = performance.now();
    const step = this.#lastPart === undefined ? this.#started + this.#request : this.#lastPart + this.#idle;
    const total = this.#started + this.#total;
    // Fired early (a part came since, or the timer's own rounding): wait out the rest. Within 1 ms
    // of a deadline the limit counts as hit; of two passed deadlines the nearer is the one hit.
    if (Math.min(step, total) - now > 1) this.#arm(now);
    else if (total <= step)
      this.#fail(
        "responseTimeoutMs",
        `the answer from ${this.options.label} was still ${this.#lastPart === undefined ? "not there" : "streaming"} after ${seconds(this.#total)} (responseTimeoutMs: ${this.#total}); the server sends too slowly to finish`,
      );
    else if (this.#lastPart === undefined)
      this.#fail(
        "requestTimeoutMs",
        `no answer from ${this.options.label} within ${seconds(this.#request)} of the request (requestTimeoutMs: ${this.#request}); the server accepted the connection or is unreachable but sent nothing`,
      );
    else
      this.#fail(
        "streamIdleTimeoutMs",
        `the stream from ${this.options.label} went silent for ${seconds(this.#idle)} (streamIdleTimeoutMs: ${this.#idle}) after ${seconds(this.elapsedMs - this.#idle)} of answer`,
      );
  };

  /** Stop the timer (the call ended). */
  dispose(): void {
    this.options.parent?.removeEventListener("abort", this.#follow);
    clearTimeout(this.#timer);
  }

  #fail(limit: CallLimit, message: string) {
    if (this.error) return;
    this.dispose();
    this.error = new ModelTimeoutError(message, limit, this.elapsedMs);
    this.#controller.abort(this.error);
  }
}
