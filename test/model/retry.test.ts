/**
 * HTTP retries at the transport (ubiquity:retry), against a local server that scripts
 * failures. Waits are read from the server's own request timestamps and the debug log, never
 * from how fast the test ran.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { createKernel } from "ubiquity";
import { getModelApi } from "ubiquity/plugins/model";
import { backoffMs, retryAfterMs, retryingFetch } from "../../plugins/retry/index";
import { resultOf } from "../helpers/collect";
import { capturingLogger, modelLayer, run } from "./helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MODEL = "groq:llama-3.3-70b-versatile";
const options = (extra: Record<string, unknown> = {}) => ({
  model: MODEL,
  apiKey: "gsk-test",
  providerSettings: { baseURL: server!.baseURL },
  ...extra,
});
const gaps = (s: FakeProviderServer) => s.requests.slice(1).map((r, i) => r.time - s.requests[i]!.time);

describe("retried responses", () => {
  it("429 with Retry-After: 1 waits about a second and succeeds", async () => {
    server = await startProviderServer([{ status: 429, headers: { "retry-after": "1" } }, "after the wait"]);
    const result = resultOf(await run("hi", options()));
    expect(result.result).toBe("after the wait");
    expect(server.requests).toHaveLength(2);
    expect(gaps(server)[0]).toBeGreaterThanOrEqual(900);
  });

  it("503 twice then 200 succeeds, with jittered waits under the cap, every attempt logged at debug", async () => {
    server = await startProviderServer([{ status: 503 }, { status: 503 }, "third time"]);
    const logger = capturingLogger();
    const result = resultOf(await run("hi", options({ retryMaxWaitMs: 300, logger })));
    expect(result.result).toBe("third time");
    expect(server.requests).toHaveLength(3);
    const attempts = logger.lines.filter((l) => l.startsWith("debug [ubiquity:retry]"));
    expect(attempts).toHaveLength(3);
    expect(attempts[2]).toMatch(/attempt 3\/4: HTTP 200/);
    const waits = attempts.slice(0, 2).map((l) => Number(/retrying in (\d+) ms/.exec(l)?.[1]));
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(0);
      expect(wait).toBeLessThan(300);
    }
    // The server saw the requests no sooner than the logged waits.
    gaps(server).forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(waits[i]! - 5);
    });
  });

  it("a dropped connection is retried", async () => {
    server = await startProviderServer([{ drop: true }, "reconnected"]);
    const result = resultOf(await run("hi", options({ retryMaxWaitMs: 50 })));
    expect(result.result).toBe("reconnected");
    expect(server.requests).toHaveLength(2);
  });
});

describe("responses returned at once", () => {
  it("400 is not retried", async () => {
    server = await startProviderServer([{ status: 400, message: "malformed request" }, "never sent"]);
    const result = resultOf(await run("hi", options()));
    expect(result.isError).toBe(true);
    expect(result.result).toMatch(/HTTP 400/);
    expect(server.requests).toHaveLength(1);
  });

  it("a Retry-After above retryMaxWaitMs returns the 429 at once", async () => {
    server = await startProviderServer([{ status: 429, headers: { "retry-after": "30" } }, "never sent"]);
    const logger = capturingLogger();
    const result = resultOf(await run("hi", options({ retryMaxWaitMs: 1000, logger })));
    expect(result.isError).toBe(true);
    expect(result.result).toMatch(/HTTP 429/);
    expect(server.requests).toHaveLength(1);
    expect(logger.lines.join("\n")).toMatch(
      /Retry-After 30000 ms exceeds retryMaxWaitMs \(1000 ms\), returning the response/,
    );
  });

  it("gives up after maxRetries and returns the last response", async () => {
    server = await startProviderServer(Array.from({ length: 5 }, () => ({ status: 503 })));
    const result = resultOf(await run("hi", options({ maxRetries: 2, retryMaxWaitMs: 20 })));
    expect(result.result).toMatch(/HTTP 503/);
    expect(server.requests).toHaveLength(3);
  });

  it("maxRetries: 0 sends once (the provider's fetch keeps only the stream check)", async () => {
    server = await startProviderServer([{ status: 503 }, "never sent"]);
    const result = resultOf(await run("hi", options({ maxRetries: 0 })));
    expect(result.result).toMatch(/HTTP 503/);
    expect(server.requests).toHaveLength(1);
    const kernel = createKernel({ ...modelLayer(), maxRetries: 0 });
    const once = getModelApi(kernel).fetchFor(undefined, {
      provider: "groq",
      options: kernel.options,
      logger: kernel.logger,
    })!;
    expect((await once(`${server.baseURL}/chat/completions`, { method: "POST", body: "{}" })).status).toBe(200);
    expect(server.requests).toHaveLength(2);
    const retrying = createKernel({ ...modelLayer() });
    expect(
      getModelApi(retrying).fetchFor(undefined, {
        provider: "groq",
        options: retrying.options,
        logger: retrying.logger,
      }),
    ).toBeTypeOf("function");
  });

  it("a request whose body is a stream is sent once", async () => {
    server = await startProviderServer([{ status: 503 }, "never sent"]);
    const fetch = retryingFetch(globalThis.fetch, {
      maxRetries: 3,
      maxWaitMs: 10,
      logger: capturingLogger(),
      provider: "test",
    });
    const body = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode("{}"));
        c.close();
      },
    });
    const response = await fetch(`${server.baseURL}/chat/completions`, {
      method: "POST",
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(503);
    expect(server.requests).toHaveLength(1);
  });
});

describe("the policy", () => {
  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 31 Dec 2025 00:00:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  it("backs off exponentially with full jitter under the cap", () => {
    expect(backoffMs(0, 60_000, () => 0.5)).toBe(250);
    expect(backoffMs(3, 60_000, () => 0.5)).toBe(2000);
    expect(backoffMs(20, 60_000, () => 0.999)).toBeLessThan(60_000);
    expect(backoffMs(2, 60_000, () => 0)).toBe(0);
  });
});
