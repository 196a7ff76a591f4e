/**
 * Every model built from a string in a run — main, fallback, compact, subagent — gets the
 * run's apiKey, providerSettings and retrying fetch (compaction and subagents resolve through
 * the same model.resolve; here they are asked for directly with their roles).
 */
import { afterEach, expect, it } from "vitest";
import { generateText } from "ai";
import { createKernel } from "ubiquity";
import { createRun } from "../../src/index";
import { resolveModel } from "ubiquity/plugin";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { capturingLogger, modelLayer } from "./helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it.each(["compact", "subagent"] as const)("a %s model gets the run's key, settings and retries", async (role) => {
  server = await startProviderServer([{ status: 503 }, "summary text"]);
  const logger = capturingLogger();
  const kernel = createKernel({
    ...modelLayer(),
    apiKey: "role-key",
    providerSettings: { baseURL: server.baseURL },
    retryMaxWaitMs: 10,
    logger,
  });
  await kernel.ready();
  const run = createRun({ kernel, abortSignal: new AbortController().signal, sink: () => {} });
  const model = await resolveModel(run, "anthropic:claude-haiku-4-5", role);
  const { text } = await generateText({ model, prompt: "summarize", maxRetries: 0 });
  expect(text).toBe("summary text");
  expect(server.requests).toHaveLength(2);
  expect(server.requests.map((r) => r.headers["x-api-key"])).toEqual(["role-key", "role-key"]);
  expect(logger.lines.filter((l) => l.includes("[ubiquity:retry] anthropic"))).toHaveLength(2);
});
