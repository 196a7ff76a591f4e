/**
 * A 200 that is not the stream that was asked for — a proxy's HTML page, a plain JSON body, an
 * empty body — parses as a stream with no events, which the provider packages report as a
 * finished answer with no text: a `success` with nothing in it. This fetch wrapper turns it into
 * an error naming the status and the content type, which the retry plugin retries and the
 * fallback model answers. It also tells the call's limits each time bytes of the body arrive,
 * so `streamIdleTimeoutMs` measures silence on the wire rather than between parsed parts.
 */
import { noteBytesReceived, UbiquityError } from "../../src/index";

type Fetch = typeof globalThis.fetch;

/** The content types a streamed answer comes in (SSE, and Bedrock's binary event stream). */
const STREAM_TYPES = ["text/event-stream", "application/vnd.amazon.eventstream"];

/** A successful status whose body is not the expected stream. */
export class UnexpectedResponseError extends UbiquityError {
  override name = "UnexpectedResponseError";
  /** Read by the retry and fallback checks. */
  readonly code = "UBIQUITY_NOT_A_STREAM";
  constructor(
    message: string,
    readonly statusCode: number,
    readonly contentType: string,
    /**
     * Where it was found: at the headers (inside the fetch, so the retrying fetch around it already
     * retried it) or while the body was read (after the transport handed the response over).
     */
    readonly phase: "headers" | "body" = "headers",
  ) {
    super(message);
  }
}

function urlOf(input: Parameters<Fetch>[0]): string {
  return typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
}

/** True when the request asks for a streamed answer (every provider family says so in the body or the URL). */
export function asksForStream(input: Parameters<Fetch>[0], init: RequestInit | undefined): boolean {
  const url = urlOf(input);
  if (url.includes(":streamGenerateContent") || /\/converse-stream(\?|$)/.test(url)) return true;
  const body = init?.body;
  if (typeof body !== "string" || !body.includes('"stream"')) return false;
  // The AI SDK's providers end their body with `"stream":true}` (Anthropic, OpenAI Responses): in
  // JSON that is the top-level object's last member, so parsing the whole conversation on every
  // request to read it again is not needed. Any other body is parsed.
  if (body.endsWith(',"stream":true}') || body === '{"stream":true}') return true;
  try {
    return (JSON.parse(body) as { stream?: unknown }).stream === true;
  } catch {
    return false;
  }
}

function where(input: Parameters<Fetch>[0]): string {
  try {
    const url = new URL(urlOf(input));
    return `${url.origin}${url.pathname}`;
  } catch {
    return "the API";
  }
}

/** Wrap `next` so a 2xx that is not the asked-for stream fails with an `UnexpectedResponseError`. */
export function streamCheckingFetch(next: Fetch, provider: string): Fetch {
  const checking = async (input: Parameters<Fetch>[0], init?: RequestInit): Promise<Response> => {
    const response = await next(input, init);
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (!response.ok || !asksForStream(input, init)) return response;
    const type = response.headers.get("content-type") ?? "";
    const label = `${provider} answered ${where(input)} with HTTP ${response.status}`;
    if (!STREAM_TYPES.some((t) => type.toLowerCase().includes(t))) {
      const text = await response.text().catch(() => "");
      const shown = text.trim() ? `: ${text.trim().slice(0, 200)}` : " and an empty body";
      throw new UnexpectedResponseError(
        `${label} and content-type ${JSON.stringify(type || "(none)")}, not a stream (text/event-stream)${shown}. Check baseURL: it should point at the API, not a web page or a proxy's login`,
        response.status,
        type,
      );
    }
    if (!response.body) throw new UnexpectedResponseError(`${label} (${type}) and no body`, response.status, type);
    let bytes = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          // The call's idle limit counts bytes, not parts: a keep-alive comment is a live stream.
          noteBytesReceived(signal, chunk.byteLength);
          controller.enqueue(chunk);
        },
        flush(controller) {
          if (bytes === 0)
            controller.error(
              new UnexpectedResponseError(
                `${label} (${type}) and an empty body: the stream ended before any event`,
                response.status,
                type,
                "body",
              ),
            );
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return checking as Fetch;
}
