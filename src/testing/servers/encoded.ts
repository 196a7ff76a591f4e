/** What a wire encoder produces: a content type and the body chunks to write (one per event). */
export interface Encoded {
  contentType: string;
  chunks: (string | Uint8Array)[];
}

/** A server-sent-events body from JSON events (`event:` lines when the format names events). */
export function sse(events: { event?: string; data: unknown }[], done?: string): Encoded {
  const chunks = events.map((e) => `${e.event ? `event: ${e.event}\n` : ""}data: ${JSON.stringify(e.data)}\n\n`);
  if (done) chunks.push(`data: ${done}\n\n`);
  return { contentType: "text/event-stream", chunks };
}

/** A JSON body. */
export function json(value: unknown): Encoded {
  return { contentType: "application/json", chunks: [JSON.stringify(value)] };
}
