/** Parity: cache-break detection and cachePrompt on a provider that caches by itself (seed README: "Prompt caching"). */
import { describe, expect, it } from "vitest";
import { scriptedModel, type ScriptedTurn } from "ubiquity/testing";
import { resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { run } from "./helpers";

const temp = tempDirs();

function capture() {
  const warnings: string[] = [];
  const text = (a: unknown[]) => a.map(String).join(" ");
  return {
    warnings,
    logger: { debug() {}, info() {}, error() {}, warn: (...a: unknown[]) => void warnings.push(text(a)) },
  };
}

const turns = (reads: number[]): ScriptedTurn[] => [
  ...reads.map((cacheReadTokens, i) => ({
    toolCalls: [{ toolName: "Glob", id: `g${i}`, input: { pattern: "*" } }],
    usage: { inputTokens: 60_000, outputTokens: 10, cacheReadTokens },
  })),
  { text: "done", usage: { inputTokens: 60_000, outputTokens: 5, cacheReadTokens: 50_000 } },
];

describe("cache-break detection", () => {
  it("warns when the cache-read count falls by more than 5% and 2,000 tokens; off by default", async () => {
    const on = capture();
    const r = resultOf(
      await run("x", {
        model: scriptedModel(turns([0, 50_000, 0])),
        cwd: temp(),
        detectCacheBreaks: true,
        logger: on.logger,
      }),
    );
    expect(r.isError).toBe(false);
    const breaks = on.warnings.filter((w) => w.includes("prompt cache break"));
    expect(breaks).toHaveLength(1);
    expect(breaks[0]).toMatch(/cache read 50000 -> 0/);
    const off = capture();
    await run("x", { model: scriptedModel(turns([0, 50_000, 0])), cwd: temp(), logger: off.logger });
    expect(off.warnings.filter((w) => w.includes("prompt cache break"))).toHaveLength(0);
  });

  it("a small drop (under 2,000 tokens) is not a break", async () => {
    const c = capture();
    await run("x", {
      model: scriptedModel(turns([0, 10_000, 8_500])),
      cwd: temp(),
      detectCacheBreaks: true,
      logger: c.logger,
    });
    expect(c.warnings.filter((w) => w.includes("prompt cache break"))).toHaveLength(0);
  });
});

describe("cachePrompt", () => {
  it("is inert where the provider caches by itself: the request is the same with it on or off", async () => {
    const a = scriptedModel(["ok"], { provider: "openai.responses", modelId: "gpt-5" });
    const b = scriptedModel(["ok"], { provider: "openai.responses", modelId: "gpt-5" });
    const cwd = temp();
    await run("x", { model: a, cwd, cachePrompt: true });
    await run("x", { model: b, cwd, cachePrompt: false });
    expect(JSON.stringify(a.requests[0]!.prompt)).toBe(JSON.stringify(b.requests[0]!.prompt));
    expect(JSON.stringify(a.requests[0]!.providerOptions ?? {})).toBe(
      JSON.stringify(b.requests[0]!.providerOptions ?? {}),
    );
  });
});
