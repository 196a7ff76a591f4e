/**
 * Live sessions (issue 23): a message that arrives while a tool runs enters the conversation at
 * the next turn boundary, in the same session; every stretch of work ends in a `result`, and the
 * session's last message is a `result`.
 */
import { describe, expect, it } from "vitest";
import { summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { inbox, promptShape, slowTool } from "./helpers";

describe("a live session", () => {
  it("answers a message sent while a slow tool runs, after the tool, in the same session", async () => {
    const slow = slowTool();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Slow", input: {}, id: "call_1" }] },
      "answer to both",
      "third answer",
    ]);
    const input = inbox();
    input.push("first message");
    const messages: Message[] = [];
    const session = summon(input, { model, tools: [slow.tool], presets: [] });
    void slow.started.then(() => {
      input.push({ type: "user", text: "second message" });
      // Give the queue a moment, then let the tool finish: the message waits for the boundary.
      setTimeout(slow.release, 20);
    });
    let results = 0;
    for await (const m of session) {
      messages.push(m);
      if (m.type !== "result") continue;
      results++;
      if (results === 1) input.push("third message");
      if (results === 2) input.end();
    }

    // The second request carries the tool result, then the second message.
    expect(promptShape(model.requests[1]!.prompt as never).slice(-3)).toEqual([
      "assistant:call(call_1)",
      "tool:result(call_1:slow done)",
      "user:second message",
    ]);
    expect(promptShape(model.requests[2]!.prompt as never).at(-1)).toBe("user:third message");
    const types = messages.map((m) => (m.type === "system" ? `system/${m.subtype}` : m.type));
    expect(types).toEqual([
      "system/init",
      "user",
      "assistant",
      "tool_use",
      "tool_result",
      "user",
      "assistant",
      "result",
      "user",
      "assistant",
      "result",
    ]);
    expect(new Set(messages.map((m) => m.sessionId)).size).toBe(1);
    const [first, second] = messages.filter((m) => m.type === "result");
    expect(first).toMatchObject({ subtype: "success", result: "answer to both", numTurns: 2 });
    // Each result carries the session's totals so far; the last one is the stream's last message.
    expect(second).toMatchObject({ subtype: "success", result: "third answer", numTurns: 3 });
  });

  it("a live input whose messages all start one stretch gives one result", async () => {
    const model = scriptedModel(["one", "two"]);
    async function* two() {
      yield "hello";
      yield {
        type: "user" as const,
        content: [
          { type: "text" as const, text: "parts " },
          { type: "text" as const, text: "only" },
        ],
      };
    }
    const messages: Message[] = [];
    for await (const m of summon(two(), { model, presets: [] })) messages.push(m);
    // Both were queued before the work began: they start the stretch together, as one user message.
    expect(promptShape(model.requests[0]!.prompt as never)).toEqual(["user:hello|parts |only"]);
    expect(messages.filter((m) => m.type === "user").map((m) => (m as { text: string }).text)).toEqual([
      "hello",
      "parts only",
    ]);
    expect(messages.filter((m) => m.type === "result")).toHaveLength(1);
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "one" });
  });

  it("an input that ends before any message still opens with system/init and ends with a result", async () => {
    const model = scriptedModel([]);
    async function* none() {}
    const messages: Message[] = [];
    for await (const m of summon(none(), { model, presets: [] })) messages.push(m);
    expect(messages.map((m) => m.type)).toEqual(["system", "result"]);
    expect(model.requests).toHaveLength(0);
  });
});

describe("a user message's content parts", () => {
  it("reach the model unchanged (text and image parts), are in the stream, and a resume replays them", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const sessionDir = mkdtempSync(join(tmpdir(), "ubq-live-"));
    try {
      const image = { type: "image" as const, image: new Uint8Array([137, 80, 78, 71]), mediaType: "image/png" };
      const model = scriptedModel(["a picture", "still a picture"]);
      async function* one() {
        yield { type: "user" as const, text: "what is this?", content: [image] };
      }
      const messages: Message[] = [];
      for await (const m of summon(one(), {
        model,
        presets: [],
        plugins: [(await import("ubiquity/plugins/sessions")).default()],
        sessionDir,
        cwd: sessionDir,
      }))
        messages.push(m);
      const prompt = model.requests[0]!.prompt as {
        role: string;
        content: { type: string; text?: string; mediaType?: string }[];
      }[];
      expect(prompt.at(-1)!.content.map((p) => [p.type, p.text ?? p.mediaType])).toEqual([
        ["text", "what is this?"],
        ["file", "image/png"],
      ]);
      expect(messages.find((m) => m.type === "user")).toMatchObject({
        text: "what is this?",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image", mediaType: "image/png" },
        ],
      });
      const sessionId = messages.at(-1)!.sessionId;
      for await (const _ of summon("and now?", {
        model,
        presets: [],
        plugins: [(await import("ubiquity/plugins/sessions")).default()],
        sessionDir,
        cwd: sessionDir,
        resume: sessionId,
      }));
      const replayed = model.requests[1]!.prompt as { role: string; content: { type: string }[] }[];
      expect(replayed[0]!.content.map((p) => p.type)).toEqual(["text", "file"]);
    } finally {
      rmSync(sessionDir, { recursive: true, force: true });
    }
  });
});
