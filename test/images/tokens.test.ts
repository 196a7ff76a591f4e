/**
 * The token estimate counts an image as IMAGE_TOKENS, whatever its size, not its base64 as text:
 * a 3 MB screenshot is ~1,600 tokens to the compaction trigger, not a million. Through a run:
 * reading a big image under a 50,000-token context budget does not set off a summary.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ModelMessage } from "ai";
import { estimateTokens, IMAGE_TOKENS } from "ubiquity/plugin";
import { CHARS_PER_TOKEN } from "../../src/tokens";
import { summon } from "ubiquity";
import compactionSummarize from "ubiquity/plugins/compaction-summarize";
import { ReadTool } from "../../plugins/tool-read/index";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { modelLayer } from "../model/helpers";
import { microcompact } from "../../plugins/compaction-micro/clear";
import { png } from "./fixtures";

// The built-in tools whose kind is clearable (read, search, edit, execute).
const BUILTIN_CLEARABLE = new Set(["Read", "Write", "Edit", "Bash", "Glob", "Grep", "apply_patch"]);

const temp = tempDirs();
const big = png(16, 16, 3 * 1024 * 1024).toString("base64");

const toolImage = (data: string): ModelMessage => ({
  role: "tool",
  content: [
    {
      type: "tool-result",
      toolCallId: "c1",
      toolName: "Read",
      output: {
        type: "content",
        value: [
          { type: "text", text: "an image" },
          { type: "file", mediaType: "image/png", data: { type: "data", data } },
        ],
      },
    },
  ],
});

describe("estimateTokens and images", () => {
  it("counts a message without images as its JSON, whether or not its text mentions images", () => {
    const message = (text: string): ModelMessage => ({
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "c1", toolName: "Bash", output: { type: "text", value: text } }],
    });
    for (const text of ['plain "quoted" \\ output\n', "an image of the type image/png was written", "ünïcödé ✓"]) {
      const list = [message(text), { role: "assistant", content: text } as ModelMessage];
      expect(estimateTokens(list), text).toBe(Math.ceil(JSON.stringify(list).length / CHARS_PER_TOKEN));
      expect(estimateTokens(list[0]), text).toBe(Math.ceil(JSON.stringify(list[0]).length / CHARS_PER_TOKEN));
    }
  });

  it("counts a file part of an image type as IMAGE_TOKENS, not its base64", () => {
    const withImage = estimateTokens([toolImage(big)]);
    const withoutData = estimateTokens([toolImage("")]);
    expect(big.length).toBeGreaterThan(4_000_000);
    expect(withImage).toBeLessThan(IMAGE_TOKENS + 200);
    expect(withImage).toBeGreaterThanOrEqual(IMAGE_TOKENS);
    expect(withImage - IMAGE_TOKENS).toBeLessThanOrEqual(withoutData);
  });

  it("counts a user image part the same way, once per image", () => {
    const user: ModelMessage = {
      role: "user",
      content: [
        { type: "text", text: "two shots" },
        { type: "image", image: big, mediaType: "image/png" },
        { type: "image", image: big },
      ],
    };
    expect(estimateTokens([user])).toBeLessThan(2 * IMAGE_TOKENS + 100);
    expect(estimateTokens([user])).toBeGreaterThanOrEqual(2 * IMAGE_TOKENS);
  });

  it("counts strings and other values as before (characters / 4)", () => {
    expect(estimateTokens("abcdefgh")).toBe(2);
    expect(estimateTokens({ type: "file", mediaType: "application/pdf", data: "x".repeat(400) })).toBeGreaterThan(100);
  });
});

describe("microcompaction and an old image result", () => {
  it("clears it like any old Read result, saving about IMAGE_TOKENS (not the base64's length / 4)", () => {
    const history: ModelMessage[] = [
      { role: "user", content: "look" },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "Read", input: { file_path: "a.png" } }],
      },
      toolImage(big),
      { role: "assistant", content: [{ type: "text", text: "seen" }] },
    ];
    const out = microcompact(history, 0, BUILTIN_CLEARABLE);
    expect(out.toolUseIds).toEqual(["c1"]);
    expect(JSON.stringify(out.messages)).not.toContain(big.slice(0, 1000));
    expect(out.tokensSaved).toBeGreaterThan(IMAGE_TOKENS - 50);
    expect(out.tokensSaved).toBeLessThan(IMAGE_TOKENS + 50);
  });
});

describe("a run that reads a 3 MB image under a 50,000-token budget", () => {
  it("does not compact: the image counts as IMAGE_TOKENS", async () => {
    const cwd = temp("ubq-tokens-");
    writeFileSync(join(cwd, "screen.png"), png(16, 16, 3 * 1024 * 1024));
    const model = scriptedModel(
      [
        {
          toolCalls: [{ toolName: "Read", input: { file_path: "screen.png" }, id: "c1" }],
          usage: { inputTokens: 800, outputTokens: 10 },
        },
        { text: "a screenshot", usage: { inputTokens: 2600, outputTokens: 5 } },
      ],
      { modelId: "vision" },
    );
    const messages = await collect(
      summon("look", {
        presets: [],
        plugins: [...modelLayer().plugins, compactionSummarize()],
        tools: [new ReadTool()],
        cwd,
        model,
        maxContextTokens: 50_000,
        compactKeepRecent: 0, // everything before the next response may be summarized: only the estimate holds it back
        modelCapabilities: { "scripted:vision": { images: true } },
      }),
    );
    expect(resultOf(messages).isError, resultOf(messages).result).toBe(false);
    expect(ofType(messages, "system").filter((m) => m.subtype === "compact_boundary")).toHaveLength(0);
    expect(model.requests).toHaveLength(2); // no summary call in between
    expect(JSON.stringify(model.requests[1]!.prompt)).toContain("image/png");
  });
});
