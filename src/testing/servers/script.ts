/**
 * What a fake provider server answers: a script of turns, shared by every wire format. Token
 * counts are written the way the AI SDK reports them (input inclusive of cached tokens); each
 * wire encoder converts them to its own convention.
 */

/** A scripted answer: text and/or tool calls, with usage. */
export interface FakeAnswer {
  text?: string;
  toolCalls?: { name: string; input: unknown; id?: string }[];
  usage?: { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number };
}

/** A scripted HTTP failure (status, headers such as `retry-after`, and a body in the family's error shape by default). */
export interface FakeFailure {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  message?: string;
}

/** Close the connection without answering (a connection error on the client side). */
export interface FakeDrop {
  drop: true;
}

/**
 * A fault of a server that did answer, at least in part: `silent` accepts the request and never
 * answers; `stall-after-headers` sends a 200 with the stream's headers, then nothing;
 * `endless` starts a valid stream and sends text forever; `reset-mid-stream` sends the start of
 * the answer's stream and destroys the connection; `stall-mid-stream` sends the same start and
 * then nothing; `raw` answers with the given status, content type
 * and body (HTML, plain JSON or nothing where a stream was asked for).
 */
export type FakeFault =
  | { fault: "silent" | "stall-after-headers" | "endless" | "reset-mid-stream" | "stall-mid-stream" }
  | { fault: "raw"; status?: number; contentType: string; body: string };

/** One scripted turn: plain text, an answer, a failure, a dropped connection or a fault. */
export type FakeTurn = string | FakeAnswer | FakeFailure | FakeDrop | FakeFault;

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The parsed JSON body (the raw text when it is not JSON). */
  body: unknown;
  /** The wire format the path selected. */
  family: WireFamily;
  /** `Date.now()` when the request arrived. */
  time: number;
}

/** A script: turns in order, or a function choosing the turn for each request. */
export type FakeScript = FakeTurn[] | ((request: RecordedRequest, index: number) => FakeTurn);

/** The wire formats the fake server speaks. */
export type WireFamily = "openai-responses" | "openai-chat" | "anthropic" | "google" | "cohere" | "bedrock";

/** A normalized answer: every field present. */
export interface Answer {
  text: string;
  toolCalls: { name: string; input: unknown; id: string }[];
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
  model: string;
  /** True when the client asked for a stream. */
  stream: boolean;
  /** True when the text was cut at the request's output limit (the encoders report that finish reason). */
  truncated: boolean;
}

/** The output limit a request body asks for (`max_tokens`, `max_completion_tokens`, `max_output_tokens`). */
export function outputLimitOf(body: unknown): number | undefined {
  const b = body as Record<string, unknown> | null;
  for (const key of ["max_tokens", "max_completion_tokens", "max_output_tokens"]) {
    if (typeof b?.[key] === "number") return b[key] as number;
  }
  return undefined;
}

/** Cut an answer at `limit` tokens (4 characters each), as a provider does: the text ends early (scripted tool calls stay, as calls written before the cut). */
export function applyOutputLimit(answer: Answer, limit: number | undefined): Answer {
  if (limit === undefined || Math.ceil(answer.text.length / 4) + answer.toolCalls.length * 20 <= limit) return answer;
  return {
    ...answer,
    text: answer.text.slice(0, limit * 4),
    usage: { ...answer.usage, outputTokens: limit },
    truncated: true,
  };
}

/** Fill in an answer's defaults. */
export function normalizeAnswer(turn: string | FakeAnswer, index: number, model: string, stream: boolean): Answer {
  const a: FakeAnswer = typeof turn === "string" ? { text: turn } : turn;
  return {
    text: a.text ?? "",
    toolCalls: (a.toolCalls ?? []).map((c, i) => ({
      name: c.name,
      input: c.input ?? {},
      id: c.id ?? `call_${index}_${i}`,
    })),
    usage: {
      inputTokens: a.usage?.inputTokens ?? 10,
      outputTokens: a.usage?.outputTokens ?? 5,
      cacheReadTokens: a.usage?.cacheReadTokens ?? 0,
      cacheWriteTokens: a.usage?.cacheWriteTokens ?? 0,
    },
    model,
    stream,
    truncated: false,
  };
}

/** True for a failure turn. */
export function isFailure(turn: FakeTurn): turn is FakeFailure {
  return typeof turn === "object" && typeof (turn as FakeFailure).status === "number";
}

/** True for a dropped-connection turn. */
export function isDrop(turn: FakeTurn): turn is FakeDrop {
  return typeof turn === "object" && (turn as FakeDrop).drop === true;
}

/** True for a fault turn. */
export function isFault(turn: FakeTurn): turn is FakeFault {
  return typeof turn === "object" && typeof (turn as FakeFault).fault === "string";
}
