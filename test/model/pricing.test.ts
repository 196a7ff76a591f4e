/**
 * Cost (ubiquity:pricing): table matching, cache netting, run entries over the registry, the
 * genai-prices fallback that needs a known provider, and totalCostUsd null — never 0 — when
 * any response was unpriced.
 */
import { afterEach, describe, expect, it } from "vitest";
import { calcPrice } from "@pydantic/genai-prices";
import { createKernel, openaiCompatible, registerContextWindow, registerPricing } from "ubiquity";
import { createRun } from "../../src/index";
import type { ModelResponse } from "ubiquity/plugin";
import { scriptedModel, startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { clearRegisteredPricing } from "../../plugins/pricing/index";
import { getPricingApi } from "ubiquity/plugins/pricing";
import { resultOf } from "../helpers/collect";
import { capturingLogger, modelLayer, run } from "./helpers";

afterEach(() => clearRegisteredPricing());

const M = 1_000_000;
const priced = (
  modelId: string,
  usage: { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number },
  provider = "openai",
) => scriptedModel([{ text: "ok", usage }], { provider, modelId });

describe("modelPricing", () => {
  it("matches substrings of the model label, longest pattern first", async () => {
    const modelPricing = { "gpt-5": { input: 1, output: 2 }, "gpt-5-mini": { input: 0.1, output: 0.2 } };
    const mini = resultOf(
      await run("hi", { model: priced("gpt-5-mini-2025", { inputTokens: M, outputTokens: M }), modelPricing }),
    );
    expect(mini.totalCostUsd).toBeCloseTo(0.3, 10);
    const full = resultOf(
      await run("hi", { model: priced("gpt-5", { inputTokens: M, outputTokens: M }), modelPricing }),
    );
    expect(full.totalCostUsd).toBeCloseTo(3, 10);
  });

  it("nets cached tokens out of input before the input rate applies; unset cache rates price them as input", async () => {
    const usage = { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 600, cacheWriteTokens: 100 };
    const withRates = resultOf(
      await run("hi", {
        model: priced("claude-x", usage, "anthropic"),
        modelPricing: { "claude-x": { input: 10, output: 20, cacheRead: 1, cacheWrite: 12 } },
      }),
    );
    expect(withRates.totalCostUsd).toBeCloseTo((300 * 10 + 600 * 1 + 100 * 12 + 100 * 20) / M, 12);
    const inputRate = resultOf(
      await run("hi", {
        model: priced("claude-x", usage, "anthropic"),
        modelPricing: { "claude-x": { input: 10, output: 20 } },
      }),
    );
    expect(inputRate.totalCostUsd).toBeCloseTo((1000 * 10 + 100 * 20) / M, 12);
  });

  it("a run's entry beats registerPricing() whole; the registry applies when the run has none", async () => {
    registerPricing("my-model-large", { input: 100, output: 100 });
    const usage = { inputTokens: M, outputTokens: 0 };
    const own = resultOf(
      await run("hi", {
        model: priced("my-model-large", usage, "acme"),
        modelPricing: { "my-model": { input: 1, output: 1 } },
      }),
    );
    expect(own.totalCostUsd).toBeCloseTo(1, 10);
    const registered = resultOf(await run("hi", { model: priced("my-model-large", usage, "acme") }));
    expect(registered.totalCostUsd).toBeCloseTo(100, 10);
  });
});

describe("price and context-window patterns", () => {
  it("match case-insensitively for modelPricing, registerPricing and registerContextWindow (Claude-Opus prices claude-opus-4)", async () => {
    const usage = { inputTokens: M, outputTokens: 0 };
    const own = resultOf(
      await run("hi", {
        model: priced("claude-opus-4", usage, "acme"),
        modelPricing: { "Claude-Opus": { input: 7, output: 1 } },
      }),
    );
    expect(own.totalCostUsd).toBeCloseTo(7, 10);
    registerPricing("Claude-Opus", { input: 3, output: 1 });
    const registered = resultOf(
      await run("hi", { model: priced("claude-opus-4", usage, "acme"), marketPricing: false }),
    );
    expect(registered.totalCostUsd).toBeCloseTo(3, 10);
    registerPricing("claude-OPUS", { input: 4, output: 1 }); // the later registration wins, whatever its case
    expect(
      resultOf(await run("hi", { model: priced("claude-opus-4", usage, "acme"), marketPricing: false })).totalCostUsd,
    ).toBeCloseTo(4, 10);
    registerContextWindow("My-Local", 32_768);
    expect(
      await getPricingApi(createKernel({ ...modelLayer() })).contextWindow("ollama:my-local-model", {
        marketPricing: false,
      }),
    ).toBe(32_768);
  });
});

describe("market prices (@pydantic/genai-prices)", () => {
  it("price a known openai: model without any table", async () => {
    const usage = { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 200 };
    const expected = calcPrice(
      { input_tokens: 1000, output_tokens: 100, cache_read_tokens: 200, cache_write_tokens: 0 },
      "gpt-4o",
      { providerId: "openai" },
    )!.total_price;
    const result = resultOf(await run("hi", { model: priced("gpt-4o", usage) }));
    expect(expected).toBeGreaterThan(0);
    expect(result.totalCostUsd).toBeCloseTo(expected, 12);
  });

  it("are off with marketPricing: false", async () => {
    const result = resultOf(
      await run("hi", { model: priced("gpt-4o", { inputTokens: 1000, outputTokens: 100 }), marketPricing: false }),
    );
    expect(result.totalCostUsd).toBeNull();
  });

  it("never price openaiCompatible on localhost (unknown provider), named at debug", async () => {
    let server: FakeProviderServer | undefined;
    try {
      server = await startProviderServer([{ text: "local answer", usage: { inputTokens: 500, outputTokens: 50 } }]);
      const logger = capturingLogger();
      const result = resultOf(
        await run("hi", { model: openaiCompatible("gpt-4o", { baseURL: server.baseURL }), logger }),
      );
      expect(result.result).toBe("local answer");
      expect(result.usage.inputTokens).toBe(500);
      // Even a model id the market knows is not priced when the provider is unknown or local.
      expect(result.totalCostUsd).toBeNull();
      expect(logger.lines.join("\n")).toMatch(/no price for openai-compatible:gpt-4o/);
    } finally {
      await server?.close();
    }
  });
});

describe("totalCostUsd", () => {
  it("is null when one of several responses was unpriced, and the sum when all were priced", async () => {
    const primary = () =>
      scriptedModel(
        [
          { toolCalls: [{ toolName: "Echo", input: { text: "a" } }], usage: { inputTokens: M, outputTokens: 0 } },
          { error: { status: 503 } },
        ],
        { provider: "acme", modelId: "priced-model" },
      );
    const logger = capturingLogger();
    const mixed = resultOf(
      await run("go", {
        model: primary(),
        fallbackModel: scriptedModel(["from local"], { provider: "local", modelId: "llama" }),
        modelPricing: { "priced-model": { input: 2, output: 0 } },
        logger,
        maxRetries: 0,
      }),
    );
    expect(mixed.result).toBe("from local");
    expect(Object.keys(mixed.modelUsage ?? {})).toEqual(["acme:priced-model", "local:llama"]);
    // Each tool call counts for the model whose response made it, as in the run's total.
    expect(mixed.usage.toolCalls).toBe(1);
    expect(mixed.modelUsage?.["acme:priced-model"]?.toolCalls).toBe(1);
    expect(mixed.modelUsage?.["local:llama"]?.toolCalls).toBe(0);
    expect(mixed.totalCostUsd).toBeNull();
    expect(logger.lines.join("\n")).toMatch(/unpriced models: local:llama/);

    const both = resultOf(
      await run("go", {
        model: primary(),
        fallbackModel: scriptedModel([{ text: "from fallback", usage: { inputTokens: M, outputTokens: 0 } }], {
          provider: "local",
          modelId: "llama",
        }),
        modelPricing: { "priced-model": { input: 2, output: 0 }, "local:llama": { input: 0.5, output: 0 } },
        maxRetries: 0,
      }),
    );
    expect(both.totalCostUsd).toBeCloseTo(2.5, 10);
  });

  it("of a subagent run is added into its parent's", async () => {
    const kernel = createKernel({ ...modelLayer(), modelPricing: { child: { input: 1, output: 0 } } });
    const parent = createRun({ kernel, abortSignal: new AbortController().signal, sink: () => {} });
    const child = createRun({
      kernel,
      abortSignal: parent.abortSignal,
      sink: () => {},
      parent,
      agent: { agentId: "a1", agentType: "t", parentToolUseId: "u1" },
    });
    const response = (modelLabel: string) =>
      ({
        modelLabel,
        usage: { inputTokens: M, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, requests: 1, toolCalls: 0 },
      }) as ModelResponse;
    await kernel.hooks.model.response.promise(response("x:child"), child);
    expect(child.totalCostUsd).toBeCloseTo(1, 10);
    expect(parent.totalCostUsd).toBeCloseTo(1, 10);
    await kernel.hooks.model.response.promise(response("x:unknown-model"), child);
    expect(parent.totalCostUsd).toBeNull();
  });
});

describe("the pricing API", () => {
  it("exposes context windows: the run's entry, registerContextWindow(), then the market", async () => {
    const api = getPricingApi(createKernel({ ...modelLayer() }));
    expect(await api.contextWindow("openai:gpt-4o", {})).toBe(128_000);
    expect(
      await api.contextWindow("openai:gpt-4o", {
        modelPricing: { "gpt-4o": { input: 1, output: 1, contextWindow: 64_000 } },
      }),
    ).toBe(64_000);
    registerContextWindow("my-local", 32_768);
    expect(await api.contextWindow("ollama:my-local-model", {})).toBe(32_768);
    expect(await api.contextWindow("ollama:llama3", {})).toBeUndefined();
    expect(() => registerContextWindow("x", 0)).toThrow(TypeError);
    expect(() => registerPricing("x", { input: -1, output: 1 })).toThrow(/non-negative/);
  });
});
