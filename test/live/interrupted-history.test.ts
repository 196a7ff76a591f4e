/**
 * Issue 38: an interrupted turn stays in the conversation as interrupted — its prompt, the text
 * that streamed before the interrupt and the marker `[interrupted by the user]` — and is never
 * sent again: the next prompt is the next user message, answered next. Over a real provider
 * package against a loopback OpenAI-compatible server, with `interrupt()` and an interrupting
 * message, mid-stream and mid-tool, and after a resume from the stored transcript.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openaiCompatible, summon, type Message } from "ubiquity";
import { scriptedModel, startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { inbox, promptShape, slowTool } from "./helpers";

const MARKER = "[interrupted by the user]";

let server: FakeProviderServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The chat messages a request carried, as `role:text` (system left out). */
function chatShape(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  return messages
    .filter((m) => m.role !== "system")
    .map(
      (m) =>
        `${m.role}:${typeof m.content === "string" ? m.content : (m.content as { text?: string }[]).map((p) => p.text ?? "").join("|")}`,
    );
}

describe("an interrupted turn stays in the conversation as interrupted", () => {
  it("interrupt() mid-stream: the partial answer and the marker stay; the next prompt is sent alone, answered next", async () => {
    // A stream that sends one delta ("xxx…") and then nothing: only an interrupt ends it.
    server = await startProviderServer([{ fault: "stall-mid-stream" }, "the next one, answered"]);
    const sessionDir = mkdtempSync(join(tmpdir(), "ubq-interrupted-"));
    dirs.push(sessionDir);
    const input = inbox();
    input.push("write a long essay");
    const session = summon(input, {
      model: openaiCompatible("local-model", { baseURL: server.baseURL }),
      includePartialMessages: true,
      maxRetries: 0,
      sessionDir,
      marketPricing: false,
    });
    const messages: Message[] = [];
    let interrupted = false;
    for await (const m of session) {
      messages.push(m);
      if (m.type === "stream_event" && !interrupted) {
        interrupted = true;
        void session.interrupt();
      }
      if (m.type === "result" && m.result === "Interrupted by the user.") input.push("now do this instead");
      else if (m.type === "result") input.end();
    }
    const results = messages.filter((m) => m.type === "result") as Extract<Message, { type: "result" }>[];
    expect(results.map((r) => r.result)).toEqual(["Interrupted by the user.", "the next one, answered"]);
    // The interrupted response is emitted as such: what streamed, then the marker.
    const cut = messages.find((m) => m.type === "assistant" && m.interrupted) as Extract<
      Message,
      { type: "assistant" }
    >;
    expect(cut.text).toMatch(/^x+\n\n\[interrupted by the user\]$/);
    // The next request: the interrupted prompt once, answered by the partial text and the marker; then the new prompt alone.
    expect(server.requests).toHaveLength(2);
    const shape = chatShape(server.requests[1]!.body);
    expect(shape).toHaveLength(3);
    expect(shape[0]).toBe("user:write a long essay");
    expect(shape[1]).toMatch(/^assistant:x+\n\n\[interrupted by the user\]$/);
    expect(shape[2]).toBe("user:now do this instead");

    // Resumed from its transcript, the session still has it as interrupted, and the cancelled prompt is not sent again.
    server.requests.length = 0;
    const resumed: Message[] = [];
    const sessionId = results[0]!.sessionId;
    await server.close();
    server = await startProviderServer(["third answer"]);
    for await (const m of summon("third", {
      model: openaiCompatible("local-model", { baseURL: server.baseURL }),
      maxRetries: 0,
      sessionDir,
      resume: sessionId,
      marketPricing: false,
    }))
      resumed.push(m);
    expect(resumed.at(-1)).toMatchObject({ type: "result", isError: false, result: "third answer" });
    const replayed = chatShape(server.requests[0]!.body);
    expect(replayed.map((line) => line.replace(/x{10,}/, "x…"))).toEqual([
      "user:write a long essay",
      `assistant:x…\n\n${MARKER}`,
      "user:now do this instead",
      "assistant:the next one, answered",
      "user:third",
    ]);
  });

  it("an interrupting message before any text: the marker alone answers the prompt, and the message runs next", async () => {
    const model = scriptedModel([{ text: "never shown", delayMs: 20_000 }, "answering the interrupt"]);
    const input = inbox();
    input.push("first prompt");
    const timer = setInterval(() => {
      if (model.requests.length === 1) {
        clearInterval(timer);
        input.push({ type: "user", text: "second prompt", interrupt: true });
      }
    }, 5);
    const messages: Message[] = [];
    try {
      for await (const m of summon(input, { model, presets: [] })) {
        messages.push(m);
        if (m.type === "result" && m.result !== "Interrupted by the user.") input.end();
      }
    } finally {
      clearInterval(timer);
    }
    expect(model.requests).toHaveLength(2);
    expect(promptShape(model.requests[1]!.prompt as never)).toEqual([
      "user:first prompt",
      `assistant:${MARKER}`,
      "user:second prompt",
    ]);
    expect(messages.filter((m) => m.type === "result").map((m) => (m as { result: string }).result)).toEqual([
      "Interrupted by the user.",
      "answering the interrupt",
    ]);
  });

  it("interrupt() while a tool runs: the calls are answered, the marker follows them, and the next prompt comes after", async () => {
    const slow = slowTool();
    const model = scriptedModel([
      { text: "let me wait", toolCalls: [{ toolName: "Slow", input: {}, id: "a" }] },
      "next answered",
    ]);
    const input = inbox();
    input.push("wait for it");
    const session = summon(input, { model, tools: [slow.tool], presets: [] });
    void slow.started.then(() => session.interrupt());
    const messages: Message[] = [];
    for await (const m of session) {
      messages.push(m);
      if (m.type === "result" && m.result === "Interrupted by the user.") input.push("something else");
      else if (m.type === "result") input.end();
    }
    expect(model.requests).toHaveLength(2);
    expect(promptShape(model.requests[1]!.prompt as never)).toEqual([
      "user:wait for it",
      "assistant:let me wait|call(a)",
      "tool:result(a:stopped: aborted)",
      `assistant:${MARKER}`,
      "user:something else",
    ]);
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "next answered", isError: false });
  });
});
