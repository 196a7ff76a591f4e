/**
 * How much of one message a remote MCP server may make this process hold. The server is a third
 * party (not even code the user runs): what it sends is read up to a bound, as WebSearch's
 * backends are (red team x, X4) and as the SDK reads a stdio server's lines (10 MiB). Without it,
 * one JSON answer or one server-sent event grew in the host's memory for as long as the server
 * kept sending (red team za, Z5).
 */

/** The most one message (a JSON body, one server-sent event) may hold: the SDK's bound for a stdio line. */
export const MAX_MCP_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The error a message over the bound ends its stream or connection with. */
export function messageTooLarge(what: string, max = MAX_MCP_MESSAGE_BYTES): Error {
  return new Error(
    `${what} sent a message of more than ${max / 1024 / 1024} MiB; it was not read (an MCP message is bounded)`,
  );
}

/**
 * Counts the bytes of the server-sent event being received: given each chunk, true while within
 * the bound. An event ends at a blank line (carriage returns are skipped: CRLF ends count too).
 */
function eventCounter(max: number) {
  let size = 0;
  let atLineStart = false;
  return (chunk: Uint8Array): boolean => {
    for (const byte of chunk) {
      if (++size > max) return false;
      if (byte === 0x0d) continue;
      if (byte === 0x0a) {
        if (atLineStart) size = 0;
        atLineStart = true;
      } else atLineStart = false;
    }
    return true;
  };
}

/**
 * `response` with its body read up to the bound: a server-sent event stream by event, any other
 * body whole. Past it the body errors, which fails the request that reads it; an event stream's
 * reader only reports the error and waits on, so `onEventTooLarge` is told to end the connection.
 */
export function boundedResponse(
  response: Response,
  what: string,
  /** Called when an event stream passes the bound (a JSON body's reader fails by itself). */
  onEventTooLarge?: () => void,
  max = MAX_MCP_MESSAGE_BYTES,
): Response {
  // A body-less answer, or a status a Response cannot be rebuilt with, holds nothing to bound.
  if (!response.body || response.status < 200 || response.status > 599) return response;
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const events = type === "text/event-stream";
  const within = events ? eventCounter(max) : total(max);
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (within(chunk)) controller.enqueue(chunk);
        else {
          controller.error(messageTooLarge(what, max));
          if (events) onEventTooLarge?.();
        }
      },
    }),
  );
  const bounded = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // The SDK reads where a request ended up (an unfollowed redirect is named by it).
  Object.defineProperties(bounded, {
    url: { value: response.url },
    redirected: { value: response.redirected },
  });
  return bounded;
}

function total(max: number) {
  let size = 0;
  return (chunk: Uint8Array) => (size += chunk.length) <= max;
}
