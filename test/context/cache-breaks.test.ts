/**
 * Cache-break detection: a fall in cache reads of more than 5% and more than 2,000 tokens is
 * reported (warning event and log line) naming what changed — a tool's description or schema,
 * the tool set, the system prompt, the model; compaction resets the baseline; providers
 * reporting no cache tokens stay silent; off unless `detectCacheBreaks: true`.
 */
import { describe, expect, it } from "vitest";
import { definePlugin, summon, type Options, type Plugin, type Tool } from "ubiquity";
import { SYSTEM_STAGE, type KernelEvent } from "ubiquity/plugin";
import { scriptedModel, type ScriptedTurn } from "ubiquity/testing";
import cacheBreaks, { changes, snapshot } from "../../plugins/cache-breaks/index";
import { collect, resultOf } from "../helpers/collect";
import { call, capturingLogger, compactionPlugins, sizedTool } from "./helpers";
import { z } from "zod";
import { defineTool } from "ubiquity";
import type { ModelRequest } from "ubiquity/plugin";

/** Usage of one scripted turn. */
const cached = (read: number, written: number) => ({
  inputTokens: read + written + 500,
  outputTokens: 20,
  cacheReadTokens: read,
  cacheWriteTokens: written,
});

/** Turns calling Read, with the given cache counts, then a final answer. */
const turns = (...usage: [number, number][]): ScriptedTurn[] =>
  usage.map(([read, written], i) =>
    i === usage.length - 1
      ? { text: "done", usage: cached(read, written) }
      : { toolCalls: [call("Read")], usage: cached(read, written) },
  );

/** A plugin that swaps tools in from the given turn on (by replacing same-name tools in the list). */
function swapFrom(turn: number, replacement: Tool): Plugin {
  return definePlugin(() => ({
    name: "test:swap",
    apply(kernel) {
      kernel.hooks.tool.list.tap("test:swap", (tools, run) => {
        if (run.numTurns + 1 < turn) return tools;
        const i = tools.findIndex((t) => t.name === replacement.name);
        return i === -1 ? [...tools, replacement] : tools.map((t, j) => (j === i ? replacement : t));
      });
    },
  }))();
}

/** A plugin adding a system prompt section from the given turn on. */
function sectionFrom(turn: number): Plugin {
  return definePlugin(() => ({
    name: "test:section",
    apply(kernel) {
      kernel.hooks.turn.system.tap({ name: "test:section", stage: SYSTEM_STAGE.FEATURES }, (sections, run) =>
        run.numTurns + 1 < turn ? sections : [...sections, { id: "late", text: "A late note." }],
      );
    },
  }))();
}

async function detect(
  script: ScriptedTurn[],
  options: Partial<Options> = {},
  plugins: Plugin[] = [],
  tools: Tool[] = [sizedTool("Read"), sizedTool("Agent")],
) {
  const logger = capturingLogger();
  const events: KernelEvent[] = [];
  const watcher = definePlugin(() => ({
    name: "test:events",
    apply: (k) => k.hooks.event.tap("test:events", (e) => void events.push(e)),
  }))();
  const messages = await collect(
    summon("go", {
      model: scriptedModel(script),
      presets: [],
      plugins: [cacheBreaks(), ...plugins, watcher],
      tools,
      logger,
      detectCacheBreaks: true,
      ...options,
    }),
  );
  expect(resultOf(messages).isError, resultOf(messages).result).toBe(false);
  const warnings = events.flatMap((e) => (e.type === "warning" ? [e] : []));
  expect(warnings.map((w) => w.message)).toEqual(logger.warnings.filter((w) => w.startsWith("prompt cache break")));
  return warnings.map((w) => w.message);
}

describe("cache breaks", () => {
  it("names a tool whose description changed, with call number and counts", async () => {
    const agent = sizedTool("Agent", "Launch a subagent (now with a different listing)");
    const found = await detect(turns([0, 50_000], [48_210, 500], [0, 48_355], [48_355, 300]), {}, [swapFrom(3, agent)]);
    expect(found).toEqual([
      "prompt cache break: tool description changed (Agent) [call #3, cache read 48210 -> 0, written 48355]",
    ]);
  });

  it("names a tool whose schema changed", async () => {
    const agent = defineTool({
      name: "Agent",
      description: "Agent (test stand-in)",
      inputSchema: z.object({ prompt: z.string() }),
      execute: () => "ok",
    });
    const found = await detect(turns([0, 50_000], [48_210, 500], [0, 48_355], [48_355, 300]), {}, [swapFrom(3, agent)]);
    expect(found).toEqual([
      "prompt cache break: tool schema changed (Agent) [call #3, cache read 48210 -> 0, written 48355]",
    ]);
  });

  it("names a changed tool set and a changed system prompt", async () => {
    expect(
      await detect(turns([0, 30_000], [30_000, 100], [0, 30_200], [30_200, 0]), {}, [swapFrom(3, sizedTool("Skill"))]),
    ).toEqual(["prompt cache break: tool set changed (+Skill) [call #3, cache read 30000 -> 0, written 30200]"]);
    expect(
      await detect(turns([0, 30_000], [30_000, 100], [20_000, 10_200], [30_200, 0]), {}, [sectionFrom(3)]),
    ).toEqual(["prompt cache break: system prompt changed [call #3, cache read 30000 -> 20000, written 10200]"]);
  });

  it("says when nothing it watches changed (an expired cache)", async () => {
    expect(await detect(turns([0, 30_000], [30_000, 100], [0, 30_200]))).toEqual([
      "prompt cache break: no change to the model, system prompt or tools (the cache may have expired or been evicted) [call #3, cache read 30000 -> 0, written 30200]",
    ]);
  });

  it("needs both thresholds: more than 2,000 tokens and more than 5%", async () => {
    // 1,710 tokens is 3.5% of 48,210; 4,000 tokens is 4% of 100,000.
    const agent = sizedTool("Agent", "changed");
    expect(
      await detect(turns([0, 48_210], [48_210, 0], [46_500, 1_800], [46_500, 0]), {}, [swapFrom(3, agent)]),
    ).toEqual([]);
    expect(
      await detect(turns([0, 100_000], [100_000, 0], [96_000, 4_100], [96_000, 0]), {}, [swapFrom(3, agent)]),
    ).toEqual([]);
    // 2,100 tokens of 10,000 clears both.
    expect(
      await detect(turns([0, 10_000], [10_000, 0], [7_900, 2_200], [7_900, 0]), {}, [swapFrom(3, agent)]),
    ).toHaveLength(1);
  });

  it("stays silent for providers reporting no cache tokens, and when off", async () => {
    const agent = sizedTool("Agent", "changed");
    expect(await detect(turns([0, 0], [0, 0], [0, 0]), {}, [swapFrom(2, agent)])).toEqual([]);
    expect(
      await detect(turns([0, 30_000], [30_000, 100], [0, 30_200]), { detectCacheBreaks: false }, [swapFrom(3, agent)]),
    ).toEqual([]);
  });

  it("resets the baseline on compaction, and never compares the summary call", async () => {
    // Window 100k, threshold 70k: the third call is over and compacts; the summary reports no cache reads.
    const script: ScriptedTurn[] = [
      { toolCalls: [call("Read")], usage: cached(0, 40_000) },
      { toolCalls: [call("Read")], usage: { ...cached(40_000, 500), inputTokens: 80_000 } },
      { toolCalls: [call("Read")], usage: cached(0, 3_000) },
      { text: "done", usage: cached(3_000, 100) },
    ];
    const summarizer = scriptedModel([{ text: "SUMMARY", usage: { inputTokens: 9_000, outputTokens: 100 } }]);
    const found = await detect(
      script,
      { compactModel: summarizer, maxContextTokens: 100_000, compactKeepRecent: 0, autoMicrocompact: false },
      compactionPlugins(),
    );
    expect(summarizer.requests).toHaveLength(1);
    expect(found).toEqual([]);
  });
});

describe("changes()", () => {
  const request = (over: Partial<ModelRequest>): ModelRequest =>
    ({
      model: {},
      modelLabel: "openai:gpt-5",
      instructions: "sys",
      messages: [],
      tools: {},
      toolList: [],
      call: 1,
      ...over,
    }) as ModelRequest;
  it("names a model change and ignores cache markers", () => {
    const a = snapshot(request({ instructions: "sys" }));
    const b = snapshot(
      request({
        modelLabel: "anthropic:claude-x",
        instructions: {
          role: "system",
          content: "sys",
          providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } },
        },
      }),
    );
    expect(changes(a, b)).toEqual(["model changed (openai:gpt-5 -> anthropic:claude-x)"]);
  });
});
