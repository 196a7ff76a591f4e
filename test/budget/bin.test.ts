/**
 * `ubiquity run --max-budget-usd` through the built bin, with the default preset, against a real
 * OpenAI-format server: the run stops before the request that would pass the cap, exits 1, and
 * `--output-format json` carries the figures. A bad cap is a usage error (exit 2).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { cost, PRICE } from "./helpers";

const home = mkdtempSync(join(tmpdir(), "ubq-budget-home-"));
afterAll(() => {
  removeTempProjects();
  rmSync(home, { recursive: true, force: true });
});
beforeAll(requireDist);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// Large reported counts keep the figures clear of the default preset's system prompt and tool
// schemas (a few thousand tokens, estimated on the first request): request 2's worst case is
// $0.203 spent + ~$0.231, under $0.5; request 3's is $0.411 spent + ~$0.236, over it.
const r1 = { inputTokens: 20_000, outputTokens: 100 };
const r2 = { inputTokens: 20_500, outputTokens: 100 };

function project(): string {
  const config = {
    model: "openai:budget-model",
    apiKey: "k",
    providerSettings: { baseURL: server!.baseURL },
    modelPricing: { "budget-model": PRICE },
    maxTokens: 1000,
    persistSession: false,
  };
  return tempProject({ ".ubiquityrc.json": JSON.stringify(config), "a.txt": "a\n" });
}

describe("ubiquity run --max-budget-usd", () => {
  it("stops before the third request, exits 1, and the json result carries the figures", async () => {
    server = await startProviderServer([
      { toolCalls: [{ name: "Glob", input: { pattern: "*.txt" } }], usage: r1 },
      { toolCalls: [{ name: "Glob", input: { pattern: "*.md" } }], usage: r2 },
      { text: "never sent" },
    ]);
    const out = await runCli(
      ["run", "--max-budget-usd", "0.5", "--output-format", "json", "list the files"],
      project(),
      { HOME: home },
    );
    expect(out.code, out.stderr).toBe(1);
    expect(server.requests).toHaveLength(2);
    const result = JSON.parse(out.stdout) as {
      subtype: string;
      isError: boolean;
      result: string;
      budget: { spentUsd: number; maxBudgetUsd: number; spentTokens: number };
    };
    expect(result.subtype).toBe("error_max_budget_usd");
    expect(result.isError).toBe(true);
    expect(result.budget.maxBudgetUsd).toBe(0.5);
    expect(result.budget.spentUsd).toBeCloseTo(cost(r1) + cost(r2), 12);
    expect(result.budget.spentTokens).toBe(20_100 + 20_600);
    expect(result.result).toContain("maxBudgetUsd (now $0.5; --max-budget-usd in the runner)");
  });

  it("a cap that is not a positive number is a usage error naming the flag (exit 2), before any request", async () => {
    server = await startProviderServer(["never sent"]);
    for (const bad of ["0", "-1", "abc", "NaN", "Infinity"]) {
      const out = await runCli(["run", `--max-budget-usd=${bad}`, "hi"], project(), { HOME: home });
      expect(out.code, bad).toBe(2);
      expect(out.stderr).toContain("--max-budget-usd must be a number greater than 0");
    }
    for (const bad of ["1.5", "0"]) {
      const out = await runCli(["run", `--max-budget-tokens=${bad}`, "hi"], project(), { HOME: home });
      expect(out.code, bad).toBe(2);
      expect(out.stderr).toContain("--max-budget-tokens must be a whole number greater than 0");
    }
    expect(server.requests).toHaveLength(0);
  });
});
