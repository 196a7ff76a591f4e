/**
 * One retry layer: whatever fails, a model call is sent at most `maxRetries + 1` times — the
 * transport's retries and the call's retries never multiply (issue 37, failure 7: a 200 that was
 * not a stream was sent (maxRetries + 1)² times). Real provider packages against a loopback server
 * that answers every request with the same fault.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer, type FakeTurn } from "ubiquity/testing";
import { openaiCompatible } from "ubiquity/plugins/model";
import type { SummonOptions } from "ubiquity";
import { resultOf } from "../helpers/collect";
import { run } from "../model/helpers";

const servers: FakeProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function always(turn: FakeTurn): Promise<FakeProviderServer> {
  const server = await startProviderServer(() => turn);
  servers.push(server);
  return server;
}

const KINDS = {
  "openai string": (s: FakeProviderServer): SummonOptions => ({ model: "openai.chat:gpt-4o", apiKey: "sk-test", providerSettings: { baseURL: s.baseURL } }),
  "anthropic string": (s: FakeProviderServer): SummonOptions => ({ model: "anthropic:claude-sonnet-4-5", apiKey: "sk-ant-test", providerSettings: { baseURL: s.baseURL } }),
  openaiCompatible: (s: FakeProviderServer): SummonOptions => ({ model: openaiCompatible("local-model", { baseURL: s.baseURL }) }),
};

const FAULTS: { what: string; turn: FakeTurn }[] = [
  { what: "a 200 with an HTML page", turn: { fault: "raw", contentType: "text/html", body: "<html>proxy login</html>" } },
  { what: "a 200 with an empty stream", turn: { fault: "raw", contentType: "text/event-stream", body: "" } },
  { what: "a 503", turn: { status: 503 } },
  { what: "a dropped connection", turn: { drop: true } },
  { what: "a reset mid-stream", turn: { fault: "reset-mid-stream" } },
];

describe.each(Object.entries(KINDS))("through %s", (_kind, optionsFor) => {
  it.each(FAULTS)("$what on every attempt: sent maxRetries + 1 times, then an error result", async ({ turn }) => {
    const server = await always(turn);
    const result = resultOf(await run("hi", { ...optionsFor(server), maxRetries: 2, retryMaxWaitMs: 5 }));
    expect(result.isError).toBe(true);
    expect(server.requests).toHaveLength(3);
  });
});
