/**
 * The spending cap against real HTTP servers speaking the OpenAI and Anthropic wire formats,
 * behind the real `@ai-sdk/openai` and `@ai-sdk/anthropic` packages: the request that would pass
 * the cap is never sent, and the result carries the figures.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer, type WireFamily } from "ubiquity/testing";
import { ofType } from "../helpers/collect";
import { cost, PRICE, run } from "./helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const CASES: { model: string; family: WireFamily }[] = [
  { model: "openai:budget-model", family: "openai-responses" },
  { model: "anthropic:budget-model", family: "anthropic" },
];

// Each response costs input × $10/M + output × $30/M. With maxTokens 1000 a request's worst case
// carries $0.03 of output: request 1 ≈ $0.031 and request 2 ≈ $0.013 spent + $0.040 fit under
// $0.06; request 3 ≈ $0.028 spent + $0.042 does not.
const r1 = { inputTokens: 1000, outputTokens: 100 };
const r2 = { inputTokens: 1200, outputTokens: 100 };
const script = () => [
  { toolCalls: [{ name: "Echo", input: { text: "one" } }], usage: r1 },
  { toolCalls: [{ name: "Echo", input: { text: "two" } }], usage: r2 },
  { text: "never sent", usage: { inputTokens: 1300, outputTokens: 10 } },
];

describe.each(CASES)("maxBudgetUsd against $family ($model)", (c) => {
  const options = () => ({
    model: c.model,
    apiKey: "k",
    providerSettings: { baseURL: server!.baseURL },
    modelPricing: { "budget-model": PRICE },
    maxTokens: 1000,
  });

  it("stops before the third request, which would pass the cap: the server saw two", async () => {
    server = await startProviderServer(script());
    const { result, messages } = await run("work", { ...options(), maxBudgetUsd: 0.06 });
    expect(server.requests.map((r) => r.family)).toEqual([c.family, c.family]);
    expect(result.subtype).toBe("error_max_budget_usd");
    expect(result.isError).toBe(true);
    const spent = cost(r1) + cost(r2);
    expect(result.budget?.spentUsd).toBeCloseTo(spent, 12);
    expect(result.totalCostUsd).toBeCloseTo(spent, 12);
    expect(result.budget?.maxBudgetUsd).toBe(0.06);
    expect(result.budget?.refused).toMatchObject({ modelLabel: c.model });
    expect(result.budget!.refused!.estimateUsd! + spent).toBeGreaterThan(0.06);
    expect(result.result).toContain("maxBudgetUsd (now $0.06");
    expect(result.result).toContain(`$${Number(spent.toFixed(6))} of the $0.06 budget is spent`);
    // Both tool calls ran; the answer to the second never went out.
    expect(ofType(messages, "tool_result")).toHaveLength(2);
    expect(result.usage.requests).toBe(2);
  });

  it("a cap with room for all three lets the run finish, with the figures in the result", async () => {
    server = await startProviderServer(script());
    const { result } = await run("work", { ...options(), maxBudgetUsd: 1 });
    expect(server.requests).toHaveLength(3);
    expect(result.subtype).toBe("success");
    expect(result.budget).toMatchObject({ maxBudgetUsd: 1, spentTokens: 1100 + 1300 + 1310 });
    expect(result.budget?.spentUsd).toBeCloseTo(
      cost(r1) + cost(r2) + cost({ inputTokens: 1300, outputTokens: 10 }),
      12,
    );
    expect(result.budget?.refused).toBeUndefined();
  });
});

describe("the cache rule against the Anthropic wire format", () => {
  // Request 1 writes 19,000 of its 20,000 input tokens to the cache ($0.249). Request 2 carries
  // the same prefix: priced as cache reads ($1/M) its worst case is ~$0.062 and fits under $0.4
  // beside what was spent; priced as fresh input (at the cache-write rate) it would be ~$0.28 and
  // would not.
  const cached = { input: 10, output: 30, cacheRead: 1, cacheWrite: 12.5 };
  const r1 = { inputTokens: 20_000, cacheWriteTokens: 19_000, outputTokens: 50 };
  const r2 = { inputTokens: 20_050, cacheReadTokens: 19_000, outputTokens: 10 };

  it("a prefix the provider just reported cached is priced at the cache-read rate", async () => {
    server = await startProviderServer([
      { toolCalls: [{ name: "Echo", input: { text: "one" } }], usage: r1 },
      { text: "done", usage: r2 },
    ]);
    const { result } = await run("work", {
      model: "anthropic:budget-model",
      apiKey: "k",
      providerSettings: { baseURL: server.baseURL },
      modelPricing: { "budget-model": cached },
      maxTokens: 1000,
      maxBudgetUsd: 0.4,
    });
    expect(server.requests).toHaveLength(2);
    expect(result.subtype).toBe("success");
    expect(result.usage.cacheReadTokens).toBe(19_000);
    expect(result.budget?.spentUsd).toBeCloseTo(cost(r1, cached) + cost(r2, cached), 12);
  });
});

describe("maxBudgetTokens", () => {
  it("needs no price: the third request would pass 4000 tokens and is not sent", async () => {
    server = await startProviderServer(script());
    // No modelPricing, and the market does not know the model: tokens need no price.
    const { result } = await run("work", {
      model: "openai:budget-model",
      apiKey: "k",
      providerSettings: { baseURL: server.baseURL },
      maxTokens: 1000,
      maxBudgetTokens: 4000,
    });
    expect(server.requests).toHaveLength(2);
    expect(result.subtype).toBe("error_max_budget_tokens");
    expect(result.budget).toMatchObject({ maxBudgetTokens: 4000, spentTokens: 1100 + 1300 });
    expect(result.budget?.maxBudgetUsd).toBeUndefined();
    expect(result.result).toContain("maxBudgetTokens (now 4000");
    expect(result.totalCostUsd).toBeNull();
  });
});

describe("a model with no known price under maxBudgetUsd", () => {
  it("is refused before any request, and the error names modelPricing with an example", async () => {
    server = await startProviderServer(["never sent"]);
    const { result, messages } = await run("work", {
      model: "openai:budget-unpriced",
      apiKey: "k",
      providerSettings: { baseURL: server.baseURL },
      maxBudgetUsd: 5,
    });
    expect(server.requests).toHaveLength(0);
    expect(result.isError).toBe(true);
    // Refused while the run is set up: a configuration error (issue 38).
    expect(result.subtype).toBe("error_configuration");
    expect(result.result).toContain("openai:budget-unpriced has no known price");
    expect(result.result).toContain('modelPricing: { "budget-unpriced": { input: 3, output: 15 } }');
    expect(result.result).toContain("maxBudgetTokens");
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init" });
  });

  it("a fallback model with no price is refused when it would be used; the main model's request went out", async () => {
    server = await startProviderServer([{ status: 500, message: "down" }, "never sent"]);
    const { result } = await run("work", {
      model: "openai:budget-model",
      fallbackModel: "anthropic:budget-unpriced",
      apiKey: "k",
      providerSettings: { baseURL: server.baseURL },
      modelPricing: { "budget-model": PRICE },
      maxBudgetUsd: 5,
    });
    expect(server.requests.map((r) => r.family)).toEqual(["openai-responses"]);
    expect(result.isError).toBe(true);
    expect(result.result).toContain("anthropic:budget-unpriced has no known price");
  });

  it("a priced fallback model whose request would pass the cap is refused with error_max_budget_usd", async () => {
    server = await startProviderServer([{ status: 500, message: "down" }, "never sent"]);
    const { result } = await run("work", {
      model: "openai:budget-model",
      fallbackModel: "anthropic:budget-model-big",
      apiKey: "k",
      providerSettings: { baseURL: server.baseURL },
      // The fallback's output alone ($1000/M × 1000 tokens = $1) is over the $0.5 cap.
      modelPricing: { "budget-model": PRICE, "budget-model-big": { input: 10, output: 1000 } },
      maxTokens: 1000,
      maxBudgetUsd: 0.5,
    });
    expect(server.requests.map((r) => r.family)).toEqual(["openai-responses"]);
    expect(result.subtype).toBe("error_max_budget_usd");
    expect(result.budget?.refused?.modelLabel).toBe("anthropic:budget-model-big");
  });
});
