/**
 * Generation settings reach each provider in its own dialect (read from the request bodies the
 * local server recorded): maxTokens, temperature, maxThinkingTokens, and providerOptions passed
 * through untouched (the caller's keys win over derived ones).
 */
import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { reasoningEffort } from "../../plugins/model/index";
import { resultOf } from "../helpers/collect";
import { run } from "./helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function bodyOf(
  model: string,
  options: Record<string, unknown>,
  settings: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  server = await startProviderServer(["ok"]);
  const result = resultOf(
    await run("hi", { model, apiKey: "k", providerSettings: { baseURL: server.baseURL, ...settings }, ...options }),
  );
  expect(result.isError, result.result).toBe(false);
  return server.requests[0]!.body as Record<string, unknown>;
}

describe("maxThinkingTokens", () => {
  it("becomes Anthropic's thinking budget", async () => {
    const body = await bodyOf("anthropic:claude-sonnet-4-5", { maxThinkingTokens: 2048, maxTokens: 1000 });
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    // The AI SDK adds the budget on top of the answer's own limit.
    expect(body.max_tokens).toBe(3048);
  });

  it("becomes Google's thinking config", async () => {
    const body = await bodyOf("google:gemini-2.5-flash", { maxThinkingTokens: 1024 });
    expect((body.generationConfig as Record<string, unknown>).thinkingConfig).toEqual({
      thinkingBudget: 1024,
      includeThoughts: true,
    });
  });

  it("becomes OpenAI's reasoning effort", async () => {
    const body = await bodyOf("openai:o4-mini", { maxThinkingTokens: 20_000 });
    expect(body.reasoning).toMatchObject({ effort: "high" });
    expect([reasoningEffort(0), reasoningEffort(1024), reasoningEffort(8192), reasoningEffort(32_000)]).toEqual([
      "minimal",
      "low",
      "medium",
      "high",
    ]);
  });

  it("becomes Bedrock's reasoning config", async () => {
    const body = await bodyOf(
      "bedrock:anthropic.claude-sonnet-4-20250514-v1:0",
      { maxThinkingTokens: 4096 },
      { region: "us-east-1" },
    );
    expect(JSON.stringify(body)).toContain('"budget_tokens":4096');
  });

  it("yields to the caller's own providerOptions for the same provider", async () => {
    const body = await bodyOf("anthropic:claude-sonnet-4-5", {
      maxThinkingTokens: 2048,
      providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 1500 } } },
    });
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 1500 });
  });
});

describe("standard settings and providerOptions", () => {
  it("pass maxTokens and temperature in the provider's own field names", async () => {
    const chat = await bodyOf("openai.chat:gpt-4o", { maxTokens: 321, temperature: 0.25 });
    expect(chat).toMatchObject({ max_tokens: 321, temperature: 0.25 });
    await server!.close();
    const google = await bodyOf("google:gemini-2.5-flash", { maxTokens: 321, temperature: 0.25 });
    expect(google.generationConfig).toMatchObject({ maxOutputTokens: 321, temperature: 0.25 });
  });

  it("pass providerOptions through untouched", async () => {
    const body = await bodyOf("openai.chat:gpt-4o", {
      providerOptions: { openai: { user: "user-7", logitBias: { "50256": -100 } } },
    });
    expect(body).toMatchObject({ user: "user-7", logit_bias: { "50256": -100 } });
  });
});
