/**
 * Full compaction: the summary replaces the older history; PreCompact may veto and PostCompact
 * gets the summary; unfinished todos are re-stated; compactInstructions reach the summarizer; a
 * failure leaves the history untouched and the run goes on, and three in a row stop the trying;
 * the summary's tokens and cost are the run's.
 */
import { describe, expect, it } from "vitest";
import { summon, type HookInput, type Options } from "ubiquity";
import { scriptedModel, type ScriptedTurn } from "ubiquity/testing";
import hooksPlugin from "ubiquity/plugins/hooks";
import todos from "ubiquity/plugins/todos";
import { TodoWriteTool } from "../../plugins/tool-todo/index";
import { collect, resultOf } from "../helpers/collect";
import { call, capturingLogger, compactionPlugins, sizedTool, systemMessages, textOf } from "./helpers";

// Window 100k, threshold 70k: every response after the first reports 80k, so each turn is over.
const overEveryTurn = (turns: number): ScriptedTurn[] => [
  ...Array.from({ length: turns - 1 }, (_, i) => ({
    toolCalls: [call("Read", 100, `r${i}`)],
    usage: { inputTokens: i === 0 ? 1_000 : 80_000, outputTokens: 40 },
  })),
  { text: "done", usage: { inputTokens: 1_000, outputTokens: 5 } },
];

async function compactRun(
  script: ScriptedTurn[],
  summarizerScript: ScriptedTurn[] | (() => ScriptedTurn),
  options: Partial<Options> = {},
  plugins: unknown[] = [],
) {
  const model = scriptedModel(script, { modelId: "main" });
  const summarizer = scriptedModel(typeof summarizerScript === "function" ? summarizerScript : summarizerScript, {
    modelId: "summarizer",
  });
  const logger = capturingLogger();
  const messages = await collect(
    summon("port the parser", {
      model,
      compactModel: summarizer,
      presets: [],
      plugins: [...compactionPlugins(), ...(plugins as never[])],
      tools: [sizedTool("Read")],
      maxContextTokens: 100_000,
      compactKeepRecent: 2,
      logger,
      ...options,
    }),
  );
  return {
    messages,
    model,
    summarizer,
    logger,
    result: resultOf(messages),
    boundaries: systemMessages(messages, "compact_boundary"),
  };
}

describe("the summary", () => {
  it("replaces the older history, marked by compact_boundary; compactInstructions reach the summarizer", async () => {
    const { model, summarizer, boundaries, result } = await compactRun(
      overEveryTurn(3),
      [{ text: "They asked to port the parser; r0 was read." }],
      {
        compactInstructions: "Keep every file path.",
      },
    );
    expect(result.isError).toBe(false);
    expect(boundaries).toHaveLength(1);
    expect(boundaries[0]).toMatchObject({ trigger: "auto" });
    const system = textOf(summarizer.requests[0]!, "system");
    expect(system).toContain("You summarize the earlier part");
    expect(system.trimEnd().endsWith("Keep every file path.")).toBe(true);
    // The summarizer read the older history as a transcript.
    expect(textOf(summarizer.requests[0]!, "user")).toContain("port the parser");
    const after = model.requests[2]!;
    // The prompt and the first response went into the summary; the newest response and its result stayed.
    const conversation = after.prompt.filter((m) => m.role !== "system").map((m) => m.role);
    expect(conversation).toEqual(["user", "assistant", "tool"]);
    expect(textOf(after, "user")).toMatch(/^This session continues an earlier conversation/);
    expect(textOf(after, "user")).toContain("<summary>\nThey asked to port the parser; r0 was read.\n</summary>");
  });

  it("is vetoed by a PreCompact hook; PostCompact receives the summary otherwise", async () => {
    const seen: HookInput[] = [];
    const vetoed = await compactRun(
      overEveryTurn(3),
      ["never"],
      {
        hooks: {
          PreCompact: [
            { hooks: [(input) => (seen.push(input), { decision: "block" as const, reason: "keep it all" })] },
          ],
        },
      },
      [hooksPlugin()],
    );
    expect(vetoed.summarizer.requests).toHaveLength(0);
    expect(vetoed.boundaries).toHaveLength(0);
    expect(seen[0]).toMatchObject({ hookEventName: "PreCompact", extra: { trigger: "auto" } });
    expect(textOf(vetoed.model.requests[2]!, "user")).toContain("port the parser");

    const post: HookInput[] = [];
    const allowed = await compactRun(
      overEveryTurn(3),
      ["THE SUMMARY"],
      {
        hooks: { PostCompact: [{ hooks: [(input) => void post.push(input)] }] },
      },
      [hooksPlugin()],
    );
    expect(allowed.boundaries).toHaveLength(1);
    expect(post).toHaveLength(1);
    expect(post[0]).toMatchObject({ hookEventName: "PostCompact", message: "THE SUMMARY" });
  });

  it("SessionStart fires again with source compact (matcher `compact`), its context going with the summary; PreCompact's matcher is its trigger", async () => {
    const sources: unknown[] = [];
    const triggers: unknown[] = [];
    const run = await compactRun(
      overEveryTurn(3),
      ["THE SUMMARY"],
      {
        hooks: {
          SessionStart: [
            {
              matcher: "compact",
              hooks: [
                (input) => (
                  sources.push(input.extra.source), { additionalContext: "Re-read CONVENTIONS.md after a compaction." }
                ),
              ],
            },
          ],
          PreCompact: [
            { matcher: "auto", hooks: [(input) => void triggers.push(input.extra.trigger)] },
            { matcher: "manual", hooks: [() => ({ decision: "block" as const, reason: "never for manual" })] },
          ],
        },
      },
      [hooksPlugin()],
    );
    expect(run.boundaries).toHaveLength(1);
    expect(sources).toEqual(["compact"]); // the startup SessionStart did not match "compact"
    expect(triggers).toEqual(["auto"]);
    const after = run.model.requests[2]!;
    expect(textOf(after, "user")).toContain("THE SUMMARY");
    expect(textOf(after, "user")).toContain("Re-read CONVENTIONS.md after a compaction.");
  });

  it("re-states unfinished todos after the summary", async () => {
    const script: ScriptedTurn[] = [
      {
        toolCalls: [
          {
            toolName: "TodoWrite",
            input: {
              todos: [
                { content: "Port the tokenizer", status: "completed" },
                { content: "Port the parser", status: "in_progress", activeForm: "Porting the parser" },
                { content: "Write the tests", status: "pending" },
              ],
            },
          },
        ],
        usage: { inputTokens: 1_000, outputTokens: 40 },
      },
      { toolCalls: [call("Read")], usage: { inputTokens: 80_000, outputTokens: 40 } },
      { text: "done", usage: { inputTokens: 1_000, outputTokens: 5 } },
    ];
    const { model, boundaries } = await compactRun(
      script,
      ["SUMMARY"],
      {
        persistTodos: false,
        compactKeepRecent: 0,
        tools: [sizedTool("Read"), new TodoWriteTool()],
      },
      [todos()],
    );
    expect(boundaries).toHaveLength(1);
    const restated = textOf(model.requests[2]!, "user");
    expect(restated).toContain("SUMMARY");
    expect(restated).toMatch(/unfinished tasks \(1\/3 completed, 1 in progress\)/);
    expect(restated).toContain("[~] Port the parser");
    expect(restated).toContain("[ ] Write the tests");
  });
});

describe("failures", () => {
  it("leave the history untouched and the run going; three in a row stop the trying", async () => {
    const failing = () => ({ error: { status: 500, message: "summarizer down" } });
    const { model, summarizer, boundaries, result, logger } = await compactRun(overEveryTurn(7), failing);
    expect(result.isError).toBe(false);
    expect(result.numTurns).toBe(7);
    expect(boundaries).toHaveLength(0);
    // Over on turns 3..7, but only three attempts were made.
    expect(summarizer.requests).toHaveLength(3);
    for (const request of model.requests) expect(textOf(request, "user")).toContain("port the parser");
    expect(model.requests[6]!.prompt.filter((m) => m.role === "tool")).toHaveLength(6);
    expect(logger.warnings.filter((w) => w.includes("compaction failed: summarizer down"))).toHaveLength(3);
    expect(logger.warnings.at(-1)).toContain("3 consecutive failures, so this run stops compacting");
  });

  it("count only consecutive failures: a success in between resets the breaker", async () => {
    let n = 0;
    const flaky = () => (n++ % 3 === 2 ? { text: `SUMMARY ${n}` } : { error: { status: 500, message: "flaky" } });
    const { summarizer, boundaries } = await compactRun(overEveryTurn(9), flaky);
    // Over on turns 3..9: fail, fail, success, fail, fail, success, fail — never three in a row.
    expect(summarizer.requests).toHaveLength(7);
    expect(boundaries).toHaveLength(2);
  });

  it("a summary that would not shrink the context is not applied", async () => {
    const { model, boundaries, logger, result } = await compactRun(overEveryTurn(3), [
      { text: "much longer than what it replaces ".repeat(300) },
    ]);
    expect(result.isError).toBe(false);
    expect(boundaries).toHaveLength(0);
    expect(logger.warnings.join("\n")).toMatch(
      /compaction skipped: the summary .* is not smaller than the 3 messages it would replace/,
    );
    const after = model.requests[2]!;
    expect(textOf(after, "user")).toBe("port the parser");
    expect(after.prompt.filter((m) => m.role === "tool")).toHaveLength(2);
  });

  it("an empty summary is a failure too", async () => {
    const { boundaries, logger } = await compactRun(overEveryTurn(3), [{ text: "" }]);
    expect(boundaries).toHaveLength(0);
    expect(logger.warnings.join("\n")).toMatch(/returned no text.*set compactModel/);
  });
});

describe("cost", () => {
  it("charges the summary to the run: its tokens in usage and modelUsage, its price in totalCostUsd", async () => {
    const { result } = await compactRun(
      overEveryTurn(3),
      [{ text: "SUMMARY", usage: { inputTokens: 5_000, outputTokens: 500 } }],
      {
        modelPricing: { "scripted:main": { input: 1, output: 2 }, "scripted:summarizer": { input: 10, output: 20 } },
      },
    );
    const mainIn = 1_000 + 80_000 + 1_000;
    const mainOut = 40 + 40 + 5;
    expect(result.modelUsage["scripted:summarizer"]).toMatchObject({
      inputTokens: 5_000,
      outputTokens: 500,
      requests: 1,
    });
    expect(result.modelUsage["scripted:main"]).toMatchObject({
      inputTokens: mainIn,
      outputTokens: mainOut,
      requests: 3,
    });
    expect(result.usage).toMatchObject({ inputTokens: mainIn + 5_000, outputTokens: mainOut + 500, requests: 4 });
    const expected = (mainIn * 1 + mainOut * 2 + 5_000 * 10 + 500 * 20) / 1_000_000;
    expect(result.totalCostUsd).toBeCloseTo(expected, 12);
  });

  it("an unpriced summarizer makes the total unknown, never a partial sum", async () => {
    const { result } = await compactRun(overEveryTurn(3), ["SUMMARY"], {
      modelPricing: { "scripted:main": { input: 1, output: 2 } },
      marketPricing: false,
    });
    expect(result.totalCostUsd).toBeNull();
  });
});
