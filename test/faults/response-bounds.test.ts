/**
 * Time limits that mean what they say (issue 37, failure 6): a provider trickling its answer one
 * small delta at a time is cut by `responseTimeoutMs`, the total bound per response, where it held a
 * run past every limit; and `streamIdleTimeoutMs` is measured on the bytes received, so a live
 * stream whose events carry no part (SSE keep-alive comments, as OpenRouter sends) is not cut as
 * silent. A loopback server speaking the Chat Completions wire format, behind the real provider
 * packages.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { openaiCompatible } from "ubiquity/plugins/model";
import type { SummonOptions } from "ubiquity";
import { resultOf } from "../helpers/collect";
import { run } from "../model/helpers";

/** How the server plays one streamed answer: `write` is called with the open response. */
type Play = (res: ServerResponse, chunk: (content: string) => void, finish: () => void) => void;

const servers: Server[] = [];
const timers: ReturnType<typeof setInterval>[] = [];
afterEach(async () => {
  timers.splice(0).forEach(clearInterval);
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve).closeAllConnections())));
});

async function chatServer(play: Play): Promise<{ baseURL: string; requests: number }> {
  const state = { baseURL: "", requests: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      state.requests++;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m" };
      const send = (delta: Record<string, unknown>, finish: string | null = null) =>
        res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      send({ role: "assistant", content: "" });
      play(
        res,
        (content) => send({ content }),
        () => {
          send({}, "stop");
          res.write(
            `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } })}\n\n`,
          );
          res.end("data: [DONE]\n\n");
        },
      );
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

/** Call `fn` every `ms` until it returns false. */
function every(ms: number, fn: () => boolean) {
  const timer = setInterval(() => {
    if (!fn()) clearInterval(timer);
  }, ms);
  timers.push(timer);
}

const KINDS = {
  "openai string": (baseURL: string): SummonOptions => ({
    model: "openai.chat:gpt-4o",
    apiKey: "sk-test",
    providerSettings: { baseURL },
  }),
  openaiCompatible: (baseURL: string): SummonOptions => ({ model: openaiCompatible("local-model", { baseURL }) }),
};

describe.each(Object.entries(KINDS))("through %s", (_kind, optionsFor) => {
  it("a response trickling one character every 50 ms is cut by responseTimeoutMs, not waited out", async () => {
    // 8 s of trickle if nobody cuts it; the idle bound never fires (a delta every 50 ms).
    const server = await chatServer((res, chunk, finish) => {
      let sent = 0;
      every(50, () => {
        if (res.destroyed) return false;
        if (++sent === 160) {
          finish();
          return false;
        }
        chunk("x");
        return true;
      });
    });
    const result = resultOf(
      await run("hi", {
        ...optionsFor(server.baseURL),
        maxRetries: 0,
        requestTimeoutMs: 5000,
        streamIdleTimeoutMs: 5000,
        responseTimeoutMs: 1000,
      }),
    );
    expect(result.isError).toBe(true);
    expect(result.result).toMatch(/the answer from \S+ was still streaming after 1\.0 s \(responseTimeoutMs: 1000\)/);
    expect(server.requests).toBe(1);
  });

  it("keep-alive comments between deltas keep a live stream alive: idle is measured on bytes, not parts", async () => {
    // 3 s without a part, but bytes every 100 ms; the idle bound is 1.5 s.
    const server = await chatServer((res, chunk, finish) => {
      chunk("hello");
      let beats = 0;
      every(100, () => {
        if (res.destroyed) return false;
        if (++beats === 30) {
          chunk(" world");
          finish();
          return false;
        }
        res.write(": keep-alive\n\n");
        return true;
      });
    });
    const result = resultOf(
      await run("hi", { ...optionsFor(server.baseURL), maxRetries: 0, streamIdleTimeoutMs: 1500 }),
    );
    expect(result.result).toBe("hello world");
    expect(result.isError).toBe(false);
  });
});
