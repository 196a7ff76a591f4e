/**
 * fallbackModel (ubiquity:model on model.error): a provider failure that outlived the
 * transport's retries is answered by the fallback model; other errors do not fail over. The
 * result says which model answered each step.
 */
import { afterEach, expect, it } from "vitest";
import { scriptedModel, startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { createModel } from "ubiquity/plugins/model";
import { summon } from "ubiquity";
import { collect, ofType, resultOf } from "../helpers/collect";
import { run } from "./helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it("answers with the fallback after the primary exhausts its retries, and modelUsage shows both", async () => {
  // One server speaks both wire formats; the path picks the family.
  let groqCalls = 0;
  server = await startProviderServer((request) => {
    if (request.family === "anthropic")
      return { text: "fallback answered", usage: { inputTokens: 30, outputTokens: 4 } };
    return groqCalls++ === 0
      ? { toolCalls: [{ name: "Echo", input: { text: "x" } }], usage: { inputTokens: 20, outputTokens: 3 } }
      : { status: 503 };
  });
  const messages = await run("go", {
    model: "groq:llama-3.3-70b-versatile",
    fallbackModel: "anthropic:claude-haiku-4-5",
    apiKey: "shared-key",
    providerSettings: { baseURL: server.baseURL },
    maxRetries: 2,
    retryMaxWaitMs: 20,
  });
  const result = resultOf(messages);
  expect(result.result).toBe("fallback answered");
  // Step 1 on the primary; step 2: 1 + 2 retries on the primary, then the fallback.
  expect(server.requests.map((r) => r.family)).toEqual([
    "openai-chat",
    "openai-chat",
    "openai-chat",
    "openai-chat",
    "anthropic",
  ]);
  expect(ofType(messages, "assistant").map((m) => m.model)).toEqual([
    "groq:llama-3.3-70b-versatile",
    "anthropic:claude-haiku-4-5",
  ]);
  expect(result.modelUsage).toMatchObject({
    "groq:llama-3.3-70b-versatile": { inputTokens: 20, outputTokens: 3, requests: 1 },
    "anthropic:claude-haiku-4-5": { inputTokens: 30, outputTokens: 4, requests: 1 },
  });
  // The fallback got the same credentials.
  expect(server.requests[4]!.headers["x-api-key"]).toBe("shared-key");
});

it("fails over on a connection error too", async () => {
  const closed = await startProviderServer([]);
  await closed.close(); // nothing listens on its port any more
  server = await startProviderServer(["reached the fallback"]);
  const unreachable = await createModel("groq:llama", { apiKey: "k", providerSettings: { baseURL: closed.baseURL } });
  const result = resultOf(
    await run("go", {
      model: unreachable,
      fallbackModel: "openai.chat:gpt-4o-mini",
      apiKey: "k",
      providerSettings: { baseURL: server.baseURL },
    }),
  );
  expect(result.result).toBe("reached the fallback");
  expect(Object.keys(result.modelUsage ?? {})).toEqual(["openai:gpt-4o-mini"]);
});

it("does not fail over on an error that is not a provider failure", async () => {
  const fallback = scriptedModel(["should not answer"]);
  const broken = scriptedModel(() => {
    throw new Error("a bug, not a provider failure");
  });
  const result = resultOf(await run("go", { model: broken, fallbackModel: fallback }));
  expect(result.isError).toBe(true);
  expect(result.result).toMatch(/a bug, not a provider failure/);
  expect(fallback.played).toBe(0);
});

it("reports the primary's error when the fallback fails as well", async () => {
  const primary = scriptedModel([{ error: { status: 500, message: "primary down" } }]);
  const fallback = scriptedModel([{ error: { status: 500, message: "fallback down" } }]);
  // maxRetries: 0: the call retries of a constructed model would replay past the one-turn scripts.
  const result = resultOf(await run("go", { model: primary, fallbackModel: fallback, maxRetries: 0 }));
  expect(result.isError).toBe(true);
  expect(result.result).toMatch(/fallback down/);
  expect(fallback.played).toBe(1);
});

it("a fallbackModel that is the main model is refused before any request, as --fallback-model is", async () => {
  for (const options of [
    { model: "test", fallbackModel: "test" },
    // The same model by an alias.
    { model: "fast", fallbackModel: "test", modelAliases: { fast: "test" } },
  ]) {
    const result = resultOf(await collect(summon("hi", { ...options, persistSession: false })));
    expect(result).toMatchObject({ subtype: "error_configuration", isError: true, numTurns: 0 });
    expect(result.result).toContain('fallbackModel "test" is the main model');
  }
  const model = scriptedModel(["ok"]);
  const same = resultOf(await collect(summon("hi", { model, fallbackModel: model, persistSession: false })));
  expect(same.subtype).toBe("error_configuration");
  expect(model.requests).toHaveLength(0);
  // A different fallback still runs.
  const ok = resultOf(
    await collect(summon("hi", { model: "test", fallbackModel: "openai:gpt-5", persistSession: false })),
  );
  expect(ok.subtype).toBe("success");
});
