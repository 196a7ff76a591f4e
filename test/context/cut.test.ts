/**
 * Where full compaction cuts: before a model response, never between a tool call and its
 * result — also when one response makes several calls in parallel, and for every keep count.
 */
import { describe, expect, it } from "vitest";
import type { ModelMessage } from "ai";
import { summon } from "ubiquity";
import { scriptedModel, type ScriptedTurn } from "ubiquity/testing";
import { findCut } from "../../plugins/compaction-summarize/index";
import { collect, resultOf } from "../helpers/collect";
import { call, compactionPlugins, sizedTool, systemMessages, textOf, toolCallIds, toolResults } from "./helpers";

const user = (text: string): ModelMessage => ({ role: "user", content: text });
const calls = (...ids: string[]): ModelMessage => ({
  role: "assistant",
  content: [
    { type: "text", text: "working" },
    ...ids.map((id) => ({ type: "tool-call" as const, toolCallId: id, toolName: "Read", input: {} })),
  ],
});
const results = (...ids: string[]): ModelMessage => ({
  role: "tool",
  content: ids.map((id) => ({
    type: "tool-result" as const,
    toolCallId: id,
    toolName: "Read",
    output: { type: "text" as const, value: id },
  })),
});
const say = (text: string): ModelMessage => ({ role: "assistant", content: [{ type: "text", text }] });

// Parallel calls, a single call, a plain answer, a follow-up prompt, more parallel calls.
const HISTORY: ModelMessage[] = [
  user("start"),
  calls("a", "b", "c"),
  results("a", "b", "c"),
  calls("d"),
  results("d"),
  say("halfway"),
  user("go on"),
  calls("e", "f"),
  results("e", "f"),
];

/** True when every tool result in `tail` answers a call in `tail`. */
function whole(tail: ModelMessage[]): boolean {
  const ids = new Set(
    tail.flatMap((m) =>
      m.role === "assistant" && typeof m.content !== "string"
        ? m.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : []))
        : [],
    ),
  );
  return tail.every(
    (m) => m.role !== "tool" || m.content.every((p) => p.type !== "tool-result" || ids.has(p.toolCallId)),
  );
}

describe("findCut", () => {
  it.each(HISTORY.slice(0, 7).map((_, keep) => keep))(
    "keep %i: cuts before a response, keeps at least that many messages, splits no call from its result",
    (keep) => {
      const cut = findCut(HISTORY, keep);
      expect(cut).toBeDefined();
      expect(cut === HISTORY.length || HISTORY[cut!]!.role === "assistant").toBe(true);
      expect(HISTORY.length - cut!).toBeGreaterThanOrEqual(keep);
      expect(whole(HISTORY.slice(cut))).toBe(true);
    },
  );

  it("cuts as late as it can: keep 2 keeps the last parallel calls with both results", () => {
    expect(findCut(HISTORY, 2)).toBe(7);
    expect(findCut(HISTORY, 3)).toBe(5);
    expect(findCut(HISTORY, 0)).toBe(HISTORY.length);
  });

  it("moves earlier when a result arrives after another response (its call must stay on the kept side)", () => {
    const late: ModelMessage[] = [
      user("start"),
      say("reading"),
      calls("a", "b"),
      results("a"),
      say("waiting on b"),
      results("b"),
      calls("c"),
      results("c"),
    ];
    // Cutting before "waiting on b" would strand the result of b.
    expect(findCut(late, 4)).toBe(2);
    expect(whole(late.slice(findCut(late, 4)))).toBe(true);
  });

  it("finds nothing when everything must be kept", () => {
    expect(findCut(HISTORY, HISTORY.length)).toBeUndefined();
    expect(findCut([], 0)).toBeUndefined();
  });

  it("never a cut that summarizes only the first prompt", () => {
    // keep 7 and 8 leave only the prompt before the first response to summarize.
    expect(findCut(HISTORY, 7)).toBeUndefined();
    expect(findCut(HISTORY, 8)).toBeUndefined();
    expect(findCut([user("only")], 0)).toBeUndefined();
    expect(findCut([user("context"), user("the task"), calls("a"), results("a")], 2)).toBeUndefined();
    const late: ModelMessage[] = [
      user("start"),
      calls("a", "b"),
      results("a"),
      say("waiting on b"),
      results("b"),
      calls("c"),
      results("c"),
    ];
    expect(findCut(late, 4)).toBeUndefined();
  });
});

describe("full compaction with parallel tool calls", () => {
  // Window 100k, threshold 70k; the third response's results arrive while 69k is reported.
  const script: ScriptedTurn[] = [
    {
      toolCalls: [call("Read", 100, "a"), call("Grep", 100, "b"), call("Read", 100, "c")],
      usage: { inputTokens: 10_000, outputTokens: 20 },
    },
    { toolCalls: [call("Read", 100, "d")], usage: { inputTokens: 20_000, outputTokens: 20 } },
    {
      toolCalls: [call("Read", 4_000, "e"), call("Grep", 4_000, "f")],
      usage: { inputTokens: 69_000, outputTokens: 20 },
    },
    { text: "done", usage: { inputTokens: 10_000, outputTokens: 5 } },
  ];

  it.each([0, 1, 2, 3, 4])("compactKeepRecent %i: the next request pairs every result with its call", async (keep) => {
    const model = scriptedModel(script);
    const summarizer = scriptedModel(["SUMMARY"]);
    const messages = await collect(
      summon("go", {
        model,
        compactModel: summarizer,
        presets: [],
        plugins: compactionPlugins(),
        tools: [sizedTool("Read"), sizedTool("Grep")],
        maxContextTokens: 100_000,
        compactKeepRecent: keep,
        autoMicrocompact: false,
      }),
    );
    expect(resultOf(messages).isError).toBe(false);
    expect(systemMessages(messages, "compact_boundary")).toHaveLength(1);
    const after = model.requests[3]!;
    const callIds = new Set(toolCallIds(after));
    for (const r of toolResults(after)) expect(callIds.has(r.toolCallId), `${r.toolCallId} lost its call`).toBe(true);
    // Summary first, then (when anything was kept) a model response.
    const conversation = after.prompt.filter((m) => m.role !== "system");
    expect(conversation[0]!.role).toBe("user");
    if (conversation.length > 1) expect(conversation[1]!.role).toBe("assistant");
    expect(conversation.length - 1).toBeGreaterThanOrEqual(Math.min(keep, 7));
  });

  it.each([5, 6])("compactKeepRecent %i leaves only the prompt to summarize, so nothing is compacted", async (keep) => {
    const model = scriptedModel(script);
    const summarizer = scriptedModel(["SUMMARY"]);
    const messages = await collect(
      summon("go", {
        model,
        compactModel: summarizer,
        presets: [],
        plugins: compactionPlugins(),
        tools: [sizedTool("Read"), sizedTool("Grep")],
        maxContextTokens: 100_000,
        compactKeepRecent: keep,
        autoMicrocompact: false,
      }),
    );
    expect(resultOf(messages).isError).toBe(false);
    expect(systemMessages(messages, "compact_boundary")).toHaveLength(0);
    expect(summarizer.requests).toHaveLength(0);
    expect(textOf(model.requests[3]!, "user")).toBe("go");
  });
});
