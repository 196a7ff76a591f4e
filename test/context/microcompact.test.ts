/**
 * Microcompaction: older results of pure-observation tools (Read, Write, Edit, Bash, Glob, Grep)
 * are cleared in place, the newest `microcompactKeepRecent` kept; TodoWrite, Agent, Skill and MCP
 * results are never touched; full compaction is skipped when that was enough; the system prompt
 * mentions each tier only when it is on.
 */
import { describe, expect, it } from "vitest";
import type { ModelMessage } from "ai";
import { summon, type Options } from "ubiquity";
import { scriptedModel, type ScriptedTurn } from "ubiquity/testing";
import { CLEARED_MARKER, microcompact } from "../../plugins/compaction-micro/index";
import { collect, resultOf } from "../helpers/collect";
import { call, compactionPlugins, sizedTool, systemMessages, textOf, toolResults } from "./helpers";

// The built-in tools whose kind is clearable (read, search, edit, execute).
const BUILTIN_CLEARABLE = new Set(["Read", "Write", "Edit", "Bash", "Glob", "Grep", "apply_patch"]);

const NAMES = ["Read", "Write", "Edit", "Bash", "Glob", "Grep", "TodoWrite", "Agent", "Skill", "mcp__srv__lookup"];
const tools = NAMES.map((n) => sizedTool(n));

// Window 50k: summary reserve 10k, headroom 5k, threshold 35k. Each result is 20k characters (~5k tokens).
const BIG = 20_000;
const script: ScriptedTurn[] = [
  { toolCalls: [call("Read", BIG), call("Bash", BIG)], usage: { inputTokens: 1_000, outputTokens: 20 } },
  {
    toolCalls: [call("TodoWrite", BIG), call("Agent", BIG), call("Skill", BIG), call("mcp__srv__lookup", BIG)],
    usage: { inputTokens: 11_000, outputTokens: 20 },
  },
  { toolCalls: [call("Grep", BIG)], usage: { inputTokens: 31_500, outputTokens: 20 } },
  { text: "done", usage: { inputTokens: 20_000, outputTokens: 5 } },
];

async function runMicro(options: Partial<Options>) {
  const model = scriptedModel(script);
  const summarizer = scriptedModel(["unexpected summary"]);
  const messages = await collect(
    summon("look around", {
      model,
      compactModel: summarizer,
      presets: [],
      plugins: compactionPlugins(),
      tools,
      maxContextTokens: 50_000,
      ...options,
    }),
  );
  const cleared = (i: number) =>
    toolResults(model.requests[i]!)
      .filter((r) => r.text === CLEARED_MARKER)
      .map((r) => r.toolName);
  return { messages, model, summarizer, cleared, micro: systemMessages(messages, "microcompact") };
}

describe("microcompaction in a run", () => {
  it("clears the older eligible results once over the threshold, keeping the newest microcompactKeepRecent, and skips full compaction", async () => {
    const { messages, model, summarizer, cleared, micro } = await runMicro({ microcompactKeepRecent: 1 });
    expect(resultOf(messages).isError).toBe(false);
    // Under the threshold nothing is cleared; before the 4th call 31.5k + ~5k is over 35k.
    expect([0, 1, 2].map(cleared)).toEqual([[], [], []]);
    expect(cleared(3)).toEqual(["Read", "Bash"]);
    const kept = toolResults(model.requests[3]!)
      .filter((r) => r.text !== CLEARED_MARKER)
      .map((r) => r.toolName);
    expect(kept).toEqual(["TodoWrite", "Agent", "Skill", "mcp__srv__lookup", "Grep"]);
    expect(micro).toHaveLength(1);
    expect(micro[0]).toMatchObject({ cleared: 2 });
    expect(micro[0]!.tokensSaved).toBeGreaterThan(2 * 4_900);
    // The reclaimed tokens are subtracted: the run is back under, so no summary was written.
    expect(summarizer.requests).toHaveLength(0);
    expect(systemMessages(messages, "compact_boundary")).toHaveLength(0);
  });

  it("keeps the newest five by default and clears none of the stateful tools even with keep 0", async () => {
    expect((await runMicro({})).cleared(3)).toEqual([]);
    expect((await runMicro({ microcompactKeepRecent: 0 })).cleared(3)).toEqual(["Read", "Bash"]);
  });

  it("microcompactKeepRecent: 0 never clears the result of the call the model just made", async () => {
    const { model } = await runMicro({ microcompactKeepRecent: 0 });
    const grep = toolResults(model.requests[3]!).find((r) => r.toolName === "Grep")!;
    expect(grep.text).toMatch(/^Grep:x+$/);
  });

  it("is off with autoMicrocompact: false (then full compaction handles the pressure)", async () => {
    const { cleared, micro, summarizer, messages } = await runMicro({ autoMicrocompact: false, compactKeepRecent: 2 });
    expect(cleared(3)).toEqual([]);
    expect(micro).toHaveLength(0);
    expect(summarizer.requests).toHaveLength(1);
    expect(systemMessages(messages, "compact_boundary")).toHaveLength(1);
  });

  it("says so in the system prompt only for the tiers that are on", async () => {
    const system = async (options: Partial<Options>) => textOf((await runMicro(options)).model.requests[0]!, "system");
    const both = await system({});
    expect(both).toContain("Older tool results");
    expect(both).toContain("older messages are replaced by a summary");
    const microOnly = await system({ autoCompact: false });
    expect(microOnly).toContain("Older tool results");
    expect(microOnly).not.toContain("replaced by a summary");
    const none = await system({ autoCompact: false, autoMicrocompact: false });
    expect(none).not.toMatch(/older tool results|replaced by a summary/i);
  });
});

describe("microcompact()", () => {
  const result = (id: string, toolName: string, value: string): ModelMessage => ({
    role: "tool",
    content: [{ type: "tool-result", toolCallId: id, toolName, output: { type: "text", value } }],
  });

  const asking = (id: string): ModelMessage => ({
    role: "assistant",
    content: [{ type: "tool-call", toolCallId: id, toolName: "Bash", input: {} }],
  });

  it("leaves the input untouched, counts only what it clears, and never clears twice", () => {
    const history: ModelMessage[] = [
      result("a", "Read", "x".repeat(4_000)),
      result("b", "Glob", "y".repeat(400)),
      result("c", "Edit", "z"),
      asking("d"),
      result("d", "Bash", "w".repeat(400)),
    ];
    const snapshot = JSON.stringify(history);
    const first = microcompact(history, 2, BUILTIN_CLEARABLE);
    expect(JSON.stringify(history)).toBe(snapshot);
    expect(first.cleared).toBe(2);
    expect(first.messages[2]).toBe(history[2]);
    // keep 0 still leaves the result answering the latest response (the model has not seen it yet).
    const none = microcompact(history, 0, BUILTIN_CLEARABLE);
    expect(none.cleared).toBe(3);
    expect(none.messages[4]).toBe(history[4]);
    const again = microcompact(first.messages, 2, BUILTIN_CLEARABLE);
    expect(again).toMatchObject({ cleared: 0, tokensSaved: 0 });
  });
});
