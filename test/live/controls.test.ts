/**
 * The Query controls (issue 23): setPermissionMode judges the next tool call in the new mode,
 * setModel sends the next request to the new model, close() and breaking out end the session
 * cleanly, and a live session is one session for hooks and the transcript (resume works).
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { summon, definePlugin, type Message } from "ubiquity";
import { scriptedModel, startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { inbox, promptShape, slowTool } from "./helpers";
import { tempDirs } from "../helpers/temp-dirs";

const tempDir = tempDirs();

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("Query controls", () => {
  it("setPermissionMode('plan') mid-run denies the next Write: the file is not created", async () => {
    const cwd = tempDir();
    const slow = slowTool();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Slow", input: {}, id: "s" }] },
      { toolCalls: [{ toolName: "Write", input: { file_path: join(cwd, "planned.txt"), content: "x" }, id: "w" }] },
      "done",
    ]);
    const session = summon("work", {
      model,
      cwd,
      plugins: [slowPlugin(slow.tool)],
      permissionMode: "bypassPermissions",
      persistSession: false,
    });
    void slow.started.then(async () => {
      await session.setPermissionMode("plan");
      slow.release();
    });
    const messages: Message[] = [];
    for await (const m of session) messages.push(m);
    const write = messages.find((m) => m.type === "tool_result" && m.toolUseId === "w") as Extract<
      Message,
      { type: "tool_result" }
    >;
    expect(write.output.isError).toBe(true);
    expect(existsSync(join(cwd, "planned.txt"))).toBe(false);
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success" });
  });

  it("setPermissionMode rejects an unknown mode", async () => {
    const session = summon(inbox(), { model: scriptedModel([]), persistSession: false });
    await expect(session.setPermissionMode("yolo" as never)).rejects.toThrow(/not a permission mode/);
    session.close();
    for await (const _ of session);
  });

  it("setModel() sends the next request to the new model (the local provider server sees its id)", async () => {
    server = await startProviderServer(["from a", "from b"]);
    const input = inbox();
    input.push("one");
    const session = summon(input, {
      model: "openai:model-a",
      apiKey: "sk-test",
      providerSettings: { baseURL: server.baseURL },
      persistSession: false,
      maxRetries: 0,
    });
    const messages: Message[] = [];
    let results = 0;
    for await (const m of session) {
      messages.push(m);
      if (m.type !== "result") continue;
      if (++results === 1) {
        await session.setModel("openai:model-b");
        input.push("two");
      } else if (results === 2) input.end();
    }
    expect(server.requests.map((r) => (r.body as { model: string }).model)).toEqual(["model-a", "model-b"]);
    expect(messages.filter((m) => m.type === "assistant").map((m) => (m as { model: string }).model)).toEqual([
      "openai:model-a",
      "openai:model-b",
    ]);
  });

  it("setModel() rejects a model no provider knows, and the session goes on", async () => {
    const input = inbox();
    input.push("hi");
    const session = summon(input, { model: scriptedModel(["hello"]), presets: [] });
    await expect(session.setModel("nowhere:model")).rejects.toThrow();
    input.end();
    const messages: Message[] = [];
    for await (const m of session) messages.push(m);
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "hello" });
  });

  it("close() ends an idle live session: the stream ends, its last message the last stretch's result", async () => {
    const input = inbox();
    input.push("hi");
    const session = summon(input, { model: scriptedModel(["hello"]), presets: [] });
    const messages: Message[] = [];
    for await (const m of session) {
      messages.push(m);
      if (m.type === "result") session.close();
    }
    expect(messages.map((m) => m.type)).toEqual(["system", "user", "assistant", "result"]);
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "hello" });
    // The input iterable is told the session is over.
    expect(input.state.returned).toBe(true);
  });

  it("close() mid-work aborts it: the tool sees its abort, and the stream ends with a final result", async () => {
    const slow = slowTool();
    const input = inbox();
    input.push("go");
    const session = summon(input, {
      model: scriptedModel([{ toolCalls: [{ toolName: "Slow", input: {} }] }, "never"]),
      tools: [slow.tool],
      presets: [],
    });
    void slow.started.then(() => session.close());
    const messages: Message[] = [];
    for await (const m of session) messages.push(m);
    expect(slow.seen.aborted).toBe(true);
    expect(messages.filter((m) => m.type === "result")).toHaveLength(1);
    expect(messages.at(-1)).toMatchObject({
      type: "result",
      isError: true,
      result: "Run aborted: the session was closed",
    });
    expect(input.state.returned).toBe(true);
  });

  it("breaking out of the for-await mid-tool ends the run: the tool sees its abort, the input is released", async () => {
    const slow = slowTool();
    const input = inbox();
    input.push("go");
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers();
    const session = summon(input, {
      model: scriptedModel([{ toolCalls: [{ toolName: "Slow", input: {} }] }, "never"]),
      tools: [slow.tool],
      presets: [],
    });
    for await (const m of session) if (m.type === "tool_use") break;
    // The run's timers (request and idle limits) are gone with it.
    expect(timers()).toBeLessThanOrEqual(before);
    expect(slow.seen.aborted).toBe(true);
    expect(input.state.returned).toBe(true);
    expect(await session.next()).toEqual({ value: undefined, done: true });
  });

  it("a live session is one session: session.start and session.end once, one transcript, and resume continues it", async () => {
    const sessionDir = tempDir();
    const cwd = tempDir();
    const seen: string[] = [];
    const observer = definePlugin(() => ({
      name: "test:observer",
      apply(kernel) {
        kernel.hooks.session.start.tap("test:observer", () => void seen.push("start"));
        kernel.hooks.session.end.tap("test:observer", () => void seen.push("end"));
      },
    }));
    const input = inbox();
    input.push("first");
    const model = scriptedModel(["one", "two", "three"]);
    let sessionId = "";
    let results = 0;
    for await (const m of summon(input, { model, cwd, sessionDir, plugins: [observer()] })) {
      sessionId = m.sessionId;
      if (m.type !== "result") continue;
      if (++results === 1) input.push("second");
      else input.end();
    }
    expect(seen).toEqual(["start", "end"]);
    expect(readdirSync(sessionDir, { recursive: true }).filter((f) => String(f).endsWith(".jsonl"))).toHaveLength(1);

    const resumed: Message[] = [];
    for await (const m of summon("third", { model, cwd, sessionDir, resume: sessionId })) resumed.push(m);
    expect(resumed.at(-1)).toMatchObject({ type: "result", result: "three", sessionId });
    expect(promptShape(model.requests[2]!.prompt as never).filter((p) => !p.startsWith("system"))).toEqual([
      "user:first",
      "assistant:one",
      "user:second",
      "assistant:two",
      "user:third",
    ]);
  });
});

/** A plugin registering the slow tool next to the built-in suite. */
function slowPlugin(tool: ReturnType<typeof slowTool>["tool"]) {
  return definePlugin(() => ({
    name: "test:slow",
    apply: (kernel) => void kernel.registries.tools.register(tool.name, tool, "test:slow"),
  }))();
}
