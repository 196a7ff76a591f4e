/**
 * A real HTTP server on 127.0.0.1 that speaks the wire formats of the AI SDK providers, chosen
 * by request path, and answers from a script. The provider packages run unmodified against it
 * (point them at `server.baseURL` through `providerSettings.baseURL`); only the network
 * endpoint is local. It records every request and can fail on cue (status + headers) or drop
 * the connection, for retry and fallback tests.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { encodeAnthropic } from "./anthropic";
import { encodeBedrock } from "./bedrock";
import { encodeCohere } from "./cohere";
import type { Encoded } from "./encoded";
import { encodeGoogle } from "./google";
import { encodeChat, encodeResponses } from "./openai";
import {
  applyOutputLimit,
  isDrop,
  isFailure,
  isFault,
  normalizeAnswer,
  outputLimitOf,
  type FakeFailure,
  type FakeFault,
  type FakeScript,
  type FakeTurn,
  type RecordedRequest,
  type WireFamily,
} from "./script";

/** A running fake provider server. */
export interface FakeProviderServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `${url}/v1`: a base URL every provider accepts (routing looks only at the path's end). */
  readonly baseURL: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** How many turns of the script were played. */
  readonly played: number;
  close(): Promise<void>;
}

/** The wire format a request path selects. */
export function familyOf(path: string): WireFamily | undefined {
  const p = path.split("?")[0]!;
  if (p.endsWith("/responses")) return "openai-responses";
  if (p.endsWith("/chat/completions")) return "openai-chat";
  if (p.endsWith("/messages")) return "anthropic";
  if (/:(stream)?[gG]enerateContent$/.test(p)) return "google";
  if (p.endsWith("/converse-stream") || p.endsWith("/converse")) return "bedrock";
  if (p.endsWith("/chat")) return "cohere";
  return undefined;
}

function modelOf(family: WireFamily, path: string, body: unknown): string {
  const fromBody = (body as { model?: unknown } | null)?.model;
  if (typeof fromBody === "string") return fromBody;
  const p = decodeURIComponent(path.split("?")[0]!);
  if (family === "google") return /models\/([^:]+):/.exec(p)?.[1] ?? "unknown";
  if (family === "bedrock") return /model\/(.+)\/converse/.exec(p)?.[1] ?? "unknown";
  return "unknown";
}

function isStream(family: WireFamily, path: string, body: unknown): boolean {
  if (family === "google") return path.includes(":streamGenerateContent");
  if (family === "bedrock") return path.split("?")[0]!.endsWith("/converse-stream");
  return (body as { stream?: unknown } | null)?.stream === true;
}

/** The family's own error body, so the provider's error parser reads the message. */
function errorBody(family: WireFamily | undefined, failure: FakeFailure): string {
  if (failure.body !== undefined) return failure.body;
  const message = failure.message ?? `fake provider server: scripted HTTP ${failure.status}`;
  switch (family) {
    case "anthropic":
      return JSON.stringify({
        type: "error",
        error: { type: failure.status === 429 ? "rate_limit_error" : "api_error", message },
      });
    case "google":
      return JSON.stringify({ error: { code: failure.status, message, status: "UNAVAILABLE" } });
    case "cohere":
    case "bedrock":
      return JSON.stringify({ message });
    default:
      return JSON.stringify({ error: { message, type: "server_error", param: null, code: null } });
  }
}

const FILL = "x".repeat(3000);

/** Play a fault turn (see `FakeFault`). */
function playFault(
  turn: FakeFault,
  family: WireFamily,
  req: IncomingMessage,
  res: ServerResponse,
  model: string,
  index: number,
  open: Set<ServerResponse>,
) {
  open.add(res);
  res.on("close", () => open.delete(res));
  if (turn.fault === "silent") return;
  if (turn.fault === "raw") {
    res.writeHead(turn.status ?? 200, { "content-type": turn.contentType });
    res.end(turn.body);
    return;
  }
  const encoded = encode(family, { text: FILL }, index, model, true);
  res.writeHead(200, { "content-type": encoded.contentType, "cache-control": "no-cache" });
  if (turn.fault === "stall-after-headers") {
    res.flushHeaders();
    return;
  }
  // The chunks before the first text delta open the stream; that delta is what repeats.
  const first = encoded.chunks.findIndex((c) =>
    (typeof c === "string" ? c : Buffer.from(c).toString("latin1")).includes(FILL.slice(0, 500)),
  );
  const opening = encoded.chunks.slice(0, Math.max(0, first));
  const delta = encoded.chunks[first]!;
  if (turn.fault === "reset-mid-stream" || turn.fault === "stall-mid-stream") {
    for (const chunk of [...opening, delta]) res.write(chunk);
    if (turn.fault === "reset-mid-stream") setTimeout(() => req.socket.destroy(), 50);
    return;
  }
  for (const chunk of opening) res.write(chunk);
  const pump = () => {
    if (res.destroyed || res.writableEnded) return;
    if (res.write(delta)) setImmediate(pump);
    else res.once("drain", pump);
  };
  pump();
}

function encode(
  family: WireFamily,
  turn: string | Exclude<FakeTurn, string>,
  index: number,
  model: string,
  stream: boolean,
  limit?: number,
): Encoded {
  const answer = applyOutputLimit(normalizeAnswer(turn as string, index, model, stream), limit);
  const id = `fake_${index}`;
  switch (family) {
    case "openai-responses":
      return encodeResponses(answer, id);
    case "openai-chat":
      return encodeChat(answer, id);
    case "anthropic":
      return encodeAnthropic(answer, id);
    case "google":
      return encodeGoogle(answer, id);
    case "cohere":
      return encodeCohere(answer, id);
    case "bedrock":
      return encodeBedrock(answer);
  }
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    // The client gave up before the body was read (its request timeout, on a loaded machine): the
    // request still arrived, so it is recorded and plays its turn, with what was read of its body.
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

/** Start a fake provider server answering from `script`. Close it when done. */
export async function startProviderServer(script: FakeScript): Promise<FakeProviderServer> {
  const requests: RecordedRequest[] = [];
  let played = 0;

  const next = (request: RecordedRequest): FakeTurn | undefined => {
    if (typeof script === "function") return script(request, requests.length - 1);
    return played < script.length ? script[played++] : undefined;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const path = req.url ?? "/";
    const family = familyOf(path);
    const send = (status: number, text: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(text);
    };
    if (!family)
      return send(
        404,
        errorBody(undefined, { status: 404, message: `fake provider server: no wire format at ${req.method} ${path}` }),
      );
    const request: RecordedRequest = {
      method: req.method ?? "GET",
      path,
      headers: headersOf(req),
      body,
      family,
      time: Date.now(),
    };
    requests.push(request);
    const turn = next(request);
    if (turn === undefined) {
      const count = Array.isArray(script) ? script.length : 0;
      return send(
        400,
        errorBody(family, {
          status: 400,
          message: `fake provider server: the script has ${count} ${count === 1 ? "turn" : "turns"} and request #${requests.length} asked for another`,
        }),
      );
    }
    if (isDrop(turn)) {
      req.socket.destroy();
      return;
    }
    if (isFailure(turn)) return send(turn.status, errorBody(family, turn), turn.headers);
    if (isFault(turn)) return playFault(turn, family, req, res, modelOf(family, path, body), requests.length - 1, open);
    const encoded = encode(
      family,
      turn,
      requests.length - 1,
      modelOf(family, path, body),
      isStream(family, path, body),
      outputLimitOf(body),
    );
    res.writeHead(200, { "content-type": encoded.contentType, "cache-control": "no-cache" });
    for (const chunk of encoded.chunks) res.write(chunk);
    res.end();
  };

  // Requests a fault holds open; closed with the server.
  const open = new Set<ServerResponse>();
  // node:http is required here, not imported at the top: an ES import of it makes Node build its
  // ES module facade, whose export getters load undici (~0.05 CPU-s), in every process that
  // imports ubiquity/testing for scriptedModel alone (a config, a test's child process).
  const { createServer } = createRequire(import.meta.url)("node:http") as typeof import("node:http");
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake provider server crashed: ${String(error)}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    get played() {
      return played;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
