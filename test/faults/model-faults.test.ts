/**
 * Faults of a provider that accepted the connection, through real loopback servers speaking the
 * OpenAI and Anthropic wire formats behind the real provider packages: silence before and after
 * the headers, an endless stream, a stream that stalls or resets halfway, and 200s that are not
 * streams. Every fault goes through a model string and through `openaiCompatible()`; each ends
 * with a result naming the limit and the time, is retried, and hands over to the fallback.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAI } from "@ai-sdk/openai";
import { startProviderServer, type FakeProviderServer, type FakeTurn } from "ubiquity/testing";
import { openaiCompatible } from "ubiquity/plugins/model";
import type { SummonOptions } from "ubiquity";
import { resultOf } from "../helpers/collect";
import { capturingLogger, run } from "../model/helpers";

const servers: FakeProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function serve(script: FakeTurn[] | (() => FakeTurn)): Promise<FakeProviderServer> {
  const server = await startProviderServer(script);
  servers.push(server);
  return server;
}

/**
 * The server's requests once `n` have arrived. A request the client gave up on (its timeout) can
 * reach the server after the run has ended (the server shares this process's event loop, which a
 * loaded machine delays): counting at once counted load. The bound only catches a missing request.
 */
async function arrived(server: FakeProviderServer, n: number, timeoutMs = 60_000) {
  for (const end = Date.now() + timeoutMs; server.requests.length < n && Date.now() < end; )
    await new Promise((r) => setTimeout(r, 10));
  return server.requests;
}

/** The three ways a model reaches a server here. */
const KINDS = {
  "openai string": (s: FakeProviderServer): SummonOptions => ({
    model: "openai.chat:gpt-4o",
    apiKey: "sk-test",
    providerSettings: { baseURL: s.baseURL },
  }),
  "anthropic string": (s: FakeProviderServer): SummonOptions => ({
    model: "anthropic:claude-sonnet-4-5",
    apiKey: "sk-ant-test",
    providerSettings: { baseURL: s.baseURL },
  }),
  openaiCompatible: (s: FakeProviderServer): SummonOptions => ({
    model: openaiCompatible("local-model", { baseURL: s.baseURL }),
  }),
};

const FAULTS = [
  { fault: "silent", message: /no answer from \S+ within 0\.5 s of the request \(requestTimeoutMs: 500\)/ },
  {
    fault: "stall-after-headers",
    message: /no answer from \S+ within 0\.5 s of the request \(requestTimeoutMs: 500\)/,
  },
  { fault: "stall-mid-stream", message: /the stream from \S+ went silent for 0\.5 s \(streamIdleTimeoutMs: 500\)/ },
  {
    fault: "endless",
    message: /the stream from \S+ sent about \d+ tokens in \d+\.\d s without finishing \(maxTokens: 50/,
  },
  { fault: "reset-mid-stream", message: /the answer broke off after HTTP 200: terminated/ },
] as const;

/** Faults no attempt gets past: whatever layer retries them, a call is sent at most maxRetries + 1 times. */
const ALWAYS: { what: string; turn: FakeTurn }[] = [
  {
    what: "a 200 with an HTML page",
    turn: { fault: "raw", contentType: "text/html", body: "<html>proxy login</html>" },
  },
  { what: "a 200 with an empty stream", turn: { fault: "raw", contentType: "text/event-stream", body: "" } },
  { what: "a 503", turn: { status: 503 } },
  { what: "a dropped connection", turn: { drop: true } },
  { what: "a reset mid-stream", turn: { fault: "reset-mid-stream" } },
];

// Two attempts per run (maxRetries: 1) with short waits. How long a run takes is not asserted (that
// is load; bench/ measures it): the result naming the limit that cut it is what shows it was cut.
const limits = { requestTimeoutMs: 500, streamIdleTimeoutMs: 500, maxTokens: 50, maxRetries: 1, retryMaxWaitMs: 50 };

describe.each(Object.entries(KINDS))("through %s", (_kind, optionsFor) => {
  it.each(FAULTS)("$fault: a result naming the limit; retried once", async ({ fault, message }) => {
    const server = await serve([{ fault }, { fault }, "never reached"]);
    const result = resultOf(await run("hi", { ...optionsFor(server), ...limits }));
    expect(result.isError).toBe(true);
    expect(result.result).toMatch(message);
    expect(await arrived(server, 2)).toHaveLength(2);
  });

  it.each(FAULTS)("$fault once, then an answer: the retry succeeds", async ({ fault }) => {
    const server = await serve([{ fault }, "recovered"]);
    const result = resultOf(await run("hi", { ...optionsFor(server), ...limits }));
    expect(result.result).toBe("recovered");
    expect(result.isError).toBe(false);
    expect(await arrived(server, 2)).toHaveLength(2);
  });

  it.each([
    {
      what: "HTML",
      contentType: "text/html; charset=utf-8",
      body: "<html><body>Sign in to the proxy</body></html>",
      shown: /Sign in to the proxy/,
    },
    {
      what: "plain JSON",
      contentType: "application/json",
      body: '{"object":"chat.completion","choices":[]}',
      shown: /chat\.completion/,
    },
    { what: "an empty body", contentType: "text/event-stream", body: "", shown: /empty body/ },
  ])(
    "a 200 with $what where a stream was asked for is an error naming status and content type",
    async ({ contentType, body, shown }) => {
      const server = await serve([{ fault: "raw", contentType, body }]);
      const result = resultOf(await run("hi", { ...optionsFor(server), maxRetries: 0 }));
      expect(result.isError).toBe(true);
      expect(result.result).toMatch(/HTTP 200/);
      expect(result.result).toContain(contentType.split(";")[0]);
      expect(result.result).toMatch(shown);
    },
  );

  it("a 200 that is not a stream is retried like a 503", async () => {
    const server = await serve([{ fault: "raw", contentType: "text/html", body: "<html>oops</html>" }, "second try"]);
    const result = resultOf(await run("hi", { ...optionsFor(server), retryMaxWaitMs: 50 }));
    expect(result.result).toBe("second try");
    expect(await arrived(server, 2)).toHaveLength(2);
  });

  // One retry layer (issue 37, failure 7): a 200 that was not a stream was sent (maxRetries + 1)² times.
  it.each(ALWAYS)("$what on every attempt: sent maxRetries + 1 times, then an error result", async ({ turn }) => {
    const server = await serve(() => turn);
    const result = resultOf(await run("hi", { ...optionsFor(server), maxRetries: 2, retryMaxWaitMs: 5 }));
    expect(result.isError).toBe(true);
    expect(await arrived(server, 3)).toHaveLength(3);
  });

  it("requestTimeoutMs bounds each attempt, not the Retry-After waits between them", async () => {
    const server = await serve([
      { status: 429, headers: { "retry-after": "1" } },
      { status: 429, headers: { "retry-after": "1" } },
      "after two waits",
    ]);
    const logger = capturingLogger();
    const result = resultOf(await run("hi", { ...optionsFor(server), requestTimeoutMs: 1500, logger }));
    expect(result.result).toBe("after two waits");
    expect(await arrived(server, 3)).toHaveLength(3);
    // The transport's own attempts answered it: no call was cut by the limit and retried whole.
    expect(logger.lines.filter((l) => /call attempt|requestTimeoutMs/.test(l))).toEqual([]);
  });

  it("429, 503 and a dropped connection are retried for this model kind too", async () => {
    const server = await serve([
      { status: 429, headers: { "retry-after": "0" } },
      { status: 503 },
      { drop: true },
      "fourth try",
    ]);
    const result = resultOf(await run("hi", { ...optionsFor(server), retryMaxWaitMs: 50 }));
    expect(result.result).toBe("fourth try");
    expect(await arrived(server, 4)).toHaveLength(4);
  });
});

describe("an endless stream without maxTokens", () => {
  it("is cut at the default bound (256,000 tokens)", async () => {
    const server = await serve([{ fault: "endless" }]);
    const result = resultOf(
      await run("hi", { ...KINDS["openai string"](server), requestTimeoutMs: 500, maxRetries: 0 }),
    );
    expect(result.result).toMatch(
      /sent about \d+ tokens in \d+\.\d s without finishing \(no maxTokens set, cut at 256000 tokens\)/,
    );
    expect(await arrived(server, 1)).toHaveLength(1);
  });
});

describe("fallback after the limits", () => {
  it("a silent string model hands over to an openaiCompatible() fallback once its attempts are spent", async () => {
    const silent = await serve([{ fault: "silent" }, { fault: "silent" }]);
    const good = await serve(["from the fallback"]);
    const result = resultOf(
      await run("hi", {
        ...KINDS["openai string"](silent),
        ...limits,
        fallbackModel: openaiCompatible("backup", { baseURL: good.baseURL }),
      }),
    );
    expect(result.result).toBe("from the fallback");
    expect(await arrived(silent, 2)).toHaveLength(2);
    expect(await arrived(good, 1)).toHaveLength(1);
    expect(Object.keys(result.modelUsage)).toEqual(["openai-compatible:backup"]);
  });

  it("an endless openaiCompatible() stream hands over to an anthropic string fallback", async () => {
    const endless = await serve([{ fault: "endless" }, { fault: "endless" }]);
    const good = await serve(["anthropic answered"]);
    const result = resultOf(
      await run("hi", {
        ...KINDS.openaiCompatible(endless),
        ...limits,
        fallbackModel: "anthropic:claude-sonnet-4-5",
        apiKey: "sk-ant-test",
        providerSettings: { baseURL: good.baseURL },
      }),
    );
    expect(result.result).toBe("anthropic answered");
    expect(await arrived(endless, 2)).toHaveLength(2);
    expect(await arrived(good, 1)).toHaveLength(1);
  });
});

describe("a constructed model the kernel cannot rewire", () => {
  const constructed = (s: FakeProviderServer) => createOpenAI({ baseURL: s.baseURL, apiKey: "sk-test" }).chat("gpt-4o");

  it("gets the same retries for statuses, at the call: 503 twice, then the answer", async () => {
    const server = await serve([{ status: 503 }, { status: 503 }, "third call"]);
    const logger = capturingLogger();
    const result = resultOf(await run("hi", { model: constructed(server), retryMaxWaitMs: 50, logger }));
    expect(result.result).toBe("third call");
    expect(await arrived(server, 3)).toHaveLength(3);
    expect(
      logger.lines.filter((l) => /\[ubiquity:retry\] openai:gpt-4o call attempt \d\/4 failed/.test(l)),
    ).toHaveLength(2);
  });

  it("honours Retry-After from the error's headers and returns a 400 at once", async () => {
    const server = await serve([{ status: 429, headers: { "retry-after": "1" } }, "after the wait", { status: 400 }]);
    const result = resultOf(await run("hi", { model: constructed(server) }));
    expect(result.result).toBe("after the wait");
    expect(server.requests[1]!.time - server.requests[0]!.time).toBeGreaterThanOrEqual(900);

    const bad = await serve([{ status: 400, message: "malformed" }, "never"]);
    const refused = resultOf(await run("hi", { model: constructed(bad) }));
    expect(refused.result).toMatch(/HTTP 400/);
    expect(await arrived(bad, 1)).toHaveLength(1);
  });

  it("is bound by the time limits like any model", async () => {
    const server = await serve([{ fault: "silent" }, "answered"]);
    const result = resultOf(await run("hi", { model: constructed(server), ...limits }));
    expect(result.result).toBe("answered");
    expect(await arrived(server, 2)).toHaveLength(2);
  });

  it("maxRetries: 0 turns the call retries off too", async () => {
    const server = await serve([{ status: 503 }, "never"]);
    const result = resultOf(await run("hi", { model: constructed(server), maxRetries: 0 }));
    expect(result.result).toMatch(/HTTP 503/);
    expect(await arrived(server, 1)).toHaveLength(1);
  });
});

describe("the summary call", () => {
  it("is bound by requestTimeoutMs too: a silent compact model fails the compaction with a warning, the run goes on", async () => {
    const { scriptedModel } = await import("ubiquity/testing");
    const { default: compactionSummarize } = await import("ubiquity/plugins/compaction-summarize");
    const { call, sizedTool, capturingLogger: contextLogger } = await import("../context/helpers");
    const silent = await serve([{ fault: "silent" }, { fault: "silent" }]);
    const model = scriptedModel([
      { toolCalls: [call("Read", 100, "r0")], usage: { inputTokens: 1_000, outputTokens: 40 } },
      { toolCalls: [call("Read", 100, "r1")], usage: { inputTokens: 80_000, outputTokens: 40 } },
      { text: "done", usage: { inputTokens: 1_000, outputTokens: 5 } },
    ]);
    const logger = contextLogger();
    const messages = await run("port it", {
      model,
      compactModel: openaiCompatible("summarizer", { baseURL: silent.baseURL }),
      plugins: [...(await import("../model/helpers")).modelLayer().plugins, compactionSummarize()],
      tools: [sizedTool("Read")],
      maxContextTokens: 100_000,
      compactKeepRecent: 2,
      requestTimeoutMs: 500,
      maxRetries: 1,
      retryMaxWaitMs: 50,
      logger,
    });
    const result = resultOf(messages);
    expect(result.result).toBe("done");
    expect(logger.warnings.join("\n")).toMatch(
      /compaction failed: no answer from openai-compatible:summarizer within 0\.5 s of the request \(requestTimeoutMs: 500\)/,
    );
    // Both attempts were cut by the limit, then the run went on without a summary.
    expect(await arrived(silent, 2)).toHaveLength(2);
  });
});
