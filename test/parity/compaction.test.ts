/** Parity: compaction in the default preset (seed README: "Compaction", "Cost" context_window). */
import { describe, expect, it } from "vitest";
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HookInput, Message, Options } from "ubiquity";
import { scriptedModel, type ScriptedTurn } from "ubiquity/testing";
import { resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { run } from "./helpers";

const temp = tempDirs();

const boundaries = (ms: Message[]) => ms.filter((m) => m.type === "system" && m.subtype === "compact_boundary");

async function longRun(options: Partial<Options>) {
  const cwd = realpathSync(temp());
  writeFileSync(join(cwd, "f.txt"), "line\n".repeat(50));
  const turns: ScriptedTurn[] = [
    {
      toolCalls: [{ toolName: "Read", id: "r0", input: { file_path: join(cwd, "f.txt") } }],
      usage: { inputTokens: 1_000, outputTokens: 20 },
    },
    {
      toolCalls: [{ toolName: "Glob", id: "g1", input: { pattern: "*" } }],
      usage: { inputTokens: 80_000, outputTokens: 20 },
    },
    {
      toolCalls: [{ toolName: "Glob", id: "g2", input: { pattern: "*" } }],
      usage: { inputTokens: 80_000, outputTokens: 20 },
    },
    { text: "done", usage: { inputTokens: 1_000, outputTokens: 5 } },
  ];
  const model = scriptedModel(turns, { modelId: "main" });
  const summarizer = scriptedModel(() => ({ text: "SHORT SUMMARY" }), { modelId: "summarizer" });
  const messages = await run("port the parser", {
    model,
    cwd,
    compactModel: summarizer,
    compactKeepRecent: 2,
    ...options,
  });
  return { messages, model, summarizer };
}

describe("compaction", () => {
  it("a pricing entry's contextWindow feeds the trigger; the summary replaces older history under a compact_boundary; PostCompact gets it", async () => {
    const post: HookInput[] = [];
    const { messages, summarizer, model } = await longRun({
      modelPricing: { main: { input: 1, output: 1, contextWindow: 100_000 }, summarizer: { input: 1, output: 1 } },
      hooks: { PostCompact: [{ hooks: [async (i) => void post.push(i)] }] },
    });
    expect(resultOf(messages).isError).toBe(false);
    expect(summarizer.requests.length).toBeGreaterThan(0);
    expect(boundaries(messages).length).toBeGreaterThan(0);
    expect(JSON.stringify(model.requests.at(-1)!.prompt)).toContain("SHORT SUMMARY");
    expect(post[0]).toMatchObject({ hookEventName: "PostCompact", message: "SHORT SUMMARY" });
  });

  it("maxContextTokens overrides the pricing entry's window", async () => {
    const { messages, summarizer } = await longRun({
      modelPricing: { main: { input: 1, output: 1, contextWindow: 100_000 } },
      maxContextTokens: 1_000_000,
    });
    expect(summarizer.requests).toHaveLength(0);
    expect(boundaries(messages)).toHaveLength(0);
  });

  it("a PreCompact hook vetoes the compaction; autoCompact: false turns it off", async () => {
    const vetoed = await longRun({
      maxContextTokens: 100_000,
      hooks: { PreCompact: [{ hooks: [async () => ({ decision: "block", reason: "keep" })] }] },
    });
    expect(vetoed.summarizer.requests).toHaveLength(0);
    expect(boundaries(vetoed.messages)).toHaveLength(0);
    const off = await longRun({ maxContextTokens: 100_000, autoCompact: false });
    expect(off.summarizer.requests).toHaveLength(0);
  });

  it("the system prompt says older results may be cleared and older messages summarized", async () => {
    const model = scriptedModel(["done"]);
    await run("x", { model, cwd: temp() });
    const system = model.requests[0]!.prompt.filter((m) => m.role === "system")
      .map((m) => m.content)
      .join("\n");
    expect(system).toMatch(/summar/i);
    expect(system).toMatch(/clear/i);
  });
});
