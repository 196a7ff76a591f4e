/**
 * The runner's status line in a terminal: "waiting for <provider>… N s" while a request is
 * unanswered, cleared when the answer starts; nothing without a terminal.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { summon } from "ubiquity";
import { TextRenderer } from "../../runner/render";
import { modelLayer } from "../model/helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function render(status: boolean) {
  // The first attempt hears nothing for 2.5 s (requestTimeoutMs), the retry answers.
  server = await startProviderServer([{ fault: "silent" }, "hello there"]);
  const lines: string[] = [];
  const statuses: string[] = [];
  const renderer = new TextRenderer(
    {
      out: (t) => lines.push(t),
      info: (t) => lines.push(t),
      ...(status ? { status: (t: string) => statuses.push(t) } : {}),
    },
    true,
  );
  const options = {
    ...modelLayer(),
    model: "openai.chat:gpt-4o",
    apiKey: "sk-test",
    providerSettings: { baseURL: server.baseURL },
    requestTimeoutMs: 2500,
    retryMaxWaitMs: 10,
    includePartialMessages: true,
  };
  for await (const message of summon("hi", options)) renderer.render(message);
  renderer.close();
  return { lines, statuses };
}

describe("waiting for the provider", () => {
  it("counts the seconds on the status line, then clears it before the answer", async () => {
    const { lines, statuses } = await render(true);
    const waits = statuses.filter((s) => s.includes("waiting"));
    expect(waits[0]).toBe("\r\x1b[2Kwaiting for openai… 1 s");
    expect(waits).toContain("\r\x1b[2Kwaiting for openai… 2 s");
    expect(statuses.at(-1)).toBe("\r\x1b[2K");
    expect(lines.join("")).toContain("hello there");
  });

  it("writes no status line without a terminal", async () => {
    const { statuses } = await render(false);
    expect(statuses).toEqual([]);
  });
});

describe("the status line and tool calls", () => {
  it("waits only after the last call of a response has its result (an approval may still be asked before)", () => {
    const statuses: string[] = [];
    const renderer = new TextRenderer({ out: () => {}, info: () => {}, status: (t) => statuses.push(t) }, true);
    const base = { uuid: "u", sessionId: "s" };
    const started: string[] = [];
    const realSetInterval = globalThis.setInterval;
    // Record which moments start the ticker instead of waiting a second for it.
    globalThis.setInterval = ((fn: () => void, ms: number) => {
      started.push("tick");
      return realSetInterval(fn, ms);
    }) as typeof setInterval;
    try {
      renderer.render({
        ...base,
        type: "assistant",
        text: "",
        model: "openai:gpt-5",
        stopReason: "tool_use",
        content: [
          { type: "tool_call", toolUseId: "a", toolName: "Read", input: {} },
          { type: "tool_call", toolUseId: "b", toolName: "Bash", input: {} },
        ],
      });
      renderer.render({ ...base, type: "tool_use", toolName: "Read", toolInput: {}, toolUseId: "a" });
      renderer.render({
        ...base,
        type: "tool_result",
        toolName: "Read",
        toolUseId: "a",
        output: { content: "", isError: false, metadata: {} },
        durationMs: 1,
      });
      expect(started).toEqual([]); // "b" may be asking for approval now
      renderer.render({ ...base, type: "tool_use", toolName: "Bash", toolInput: {}, toolUseId: "b" });
      renderer.render({
        ...base,
        type: "tool_result",
        toolName: "Bash",
        toolUseId: "b",
        output: { content: "", isError: false, metadata: {} },
        durationMs: 1,
      });
      expect(started).toEqual(["tick"]);
    } finally {
      globalThis.setInterval = realSetInterval;
      renderer.close();
    }
    expect(statuses).toEqual([]);
  });
});
