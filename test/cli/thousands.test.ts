import { describe, expect, it } from "vitest";
import { formatSummary, thousands } from "../../runner/render";
import type { ResultMessage } from "../../src/index";

describe("thousands (the runner's numbers without ICU)", () => {
  it('writes every number as toLocaleString("en-US") does', () => {
    const values = [
      0,
      7,
      12,
      999,
      1000,
      1234,
      99_999,
      123_456,
      1_234_567,
      -1,
      -1234,
      -987_654_321,
      Number.MAX_SAFE_INTEGER,
      1234.5678,
      0.5,
      -0.25,
      1e21,
    ];
    for (let i = 0; i < 2000; i++)
      values.push(Math.floor(Math.random() * 10 ** (1 + (i % 15))) * (i % 3 === 0 ? -1 : 1));
    for (const x of values) expect(thousands(x), String(x)).toBe(x.toLocaleString("en-US"));
  });

  it("the closing line groups the token counts", () => {
    const result = {
      numTurns: 2,
      usage: { inputTokens: 1_234_567, outputTokens: 89, cacheReadTokens: 12_000 },
      totalCostUsd: null,
      durationMs: 1500,
    } as unknown as ResultMessage;
    expect(formatSummary(result)).toBe("2 turns · 1,234,567 in / 89 out tokens (12,000 cached) · cost unknown · 1.5s");
  });
});
