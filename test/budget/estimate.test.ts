/** The worst-case estimate of one request: input, output bound, and the cache rule. */
import { describe, expect, it } from "vitest";
import type { ModelMessage } from "ai";
import { estimateTokens, type ModelRequest } from "ubiquity/plugin";
import type { Kernel } from "ubiquity";
import { testModel } from "ubiquity/testing";
import { getPricingApi } from "ubiquity/plugins/pricing";
import { costOf } from "../../plugins/pricing/index";
import { ASSUMED_OUTPUT_TOKENS, CACHE_TRUST_MS, estimateRequest, type SentRecord } from "../../plugins/budget/index";
import { echo } from "./helpers";

const api = getPricingApi({} as Kernel);
const pricing = { input: 10, output: 30, cacheRead: 1, cacheWrite: 12.5 };
const priced = (extra: object = {}) => ({
  api,
  options: { modelPricing: { "acme-model": { ...pricing, ...extra } }, marketPricing: false },
});
const prompt: ModelMessage = { role: "user", content: "do the thing" };
const history: ModelMessage[] = [
  prompt,
  { role: "assistant", content: "done part one" },
  { role: "user", content: "and part two" },
];
const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: testModel(),
  modelLabel: "acme:acme-model",
  instructions: "You are helpful.",
  messages: history,
  tools: {},
  toolList: [echo],
  call: 1,
  purpose: "turn",
  ...over,
});
const sent = (over: Partial<SentRecord> = {}): SentRecord => ({
  modelLabel: "acme:acme-model",
  purpose: "turn",
  first: prompt,
  messages: 2,
  inputTokens: 5000,
  cachedTokens: 4000,
  at: Date.now(),
  ...over,
});

describe("input tokens", () => {
  it("without a count: the kernel's estimate over instructions, messages and tool schemas", async () => {
    const e = await estimateRequest(request(), undefined, undefined);
    expect(e.inputTokens).toBeGreaterThan(estimateTokens("You are helpful.") + estimateTokens(history));
    expect(e.cachedTokens).toBe(0);
  });

  it("with the provider's count of the conversation it extends: the count plus what was added since", async () => {
    const e = await estimateRequest(request(), sent(), undefined);
    expect(e.inputTokens).toBe(5000 + estimateTokens(history.slice(2)));
  });

  it("a conversation it does not extend (another first message, fewer messages, another purpose) is estimated whole", async () => {
    const whole = (await estimateRequest(request(), undefined, undefined)).inputTokens;
    expect(
      (await estimateRequest(request(), sent({ first: { role: "user", content: "other" } }), undefined)).inputTokens,
    ).toBe(whole);
    expect((await estimateRequest(request(), sent({ messages: 9 }), undefined)).inputTokens).toBe(whole);
    expect((await estimateRequest(request({ purpose: "compact" }), sent(), undefined)).inputTokens).toBe(whole);
  });
});

describe("output tokens", () => {
  it("maxOutputTokens, else the price entry's maxOutputTokens, else the documented assumption", async () => {
    expect(
      (await estimateRequest(request({ maxOutputTokens: 700 }), undefined, priced({ maxOutputTokens: 9000 })))
        .outputTokens,
    ).toBe(700);
    expect((await estimateRequest(request(), undefined, priced({ maxOutputTokens: 9000 }))).outputTokens).toBe(9000);
    expect((await estimateRequest(request(), undefined, priced())).outputTokens).toBe(ASSUMED_OUTPUT_TOKENS);
    expect(ASSUMED_OUTPUT_TOKENS).toBe(32_000);
  });
});

describe("the cache rule", () => {
  it("a prefix the same model reported cached moments ago is priced at the cache-read rate; the rest at the higher of input and cache write", async () => {
    const e = await estimateRequest(request({ maxOutputTokens: 100 }), sent(), priced());
    expect(e.cachedTokens).toBe(4000);
    const uncached = e.inputTokens - 4000;
    expect(e.costUsd).toBeCloseTo(
      costOf(
        { inputTokens: e.inputTokens, cacheReadTokens: 4000, cacheWriteTokens: uncached, outputTokens: 100 },
        pricing,
      ),
      12,
    );
  });

  it("not cached: another model, or a report older than five minutes", async () => {
    expect((await estimateRequest(request(), sent({ modelLabel: "acme:other" }), priced())).cachedTokens).toBe(0);
    expect(
      (await estimateRequest(request(), sent({ at: Date.now() - CACHE_TRUST_MS - 1 }), priced())).cachedTokens,
    ).toBe(0);
  });

  it("a model with no known price has a token estimate and no USD one", async () => {
    const e = await estimateRequest(request({ modelLabel: "acme:unknown" }), undefined, priced());
    expect(e.costUsd).toBeUndefined();
    expect(e.tokens).toBe(e.inputTokens + e.outputTokens);
  });
});
