/**
 * Attacks on the live-session promises: every tool_use has exactly one tool_result under any
 * interleaving of interrupts and close(), the stream ends with a result, nothing rejects unhandled,
 * a broken input ends the session with an error result naming it, and no child process outlives
 * a consumer that stopped reading.
 */
import { readdirSync } from "node:fs";
import { sleepers } from "../helpers/processes";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin, defineTool, summon, type Message, type UserInput } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { inbox, signal, slowTool } from "./helpers";
import { tempDirs } from "../helpers/temp-dirs";

const temp = tempDirs();

const tempDir = () => temp("ubq-live-edge-");
const base = () => ({ cwd: tempDir(), sessionDir: tempDir(), todoDir: tempDir(), marketPricing: false as const });

function pairsWhole(messages: Message[]) {
  const uses = messages.filter((m) => m.type === "tool_use").map((m) => (m as { toolUseId: string }).toolUseId);
  const results = messages.filter((m) => m.type === "tool_result").map((m) => (m as { toolUseId: string }).toolUseId);
  expect(results.sort()).toEqual(uses.sort());
}

/** A model prompt is a valid history: no two user messages in a row, every tool-call answered once, right after it. */
function validHistory(prompt: { role: string; content: unknown }[]) {
  const turns = prompt.filter((m) => m.role !== "system");
  for (let i = 1; i < turns.length; i++) expect(`${turns[i - 1]!.role}->${turns[i]!.role}`).not.toBe("user->user");
  for (let i = 0; i < turns.length; i++) {
    const m = turns[i]!;
    if (m.role !== "assistant" || typeof m.content === "string") continue;
    const calls = (m.content as { type: string; toolCallId?: string }[])
      .filter((p) => p.type === "tool-call")
      .map((p) => p.toolCallId);
    if (!calls.length) continue;
    const next = turns[i + 1];
    expect(next?.role).toBe("tool");
    const answered = (next!.content as { toolCallId?: string }[]).map((p) => p.toolCallId);
    expect(answered.sort()).toEqual([...calls].sort());
  }
}

const rejections: unknown[] = [];
const onRejection = (reason: unknown) => void rejections.push(reason);
beforeEach(() => {
  rejections.length = 0;
  process.on("unhandledRejection", onRejection);
});
afterEach(async () => {
  await delay(20);
  process.off("unhandledRejection", onRejection);
  expect(rejections).toEqual([]);
});

/** A concurrency-safe tool that waits until aborted. */
function parallelTool(started: { count: number; all: () => void; n: number }) {
  return defineTool({
    name: "Par",
    description: "Wait until aborted.",
    inputSchema: z.object({ n: z.number() }),
    isReadOnly: true,
    isConcurrencySafe: true,
    async execute(_input, ctx) {
      if (++started.count === started.n) started.all();
      await new Promise<void>((r) => ctx.abortSignal.addEventListener("abort", () => r(), { once: true }));
      return { content: "aborted", isError: true };
    },
  });
}

describe("live sessions under attack", () => {
  it("interrupting parallel concurrency-safe tools answers every call once, the result is last, the interrupt is answered", async () => {
    const all = signal();
    const started = { count: 0, all: all.resolve, n: 3 };
    const model = scriptedModel([
      { toolCalls: [0, 1, 2].map((n) => ({ toolName: "Par", input: { n }, id: `p${n}` })) },
      "answered",
    ]);
    const input = inbox();
    input.push("go");
    const session = summon(input, { model, tools: [parallelTool(started)], presets: [] });
    void all.promise.then(() => input.push({ type: "user", text: "stop", interrupt: true }));
    const messages: Message[] = [];
    for await (const m of session) {
      messages.push(m);
      if (m.type === "result" && messages.filter((x) => x.type === "result").length === 2) input.end();
    }
    expect(started.count).toBe(3);
    pairsWhole(messages);
    expect(messages.filter((m) => m.type === "tool_result")).toHaveLength(3);
    const results = messages.filter((m) => m.type === "result");
    expect(results.map((r) => (r as { result: string }).result)).toEqual(["Interrupted by the user.", "answered"]);
    expect(messages.at(-1)?.type).toBe("result");
    validHistory(model.requests[1]!.prompt as never);
  });

  it("an interrupt the moment a response with tool calls has been received: its calls are answered as not run, the next request is a valid history", async () => {
    const slow = slowTool();
    let session!: ReturnType<typeof summon>;
    // A plugin sees the whole response (model.response) and interrupts right then, before any call runs.
    const interrupter = definePlugin(() => ({
      name: "test:interrupter",
      apply(kernel) {
        kernel.hooks.model.response.tap("test:interrupter", () => void session.interrupt());
      },
    }));
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
    session = summon(input, { model, tools: [slow.tool], presets: [], plugins: [interrupter()] });
    const messages: Message[] = [];
    let results = 0;
    for await (const m of session) {
      messages.push(m);
      if (m.type === "result" && ++results === 1) input.push("next");
      else if (m.type === "result") input.end();
    }
    expect(slow.seen.calls).toBe(0);
    expect(messages.filter((m) => m.type === "tool_use").map((m) => (m as { toolUseId: string }).toolUseId)).toEqual([
      "a",
      "b",
    ]);
    pairsWhole(messages);
    for (const r of messages.filter((m) => m.type === "tool_result"))
      expect((r as { output: { content: string } }).output.content).toBe("Not run: interrupted by the user.");
    expect(messages.filter((m) => m.type === "result").map((r) => (r as { subtype: string }).subtype)).toEqual([
      "error_during_execution",
      "success",
    ]);
    validHistory(model.requests.at(-1)!.prompt as never);
  });

  it("interrupt() while the session is still starting stops its first stretch as it begins (no model request); an interrupt while idle does not hit the next prompt", async () => {
    const model = scriptedModel(["second answer"]);
    const input = inbox();
    input.push("go");
    const session = summon(input, { model, presets: [] });
    await session.interrupt(); // the session is still starting: nothing has begun
    const results: Array<{ subtype: string; result: string }> = [];
    for await (const m of session) {
      if (m.type !== "result") continue;
      results.push(m as never);
      if (results.length === 1) {
        await session.interrupt(); // idle, waiting for input: nothing to stop
        input.push("next");
      } else input.end();
    }
    expect(results.map((r) => r.result)).toEqual(["Interrupted by the user.", "second answer"]);
    expect(results[1]!.subtype).toBe("success");
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0]!.prompt)).toContain("next");
  });

  it("two interrupts in a row end one stretch with one result; the session goes on", async () => {
    const slow = slowTool();
    const model = scriptedModel([{ toolCalls: [{ toolName: "Slow", input: {}, id: "a" }] }, "second answer"]);
    const input = inbox();
    input.push("go");
    const session = summon(input, { model, tools: [slow.tool], presets: [] });
    void slow.started.then(async () => {
      await session.interrupt();
      await session.interrupt();
      input.push({ type: "user", text: "again", interrupt: true });
    });
    const messages: Message[] = [];
    let results = 0;
    for await (const m of session) {
      messages.push(m);
      if (m.type === "result" && ++results === 2) input.end();
    }
    pairsWhole(messages);
    expect(messages.filter((m) => m.type === "result").map((r) => (r as { result: string }).result)).toEqual([
      "Interrupted by the user.",
      "second answer",
    ]);
    expect(slow.seen.calls).toBe(1);
  });

  it("an interrupt while a subagent (Agent tool) runs stops the subagent too; every call of both is answered", async () => {
    const slow = slowTool();
    const model = scriptedModel(({ request }) => {
      const system = request.prompt
        .filter((m) => m.role === "system")
        .map((m) => String(m.content))
        .join("\n");
      const last = request.prompt.at(-1);
      const isSub = system.includes("You are WORKER.");
      if (isSub) return last?.role === "tool" ? "sub done" : { toolCalls: [{ toolName: "Slow", input: {} }] };
      if (last?.role === "tool") return "parent done";
      if (JSON.stringify(request.prompt).includes("redo")) return "redone";
      return {
        toolCalls: [
          { toolName: "Agent", id: "ag", input: { subagent_type: "worker", description: "sub", prompt: "work" } },
        ],
      };
    });
    const input = inbox();
    input.push("delegate");
    const agents = { worker: { description: "w", prompt: "You are WORKER." } };
    const session = summon(input, {
      ...base(),
      model,
      tools: [slow.tool],
      agents,
      permissionMode: "bypassPermissions",
    });
    void slow.started.then(() => input.push({ type: "user", text: "redo", interrupt: true }));
    const messages: Message[] = [];
    let results = 0;
    for await (const m of session) {
      messages.push(m);
      if (m.type === "result" && m.agentId === undefined && ++results === 2) input.end();
    }
    expect(slow.seen.aborted).toBe(true);
    expect(messages.some((m) => m.type === "tool_use" && m.toolName === "Agent")).toBe(true);
    expect(messages.some((m) => m.type === "tool_use" && m.toolName === "Slow" && m.agentId !== undefined)).toBe(true);
    pairsWhole(messages);
    const top = messages.filter((m) => m.type === "result" && m.agentId === undefined);
    expect(top.map((r) => (r as { result: string }).result)).toEqual(["Interrupted by the user.", "redone"]);
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "redone" });
    validHistory(model.requests.at(-1)!.prompt as never);
  });

  it("close() while a subagent runs: the stream ends with one top-level result, last, every call of both answered", async () => {
    const slow = slowTool();
    const model = scriptedModel(({ request }) => {
      const system = request.prompt
        .filter((m) => m.role === "system")
        .map((m) => String(m.content))
        .join("\n");
      if (system.includes("You are WORKER.")) return { toolCalls: [{ toolName: "Slow", input: {} }] };
      return {
        toolCalls: [
          { toolName: "Agent", id: "ag", input: { subagent_type: "worker", description: "sub", prompt: "work" } },
        ],
      };
    });
    const input = inbox();
    input.push("delegate");
    const agents = { worker: { description: "w", prompt: "You are WORKER." } };
    const session = summon(input, {
      ...base(),
      model,
      tools: [slow.tool],
      agents,
      permissionMode: "bypassPermissions",
    });
    void slow.started.then(() => session.close());
    const messages: Message[] = [];
    for await (const m of session) messages.push(m);
    expect(slow.seen.aborted).toBe(true);
    pairsWhole(messages);
    expect(messages.filter((m) => m.type === "result" && m.agentId === undefined)).toHaveLength(1);
    expect(messages.at(-1)).toMatchObject({ type: "result", isError: true });
    expect(messages.at(-1)!.agentId).toBeUndefined();
    expect(input.state.returned).toBe(true);
  });

  it("an interrupt while idle (between stretches) does not touch the next stretch", async () => {
    const model = scriptedModel(["one", "two"]);
    const input = inbox();
    input.push("first");
    const session = summon(input, { model, presets: [] });
    const results: Message[] = [];
    for await (const m of session) {
      if (m.type !== "result") continue;
      results.push(m);
      if (results.length === 1) {
        await session.interrupt();
        input.push({ type: "user", text: "second", interrupt: true });
      } else input.end();
    }
    expect(results.map((r) => (r as { result: string }).result)).toEqual(["one", "two"]);
  });

  it("an interrupt while a permission ask is pending (canUseTool waits for its signal) answers the call and goes on", async () => {
    const asked = signal();
    let sawAbort = false;
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "echo hi" }, id: "b1" }] },
      "after interrupt",
    ]);
    const input = inbox();
    input.push("run it");
    const canUseTool = (_n: string, _i: unknown, ctx: { signal: AbortSignal }) =>
      new Promise<never>((_r, reject) => {
        asked.resolve();
        ctx.signal.addEventListener("abort", () => ((sawAbort = true), reject(new Error("ask aborted"))), {
          once: true,
        });
      });
    const session = summon(input, { ...base(), model, canUseTool: canUseTool as never });
    void asked.promise.then(() => session.interrupt());
    const messages: Message[] = [];
    let results = 0;
    for await (const m of session) {
      messages.push(m);
      if (m.type === "result" && ++results === 1) input.push("next");
      else if (m.type === "result") input.end();
    }
    expect(sawAbort).toBe(true);
    pairsWhole(messages);
    expect(messages.filter((m) => m.type === "result").map((r) => (r as { subtype: string }).subtype)).toEqual([
      "error_during_execution",
      "success",
    ]);
    validHistory(model.requests.at(-1)!.prompt as never);
  });

  it("close() while a permission ask is pending ends the stream with a result, every call answered, the input returned", async () => {
    const asked = signal();
    const model = scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command: "echo hi" }, id: "b1" }] }]);
    const input = inbox();
    input.push("run it");
    const canUseTool = (_n: string, _i: unknown, ctx: { signal: AbortSignal }) =>
      new Promise<never>((_r, reject) => {
        asked.resolve();
        ctx.signal.addEventListener("abort", () => reject(new Error("ask aborted")), { once: true });
      });
    const session = summon(input, { ...base(), model, canUseTool: canUseTool as never });
    void asked.promise.then(() => session.close());
    const messages: Message[] = [];
    for await (const m of session) messages.push(m);
    pairsWhole(messages);
    expect(messages.at(-1)).toMatchObject({ type: "result", isError: true });
    expect(messages.filter((m) => m.type === "result")).toHaveLength(1);
    expect(input.state.returned).toBe(true);
  });

  it("close() during parallel tools: one result, last, every call answered", async () => {
    const all = signal();
    const started = { count: 0, all: all.resolve, n: 2 };
    const model = scriptedModel([{ toolCalls: [0, 1].map((n) => ({ toolName: "Par", input: { n } })) }]);
    const input = inbox();
    input.push("go");
    const session = summon(input, { model, tools: [parallelTool(started)], presets: [] });
    void all.promise.then(() => session.close());
    const messages: Message[] = [];
    for await (const m of session) messages.push(m);
    pairsWhole(messages);
    expect(messages.filter((m) => m.type === "result")).toHaveLength(1);
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "Run aborted: the session was closed" });
  });

  it("an input iterable that throws ends the session with an error result naming the failure (no hang)", async () => {
    const model = scriptedModel(["first answer"]);
    let results = 0;
    const gate = signal();
    async function* broken(): AsyncGenerator<UserInput> {
      yield "first";
      await gate.promise;
      throw new Error("socket to the editor closed");
    }
    const messages: Message[] = [];
    for await (const m of summon(broken(), { model, presets: [] })) {
      messages.push(m);
      if (m.type === "result" && ++results === 1) gate.resolve();
    }
    const last = messages.at(-1);
    expect(last).toMatchObject({ type: "result", isError: true, subtype: "error_during_execution" });
    expect((last as { result: string }).result).toMatch(/input.*socket to the editor closed/);
  });

  it("an input that yields something that is not a UserInput ends the session with a clear error result", async () => {
    const model = scriptedModel(["first answer"]);
    const gate = signal();
    let returned = false;
    const source = {
      [Symbol.asyncIterator]() {
        let i = 0;
        return {
          async next() {
            i++;
            if (i === 1) return { value: "first", done: false };
            await gate.promise;
            return { value: { role: "user", content: "wrong shape" }, done: false };
          },
          async return() {
            returned = true;
            return { value: undefined, done: true };
          },
        };
      },
    } as unknown as AsyncIterable<UserInput>;
    const messages: Message[] = [];
    let results = 0;
    for await (const m of summon(source, { model, presets: [] })) {
      messages.push(m);
      if (m.type === "result" && ++results === 1) gate.resolve();
    }
    const last = messages.at(-1);
    expect(last).toMatchObject({ type: "result", isError: true });
    expect((last as { result: string }).result).toMatch(/each input message must be a string or \{ type: "user"/);
    expect(returned).toBe(true);
  });

  it("setModel to an unknown model mid-stretch rejects and the stretch goes on with the model it had", async () => {
    const slow = slowTool();
    const model = scriptedModel([{ toolCalls: [{ toolName: "Slow", input: {} }] }, "still the same model"]);
    const input = inbox();
    input.push("go");
    const session = summon(input, { model, tools: [slow.tool], presets: [] });
    let rejected: unknown;
    void slow.started.then(async () => {
      rejected = await session.setModel("nosuchprovider:nothing").then(
        () => "resolved",
        (e: unknown) => e,
      );
      slow.release();
    });
    const messages: Message[] = [];
    for await (const m of session) {
      messages.push(m);
      if (m.type === "result") input.end();
    }
    expect(rejected).toBeInstanceOf(Error);
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "still the same model" });
    expect(model.requests).toHaveLength(2);
  });

  it("messages pushed into the input after close() are not answered, and nothing rejects", async () => {
    const model = scriptedModel(["one"]);
    const input = inbox();
    input.push("first");
    const session = summon(input, { model, presets: [] });
    const messages: Message[] = [];
    for await (const m of session) {
      messages.push(m);
      if (m.type === "result") {
        session.close();
        input.push("after close");
        input.push({ type: "user", text: "and an interrupt", interrupt: true });
      }
    }
    await session.interrupt();
    await expect(session.setModel(model)).rejects.toThrow(/ended/);
    expect(messages.filter((m) => m.type === "result")).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
  });
});

describe.skipIf(!readdirSync("/proc").length)("live sessions and processes", () => {
  it("breaking out of the for-await during a Bash `sleep` kills the sleep", async () => {
    const marker = `30.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const model = scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command: `sleep ${marker}` } }] }]);
    const input = inbox();
    input.push("sleep");
    for await (const m of summon(input, { ...base(), model, permissionMode: "bypassPermissions" })) {
      if (m.type !== "tool_use") continue;
      const deadline = Date.now() + 60_000;
      while (!sleepers(marker).length && Date.now() < deadline) await delay(20);
      expect(sleepers(marker)).toHaveLength(1);
      break;
    }
    const deadline = Date.now() + 60_000;
    while (sleepers(marker).length && Date.now() < deadline) await delay(20);
    expect(sleepers(marker)).toEqual([]);
    expect(input.state.returned).toBe(true);
  });
});

describe("resuming a live session's transcript", () => {
  it("after an interrupt mid-tool and a queued message, the resumed request is a valid history", async () => {
    const slow = slowTool();
    const opts = base();
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Slow", input: {}, id: "s1" },
          { toolName: "Slow", input: {}, id: "s2" },
        ],
      },
      "after interrupt",
      "resumed answer",
    ]);
    const input = inbox();
    input.push("first");
    const session = summon(input, { ...opts, model, tools: [slow.tool], permissionMode: "bypassPermissions" });
    void slow.started.then(() => input.push({ type: "user", text: "interrupting", interrupt: true }));
    let sessionId = "";
    let results = 0;
    for await (const m of session) {
      sessionId = m.sessionId;
      if (m.type === "result" && ++results === 2) input.end();
    }
    const resumed: Message[] = [];
    for await (const m of summon("third", { ...opts, model, tools: [slow.tool], resume: sessionId })) resumed.push(m);
    expect(resumed.at(-1)).toMatchObject({ type: "result", result: "resumed answer" });
    validHistory(model.requests[2]!.prompt as never);
    expect(JSON.stringify(model.requests[2]!.prompt)).toContain("interrupting");
  });
});
