/**
 * The summarizer takes the one model-call path: its request passes through `model.request`
 * (marked with its purpose, so the conversation's own taps can leave it alone), its response
 * through `model.response`, a retryable failure is retried by the retry plugin like any call,
 * and its usage lands in the run's ledger exactly once (tokens and cost).
 */
import { describe, expect, it } from "vitest";
import { definePlugin, summon, type Options } from "ubiquity";
import { REQUEST_STAGE, type ModelRequest, type ModelResponse } from "ubiquity/plugin";
import { scriptedModel, type ScriptedTurn } from "ubiquity/testing";
import model from "ubiquity/plugins/model";
import retry from "ubiquity/plugins/retry";
import { collect, resultOf } from "../helpers/collect";
import { call, capturingLogger, compactionPlugins, sizedTool, systemMessages } from "./helpers";

// Window 100k, threshold 70k: the second response reports 80k, so the third turn compacts first.
const script: ScriptedTurn[] = [
  { toolCalls: [call("Read", 100, "r0")], usage: { inputTokens: 1_000, outputTokens: 40 } },
  { toolCalls: [call("Read", 100, "r1")], usage: { inputTokens: 80_000, outputTokens: 40 } },
  { text: "done", usage: { inputTokens: 1_000, outputTokens: 5 } },
];

function observer() {
  const requests: ModelRequest[] = [];
  const responses: ModelResponse[] = [];
  const plugin = definePlugin({
    name: "test:observer",
    apply(kernel) {
      kernel.hooks.model.request.tap({ name: "test:observer", stage: REQUEST_STAGE.OBSERVE }, (request) => {
        requests.push(request);
        return request;
      });
      kernel.hooks.model.response.tap("test:observer", (response) => void responses.push(response));
    },
  });
  return { plugin, requests, responses };
}

async function run(summarizerScript: ScriptedTurn[], options: Partial<Options> = {}, plugins: unknown[] = []) {
  const seen = observer();
  const main = scriptedModel(script, { modelId: "main" });
  const summarizer = scriptedModel(summarizerScript, { modelId: "summarizer" });
  const logger = capturingLogger();
  const messages = await collect(
    summon("port the parser", {
      model: main,
      compactModel: summarizer,
      presets: [],
      plugins: [...compactionPlugins(), ...(plugins as never[]), seen.plugin],
      tools: [sizedTool("Read")],
      maxContextTokens: 100_000,
      compactKeepRecent: 2,
      logger,
      modelPricing: { "scripted:main": { input: 1, output: 2 }, "scripted:summarizer": { input: 10, output: 20 } },
      ...options,
    }),
  );
  return {
    ...seen,
    main,
    summarizer,
    logger,
    result: resultOf(messages),
    boundaries: systemMessages(messages, "compact_boundary"),
  };
}

describe("the summarizer's model call", () => {
  it("passes model.request (purpose compact) and model.response, and its usage counts once in usage and cost", async () => {
    const { requests, responses, result, boundaries } = await run([
      { text: "SUMMARY", usage: { inputTokens: 5_000, outputTokens: 500 } },
    ]);
    expect(result.isError).toBe(false);
    expect(boundaries).toHaveLength(1);

    expect(requests.map((r) => [r.purpose, r.modelLabel, r.call])).toEqual([
      ["turn", "scripted:main", 1],
      ["turn", "scripted:main", 2],
      ["compact", "scripted:summarizer", 3],
      ["turn", "scripted:main", 4],
    ]);
    const summary = requests[2]!;
    expect(summary.toolList).toEqual([]);
    expect(summary.tools).toEqual({});
    expect(String(summary.instructions)).toContain("You summarize the earlier part");

    expect(responses.map((r) => [r.request.purpose, r.modelLabel, r.text])).toEqual([
      ["turn", "scripted:main", ""],
      ["turn", "scripted:main", ""],
      ["compact", "scripted:summarizer", "SUMMARY"],
      ["turn", "scripted:main", "done"],
    ]);
    expect(responses[2]!.usage).toMatchObject({ inputTokens: 5_000, outputTokens: 500, requests: 1 });

    const mainIn = 1_000 + 80_000 + 1_000;
    const mainOut = 40 + 40 + 5;
    expect(result.usage).toEqual({
      inputTokens: mainIn + 5_000,
      outputTokens: mainOut + 500,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      requests: 4,
      toolCalls: 2,
    });
    expect(result.modelUsage).toEqual({
      "scripted:main": {
        inputTokens: mainIn,
        outputTokens: mainOut,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        requests: 3,
        // The main model's responses made both calls; the summarizer's made none.
        toolCalls: 2,
      },
      "scripted:summarizer": {
        inputTokens: 5_000,
        outputTokens: 500,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        requests: 1,
        toolCalls: 0,
      },
    });
    expect(result.totalCostUsd).toBeCloseTo((mainIn * 1 + mainOut * 2 + 5_000 * 10 + 500 * 20) / 1_000_000, 12);
  });

  it("is retried by the retry plugin after a retryable failure, and only the answered attempt is charged", async () => {
    const { summarizer, requests, responses, result, boundaries, logger } = await run(
      [
        { error: { status: 503, message: "overloaded" } },
        { text: "SUMMARY", usage: { inputTokens: 5_000, outputTokens: 500 } },
      ],
      { retryMaxWaitMs: 5 },
      [model(), retry()],
    );
    expect(result.isError).toBe(false);
    expect(summarizer.requests).toHaveLength(2);
    expect(boundaries).toHaveLength(1);
    expect(logger.lines.join("\n")).toMatch(/scripted:summarizer call attempt 1\/\d+ failed/);
    expect(requests.filter((r) => r.purpose === "compact")).toHaveLength(1);
    expect(responses.filter((r) => r.request.purpose === "compact")).toHaveLength(1);
    expect(result.modelUsage["scripted:summarizer"]).toMatchObject({
      inputTokens: 5_000,
      outputTokens: 500,
      requests: 1,
    });
    expect(result.usage).toMatchObject({ inputTokens: 82_000 + 5_000, outputTokens: 85 + 500, requests: 4 });
  });
});

describe("a request that cannot be built", () => {
  it("ends the run in the tap's own words, as before the call path was shared", async () => {
    const guard = definePlugin({
      name: "test:guard",
      apply(kernel) {
        kernel.hooks.model.request.tap({ name: "test:guard", stage: REQUEST_STAGE.GUARD }, () => {
          throw new Error("refused to send");
        });
      },
    });
    const messages = await collect(summon("hi", { model: scriptedModel(["never"]), presets: [], plugins: [guard] }));
    const result = resultOf(messages);
    expect(result).toMatchObject({
      isError: true,
      subtype: "error_during_execution",
      result: "[plugin test:guard] hook model.request: refused to send",
    });
  });
});
