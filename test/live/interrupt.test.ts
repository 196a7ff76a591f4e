/**
 * Interrupts (issue 23): an `interrupt: true` message, or `interrupt()`, stops the model stream
 * or the tool calls of the work in progress; every tool_use still has exactly one tool_result,
 * and the interrupting message is answered next, in the same session.
 */
import { afterEach, describe, expect, it } from "vitest";
import { summon, type Message } from "ubiquity";
import { scriptedModel, startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { inbox, promptShape, slowTool } from "./helpers";

/** Every tool_use answered by exactly one tool_result with its id. */
function pairsWhole(messages: Message[]) {
  const uses = messages.filter((m) => m.type === "tool_use").map((m) => (m as { toolUseId: string }).toolUseId);
  const results = messages.filter((m) => m.type === "tool_result").map((m) => (m as { toolUseId: string }).toolUseId);
  expect(results.sort()).toEqual(uses.sort());
}

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("interrupting a live session", () => {
  it("an interrupt message stops a long model stream at once, then is answered in the same session", async () => {
    const model = scriptedModel([{ text: "never shown", delayMs: 20_000 }, "answering the interrupt"]);
    const input = inbox();
    input.push("write a long essay");
    const messages: Message[] = [];
    let sent = false;
    const waitForRequest = setInterval(() => {
      if (model.requests.length === 1 && !sent) {
        sent = true;
        input.push({ type: "user", text: "stop, do this instead", interrupt: true });
      }
    }, 5);
    try {
      for await (const m of summon(input, { model, presets: [] })) {
        messages.push(m);
        if (m.type === "result" && messages.filter((r) => r.type === "result").length > 1) input.end();
      }
    } finally {
      clearInterval(waitForRequest);
    }
    // The stream was cut, not waited for: its text never reached the session.
    expect(JSON.stringify(messages)).not.toContain("never shown");
    const results = messages.filter((m) => m.type === "result");
    expect(results[0]).toMatchObject({
      subtype: "error_during_execution",
      isError: true,
      result: "Interrupted by the user.",
    });
    expect(results.at(-1)).toMatchObject({ subtype: "success", result: "answering the interrupt" });
    // The interrupted message stays in the conversation, answered as interrupted; the one that interrupted it follows.
    expect(promptShape(model.requests[1]!.prompt as never)).toEqual([
      "user:write a long essay",
      "assistant:[interrupted by the user]",
      "user:stop, do this instead",
    ]);
    expect(new Set(messages.map((m) => m.sessionId)).size).toBe(1);
  });

  it("interrupt() during a tool call aborts the tool; the calls not run are answered as interrupted", async () => {
    const slow = slowTool();
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Slow", input: {}, id: "a" },
          { toolName: "Slow", input: {}, id: "b" },
        ],
      },
      "after",
    ]);
    const input = inbox();
    input.push("go");
    const session = summon(input, { model, tools: [slow.tool], presets: [] });
    void slow.started.then(() => session.interrupt());
    const messages: Message[] = [];
    for await (const m of session) {
      messages.push(m);
      if (m.type === "result") input.end();
    }
    expect(slow.seen).toEqual({ aborted: true, calls: 1 });
    pairsWhole(messages);
    const results = messages.filter((m) => m.type === "tool_result") as Extract<Message, { type: "tool_result" }>[];
    expect(results.map((r) => [r.toolUseId, r.output.content])).toEqual([
      ["a", "stopped: aborted"],
      ["b", "Not run: interrupted by the user."],
    ]);
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "Interrupted by the user." });
    expect(model.requests).toHaveLength(1);
  });

  it("an interrupt message stops a real provider's endless stream (the real @ai-sdk/openai against a local server)", async () => {
    server = await startProviderServer([{ fault: "endless" }, "fine, stopping"]);
    const input = inbox();
    input.push("talk forever");
    const messages: Message[] = [];
    let sent = false;
    for await (const m of summon(input, {
      model: "openai:gpt-4o",
      apiKey: "sk-test",
      providerSettings: { baseURL: server.baseURL },
      persistSession: false,
      includePartialMessages: true,
      maxRetries: 0,
    })) {
      messages.push(m);
      if (m.type === "stream_event" && !sent) {
        sent = true;
        input.push({ type: "user", text: "enough", interrupt: true });
      }
      if (m.type === "result" && messages.filter((r) => r.type === "result").length > 1) input.end();
    }
    // The stream never ends by itself, so a first result at all means the interrupt cut it.
    const results = messages.filter((m) => m.type === "result");
    expect(results.map((r) => (r as { result: string }).result)).toEqual([
      "Interrupted by the user.",
      "fine, stopping",
    ]);
    expect(server.requests).toHaveLength(2);
  });
});

describe("interrupt() on a string prompt", () => {
  it("ends the run with one interrupted result, the stream still ending with it", async () => {
    const model = scriptedModel([{ text: "never", delayMs: 20_000 }]);
    const session = summon("slow", { model, presets: [] });
    const messages: Message[] = [];
    for await (const m of session) {
      messages.push(m);
      if (m.type === "user") setTimeout(() => void session.interrupt(), 20);
    }
    expect(messages.filter((m) => m.type === "result")).toHaveLength(1);
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "Interrupted by the user.", isError: true });
  });
});
