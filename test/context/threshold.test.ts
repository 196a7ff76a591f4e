/**
 * The trigger: a token reserve (window − summary room capped by maxTokens − headroom), the
 * context-window resolution order, and pressure measured as the provider's last input count plus
 * an estimate of what landed since — so fresh tool results push a run over on their own.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createKernel, registerContextWindow, summon, type Options } from "ubiquity";
import { createRun } from "../../src/index";
import { scriptedModel, type ScriptedTurn } from "ubiquity/testing";
import pricing, { clearRegisteredPricing } from "../../plugins/pricing/index";
import microcompaction, {
  budgetFor,
  DEFAULT_CONTEXT_WINDOW,
  resolveContextWindow,
} from "../../plugins/compaction-micro/index";
import { collect, resultOf } from "../helpers/collect";
import { call, capturingLogger, compactionPlugins, sizedTool, systemMessages, textOf, toolResults } from "./helpers";

afterEach(() => clearRegisteredPricing());

describe("budgetFor", () => {
  it("reserves room for the summary and headroom for the next request", () => {
    expect(budgetFor(200_000, {})).toEqual({
      window: 200_000,
      threshold: 167_000,
      summaryReserve: 20_000,
      headroom: 13_000,
    });
  });

  it("caps the summary reserve by maxTokens", () => {
    expect(budgetFor(200_000, { maxTokens: 4_096 })).toMatchObject({
      threshold: 200_000 - 4_096 - 13_000,
      summaryReserve: 4_096,
    });
  });

  it("keeps most of a small window usable (reserve and headroom are capped at a share of it)", () => {
    expect(budgetFor(32_768, {})).toEqual({
      window: 32_768,
      threshold: 32_768 - 6_553 - 3_276,
      summaryReserve: 6_553,
      headroom: 3_276,
    });
  });

  it("takes compactThreshold as a fraction of the window instead", () => {
    expect(budgetFor(1_000_000, { compactThreshold: 0.8 }).threshold).toBe(800_000);
  });
});

describe("the context window", () => {
  const windowFor = async (label: string, options: Partial<Options> = {}, env: NodeJS.ProcessEnv = {}) => {
    const logger = capturingLogger();
    const kernel = createKernel({ presets: [], plugins: [pricing(), microcompaction()], logger, ...options });
    const run = createRun({ kernel, abortSignal: new AbortController().signal, sink: () => {} });
    return { window: await resolveContextWindow(run, label, env), logger };
  };
  const entry = { "my-model": { input: 1, output: 1, contextWindow: 64_000 } };

  it("is maxContextTokens, then the pricing entry, then registerContextWindow, then the env, then the default", async () => {
    registerContextWindow("my-model", 99_000);
    expect((await windowFor("acme:my-model", { maxContextTokens: 50_000, modelPricing: entry })).window).toEqual({
      tokens: 50_000,
      source: "maxContextTokens",
    });
    expect((await windowFor("acme:my-model", { modelPricing: entry })).window).toEqual({
      tokens: 64_000,
      source: "pricing",
    });
    expect((await windowFor("acme:my-model")).window).toEqual({ tokens: 99_000, source: "pricing" });
    const env = { UBIQUITY_MAX_CONTEXT_TOKENS: "150000" };
    expect((await windowFor("acme:other", {}, env)).window).toEqual({
      tokens: 150_000,
      source: "UBIQUITY_MAX_CONTEXT_TOKENS",
    });
    expect((await windowFor("acme:other")).window).toEqual({ tokens: DEFAULT_CONTEXT_WINDOW, source: "default" });
  });

  it("ignores a malformed UBIQUITY_MAX_CONTEXT_TOKENS with a warning that shows the fix", async () => {
    const { window, logger } = await windowFor("acme:other", {}, { UBIQUITY_MAX_CONTEXT_TOKENS: "200k" });
    expect(window.source).toBe("default");
    expect(logger.warnings.join("\n")).toMatch(
      /UBIQUITY_MAX_CONTEXT_TOKENS="200k" is not a positive integer.*e\.g\. 200000/,
    );
  });
});

describe("pressure on a run", () => {
  // Window 100k: summary reserve 20k, headroom 10k, threshold 70k.
  const base = { maxContextTokens: 100_000, compactKeepRecent: 2 } satisfies Partial<Options>;
  const tools = [sizedTool("Read")];

  async function runScript(script: ScriptedTurn[], options: Partial<Options> = {}) {
    const model = scriptedModel(script, { modelId: "main" });
    const summarizer = scriptedModel(() => ({ text: "SUMMARY-TEXT", usage: { inputTokens: 100, outputTokens: 10 } }), {
      modelId: "summarizer",
    });
    const messages = await collect(
      summon("work", {
        model,
        compactModel: summarizer,
        presets: [],
        plugins: compactionPlugins(),
        tools,
        ...base,
        ...options,
      }),
    );
    return { messages, model, summarizer, boundaries: systemMessages(messages, "compact_boundary") };
  }

  it("counts the tool results that just landed: a large read pushes a run under the threshold over it", async () => {
    const script = (lastRead: number): ScriptedTurn[] => [
      { toolCalls: [call("Read", 100, "first")], usage: { inputTokens: 60_000, outputTokens: 50 } },
      { toolCalls: [call("Read", 100, "second")], usage: { inputTokens: 60_500, outputTokens: 50 } },
      { toolCalls: [call("Read", lastRead, "third")], usage: { inputTokens: 64_000, outputTokens: 50 } },
      { text: "done", usage: { inputTokens: 61_500, outputTokens: 5 } },
    ];
    // 64k reported + a 28k-character result (~7k tokens) is over 70k.
    const over = await runScript(script(28_000));
    expect(resultOf(over.messages).isError).toBe(false);
    expect(over.summarizer.requests).toHaveLength(1);
    expect(over.boundaries).toHaveLength(1);
    expect(over.boundaries[0]!.tokensBefore).toBeGreaterThan(71_000);
    expect(over.boundaries[0]!.tokensBefore).toBeLessThan(72_000);
    expect(over.boundaries[0]!.tokensAfter).toBeLessThan(over.boundaries[0]!.tokensBefore);
    const last = over.model.requests.at(-1)!;
    expect(textOf(last, "user")).toContain("SUMMARY-TEXT");
    // The newest response and its result were kept; the older ones went into the summary.
    expect(toolResults(last).map((r) => r.text.slice(0, 6))).toEqual(["third:"]);

    // The same run with a small last read stays under: provider counts, not history characters, set the pace.
    const under = await runScript(script(100));
    expect(under.summarizer.requests).toHaveLength(0);
    expect(under.boundaries).toHaveLength(0);
  });

  it("keeps the provider's last reported input count when a later response reports no usage", async () => {
    const { boundaries, summarizer } = await runScript([
      { toolCalls: [call("Read", 4_000, "first")], usage: { inputTokens: 68_000, outputTokens: 50 } },
      // No usage reported: the 68k still stands, and this 12k-character result lands on top of it.
      { toolCalls: [call("Read", 12_000, "second")], usage: { inputTokens: 0, outputTokens: 0 } },
      { text: "done", usage: { inputTokens: 10_000, outputTokens: 5 } },
    ]);
    expect(summarizer.requests).toHaveLength(1);
    expect(boundaries).toHaveLength(1);
    expect(boundaries[0]!.tokensBefore).toBeGreaterThan(72_000);
  });

  it("lets maxTokens cap the summary reserve, which raises the threshold (and bounds the summary)", async () => {
    const script = (input: number): ScriptedTurn[] => [
      { toolCalls: [call("Read")], usage: { inputTokens: input, outputTokens: 50 } },
      { text: "done" },
    ];
    // 75k: over 70k with the default reserve, under 86k when maxTokens 4000 caps it.
    const uncapped = await runScript(script(75_000), { compactKeepRecent: 0 });
    expect(uncapped.summarizer.requests).toHaveLength(1);
    expect(uncapped.summarizer.requests[0]!.maxOutputTokens).toBe(20_000);
    const capped = await runScript(script(75_000), { compactKeepRecent: 0, maxTokens: 4_000 });
    expect(capped.summarizer.requests).toHaveLength(0);
    const cappedOver = await runScript(script(87_000), { compactKeepRecent: 0, maxTokens: 4_000 });
    expect(cappedOver.summarizer.requests).toHaveLength(1);
    expect(cappedOver.summarizer.requests[0]!.maxOutputTokens).toBe(4_000);
  });

  it("uses compactThreshold when given", async () => {
    const script: ScriptedTurn[] = [
      { toolCalls: [call("Read")], usage: { inputTokens: 45_000, outputTokens: 50 } },
      { text: "done" },
    ];
    expect((await runScript(script, { compactKeepRecent: 0 })).summarizer.requests).toHaveLength(0);
    expect((await runScript(script, { compactKeepRecent: 0, compactThreshold: 0.4 })).summarizer.requests).toHaveLength(
      1,
    );
  });
});
