/** Parity: cost from token counts (seed README: "Cost"). */
import { describe, expect, it } from "vitest";
import { registerPricing } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { run } from "./helpers";

const temp = tempDirs();
const M = 1_000_000;

describe("cost", () => {
  it("keys match substrings of the model name, longest pattern first", async () => {
    const model = scriptedModel([{ text: "ok", usage: { inputTokens: M, outputTokens: 0 } }], {
      provider: "openai",
      modelId: "gpt-5-mini",
    });
    const r = resultOf(
      await run("hi", {
        model,
        cwd: temp(),
        modelPricing: { "gpt-5": { input: 10, output: 0 }, "gpt-5-mini": { input: 1, output: 0 } },
      }),
    );
    expect(r.totalCostUsd).toBeCloseTo(1, 6);
  });

  it("cached tokens are netted out of input before the input rate applies", async () => {
    const model = scriptedModel([
      { text: "ok", usage: { inputTokens: M, outputTokens: 0, cacheReadTokens: 600_000, cacheWriteTokens: 100_000 } },
    ]);
    const r = resultOf(
      await run("hi", {
        model,
        cwd: temp(),
        modelPricing: { scripted: { input: 2, output: 0, cacheRead: 0.2, cacheWrite: 3 } },
      }),
    );
    expect(r.totalCostUsd).toBeCloseTo(0.3 * 2 + 0.6 * 0.2 + 0.1 * 3, 6);
    expect(r.usage).toMatchObject({ inputTokens: M, cacheReadTokens: 600_000, cacheWriteTokens: 100_000 });
  });

  it("unset cache rates price cached tokens as ordinary input", async () => {
    const model = scriptedModel([{ text: "ok", usage: { inputTokens: M, outputTokens: 0, cacheReadTokens: 500_000 } }]);
    const r = resultOf(await run("hi", { model, cwd: temp(), modelPricing: { scripted: { input: 2, output: 0 } } }));
    expect(r.totalCostUsd).toBeCloseTo(2, 6);
  });

  it("registerPricing declares a price process-wide; a run's own entry wins whole, without merging", async () => {
    registerPricing("parity-registered", { input: 1, output: 0, cacheRead: 0.1 });
    const usage = { inputTokens: M, outputTokens: 0, cacheReadTokens: M / 2 };
    const a = scriptedModel([{ text: "ok", usage }], { modelId: "parity-registered" });
    expect(resultOf(await run("hi", { model: a, cwd: temp() })).totalCostUsd).toBeCloseTo(0.5 + 0.05, 6);
    const b = scriptedModel([{ text: "ok", usage }], { modelId: "parity-registered" });
    const r = resultOf(
      await run("hi", { model: b, cwd: temp(), modelPricing: { "parity-registered": { input: 2, output: 0 } } }),
    );
    expect(r.totalCostUsd).toBeCloseTo(2, 6);
  });

  it("a subagent's responses are charged to the run's total, priced against the model that served them; one unpriced response makes it unknown", async () => {
    const parentTurns = (request: { prompt: { role: string }[] }) =>
      request.prompt.at(-1)?.role === "tool"
        ? { text: "done", usage: { inputTokens: M, outputTokens: 0 } }
        : {
            toolCalls: [
              { toolName: "Agent", id: "a", input: { subagent_type: "helper", description: "x", prompt: "x" } },
            ],
            usage: { inputTokens: M, outputTokens: 0 },
          };
    const parent = scriptedModel(({ request }) => parentTurns(request), { modelId: "parent-model" });
    const child = scriptedModel([{ text: "helped", usage: { inputTokens: M, outputTokens: 0 } }], {
      modelId: "child-model",
    });
    const priced = resultOf(
      await run("go", {
        model: parent,
        cwd: temp(),
        agents: { helper: { description: "h", prompt: "You help.", model: child } },
        modelPricing: { "parent-model": { input: 1, output: 0 }, "child-model": { input: 10, output: 0 } },
      }),
    );
    expect(priced.totalCostUsd).toBeCloseTo(1 + 1 + 10, 6);
    const parent2 = scriptedModel(({ request }) => parentTurns(request), { modelId: "parent-model" });
    const child2 = scriptedModel([{ text: "helped", usage: { inputTokens: M, outputTokens: 0 } }], {
      modelId: "child-model",
    });
    const unknown = resultOf(
      await run("go", {
        model: parent2,
        cwd: temp(),
        agents: { helper: { description: "h", prompt: "You help.", model: child2 } },
        modelPricing: { "parent-model": { input: 1, output: 0 } },
      }),
    );
    expect(unknown.totalCostUsd).toBeNull();
  });
});
