/**
 * `telemetry: true` traces through the global tracer provider, and a run against a local server
 * speaking the OpenAI wire format behind the real `@ai-sdk/openai` has the AI SDK's own spans
 * (its agent, step and provider-call spans) inside each of Ubiquity's chat spans.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { trace } from "@opentelemetry/api";
import { afterEach, expect, it } from "vitest";
import { registerTelemetry } from "ai";
import { scriptedModel } from "ubiquity/testing";
import { summon } from "ubiquity";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { collect, resultOf } from "../helpers/collect";
import { memoryTracing, tree } from "./helpers";
import { tempDirs } from "../helpers/temp-dirs";

const temp = tempDirs();

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  trace.disable();
  delete (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown }).AI_SDK_TELEMETRY_INTEGRATIONS;
});

it("an integration registered with the AI SDK's registerTelemetry() still sees the calls when telemetry is on", async () => {
  const started: string[] = [];
  registerTelemetry({ onStart: (event) => void started.push(String((event as { functionId?: string }).functionId)) });
  const { tracer, settled } = memoryTracing();
  const result = resultOf(
    await collect(
      summon("hi", {
        model: scriptedModel(["hello"]),
        persistSession: false,
        marketPricing: false,
        telemetry: { tracer },
      }),
    ),
  );
  expect(result.isError).toBe(false);
  expect(started).toEqual(["ubiquity.turn"]);
  expect(tree(await settled()).named("invoke_agent ubiquity.turn")).toHaveLength(1);
});

it("telemetry: true uses the global tracer provider; the AI SDK's spans of an OpenAI call nest under the chat span", async () => {
  const { provider, settled } = memoryTracing();
  expect(trace.setGlobalTracerProvider(provider)).toBe(true);
  const dir = temp("ubq-telemetry-openai-");
  writeFileSync(join(dir, "a.ts"), "export {};\n");
  server = await startProviderServer([
    { toolCalls: [{ name: "Glob", input: { pattern: "*.ts" } }], usage: { inputTokens: 300, outputTokens: 12 } },
    { text: "one file", usage: { inputTokens: 420, outputTokens: 4, cacheReadTokens: 200 } },
  ]);
  const messages = await collect(
    summon("list the ts files", {
      model: "openai:gpt-4o",
      apiKey: "key-for-test",
      providerSettings: { baseURL: server.baseURL },
      cwd: dir,
      persistSession: false,
      marketPricing: false,
      maxRetries: 0,
      telemetry: true,
    }),
  );
  const result = resultOf(messages);
  expect(result.isError, result.result).toBe(false);
  expect(server.requests).toHaveLength(2);

  const t = tree(await settled());
  const root = t.one("invoke_agent ubiquity");
  expect(root.instrumentationScope.name).toBe("ubiquity");
  expect(root.attributes).toMatchObject({
    "gen_ai.provider.name": "openai",
    "gen_ai.request.model": "gpt-4o",
    "gen_ai.usage.input_tokens": 720,
  });
  const chats = t.named("chat gpt-4o").filter((s) => s.attributes["ubiquity.model.purpose"] === "turn");
  expect(chats, t.outline()).toHaveLength(2);
  expect(chats[1]!.attributes).toMatchObject({
    "gen_ai.usage.input_tokens": 420,
    "gen_ai.usage.cache_read.input_tokens": 200,
    "gen_ai.response.finish_reasons": ["stop"],
  });
  for (const chat of chats) {
    expect(t.parentOf(chat)?.name).toBe("turn");
    const inner = t.spans.filter((s) => t.ancestors(s).includes(chat));
    const sdkChat = inner.find((s) => s.name === "chat gpt-4o");
    expect(sdkChat, t.outline()).toBeDefined();
    // The provider call's own span: what the AI SDK saw on the wire.
    expect(sdkChat!.attributes["gen_ai.usage.input_tokens"]).toBe(chat.attributes["gen_ai.usage.input_tokens"]);
    expect(String(sdkChat!.attributes["gen_ai.provider.name"])).toMatch(/^openai/);
  }
  expect(t.one("execute_tool Glob").attributes).toMatchObject({
    "gen_ai.tool.name": "Glob",
    "ubiquity.permission.decision": "allow",
  });
});
