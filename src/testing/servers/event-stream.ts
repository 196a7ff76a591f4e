/**
 * The AWS event-stream binary framing (`application/vnd.amazon.eventstream`) that Bedrock's
 * ConverseStream speaks: each message is a prelude (total length, headers length, CRC32),
 * string headers, a JSON payload and a CRC32 of the whole message.
 */
import { crc32 } from "node:zlib";

const STRING_HEADER = 7;

function encodeHeaders(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name, "utf8");
    const v = Buffer.from(value, "utf8");
    const head = Buffer.alloc(1 + n.length + 1 + 2);
    head.writeUInt8(n.length, 0);
    n.copy(head, 1);
    head.writeUInt8(STRING_HEADER, 1 + n.length);
    head.writeUInt16BE(v.length, 2 + n.length);
    parts.push(head, v);
  }
  return Buffer.concat(parts);
}

/** One event-stream message carrying `payload` as JSON. */
export function eventStreamMessage(eventType: string, payload: unknown): Uint8Array {
  const headers = encodeHeaders({
    ":event-type": eventType,
    ":content-type": "application/json",
    ":message-type": "event",
  });
  const body = Buffer.from(JSON.stringify(payload), "utf8");
  const total = 12 + headers.length + body.length + 4;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(headers.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  headers.copy(message, 12);
  body.copy(message, 12 + headers.length);
  message.writeUInt32BE(crc32(message.subarray(0, total - 4)), total - 4);
  return new Uint8Array(message.buffer, message.byteOffset, message.byteLength);
}
