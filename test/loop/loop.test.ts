import { describe, expect, it } from "vitest";
import { z } from "zod";
import { summon, defineTool, definePlugin, Tool, type ToolOutput } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";

const echo = defineTool({
  name: "Echo",
  description: "Echo the text back.",
  inputSchema: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});

describe("message ordering", () => {
  it("system/init carries the fields the plugins add: the default preset's permissions plugin announces the mode", async () => {
    const messages = await collect(summon("go", { model: "test", persistSession: false, permissionMode: "plan" }));
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init", permissionMode: "plan" });
  });

  it("yields init, user, deltas, assistant, tool pairs, then result", async () => {
    const model = scriptedModel([
      { text: "calling echo", chunkSize: 3, toolCalls: [{ toolName: "Echo", input: { text: "hi" } }] },
      { text: "all done here", chunkSize: 4 },
    ]);
    const messages = await collect(summon("go", { model, tools: [echo], presets: [], includePartialMessages: true }));
    const types = messages.map((m) => m.type);
    expect(types[0]).toBe("system");
    expect(messages[0]).toMatchObject({ subtype: "init", tools: ["Echo"], model: "scripted:scripted" });
    // The permission mode is the permissions plugin's field of system/init; with no plugins there is none.
    expect(messages[0]).not.toHaveProperty("permissionMode");
    expect(types[1]).toBe("user");
    expect(types.at(-1)).toBe("result");
    // turn 1: deltas, assistant, tool_use, tool_result; turn 2: deltas, assistant
    const firstAssistant = types.indexOf("assistant");
    expect(types.slice(2, firstAssistant).every((t) => t === "stream_event")).toBe(true);
    expect(types.slice(firstAssistant, firstAssistant + 3)).toEqual(["assistant", "tool_use", "tool_result"]);
    const deltas = ofType(messages, "stream_event");
    const assistants = ofType(messages, "assistant");
    const firstTurnDeltas = deltas.filter((d) => messages.indexOf(d) < firstAssistant && d.delta.type === "text");
    expect(firstTurnDeltas.map((d) => d.delta.text).join("")).toBe(assistants[0]!.text);
    expect(firstTurnDeltas.length).toBeGreaterThan(1);
    const secondAssistant = messages.indexOf(assistants[1]!);
    const secondDeltas = messages.slice(firstAssistant + 3, secondAssistant).filter((m) => m.type === "stream_event");
    expect(secondDeltas.map((d) => (d.type === "stream_event" ? d.delta.text : "")).join("")).toBe("all done here");
    const sessionIds = new Set(messages.map((m) => m.sessionId));
    expect(sessionIds.size).toBe(1);
    expect(new Set(messages.map((m) => m.uuid)).size).toBe(messages.length);
    expect(resultOf(messages)).toMatchObject({
      subtype: "success",
      result: "all done here",
      isError: false,
      numTurns: 2,
    });
  });

  it("emits no stream_event without includePartialMessages", async () => {
    const model = scriptedModel(["hello there"]);
    const messages = await collect(summon("hi", { model, presets: [] }));
    expect(ofType(messages, "stream_event")).toHaveLength(0);
    expect(messages.map((m) => m.type)).toEqual(["system", "user", "assistant", "result"]);
  });
});

describe("one tool_result per tool_use on every path", () => {
  const denyPlugin = definePlugin(() => ({
    name: "test:deny-secret",
    apply(kernel) {
      kernel.hooks.tool.permission.tap("test:deny-secret", (verdict, call) =>
        call.input.text === "secret" ? { behavior: "deny", message: "secrets are off limits" } : verdict,
      );
      kernel.hooks.tool.beforeCall.tap("test:deny-secret", (state) =>
        state.input.text === "blocked" ? { ...state, block: "blocked by policy" } : state,
      );
    },
  }));
  const boom = defineTool({
    name: "Boom",
    description: "Always throws.",
    inputSchema: z.object({}),
    execute: () => {
      throw new Error("kaboom");
    },
  });

  it("success, denial, block, invalid arguments, throwing tool, unknown tool", async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Echo", input: { text: "ok" }, id: "c_ok" },
          { toolName: "Echo", input: { text: "secret" }, id: "c_deny" },
          { toolName: "Echo", input: { text: "blocked" }, id: "c_block" },
          { toolName: "Echo", input: { txt: 1 }, id: "c_invalid" },
          { toolName: "Boom", input: {}, id: "c_throw" },
          { toolName: "Nope", input: {}, id: "c_unknown" },
        ],
      },
      "finished",
    ]);
    const messages = await collect(summon("go", { model, tools: [echo, boom], presets: [], plugins: [denyPlugin()] }));
    const uses = ofType(messages, "tool_use");
    const results = ofType(messages, "tool_result");
    expect(uses.map((u) => u.toolUseId).sort()).toEqual([
      "c_block",
      "c_deny",
      "c_invalid",
      "c_ok",
      "c_throw",
      "c_unknown",
    ]);
    for (const use of uses) {
      const answers = results.filter((r) => r.toolUseId === use.toolUseId);
      expect(answers).toHaveLength(1);
      expect(messages.indexOf(answers[0]!)).toBeGreaterThan(messages.indexOf(use));
    }
    const byId = Object.fromEntries(results.map((r) => [r.toolUseId, r.output]));
    expect(byId.c_ok).toMatchObject({ content: "echo: ok", isError: false });
    expect(byId.c_deny).toMatchObject({ content: "secrets are off limits", isError: true });
    expect(byId.c_block).toMatchObject({ content: "blocked by policy", isError: true });
    expect(byId.c_invalid!.isError).toBe(true);
    expect(byId.c_invalid!.content).toMatch(/^Invalid arguments for Echo: /);
    expect(byId.c_throw).toMatchObject({ content: "Boom failed: kaboom", isError: true });
    expect(byId.c_unknown!.content).toMatch(/Unknown tool "Nope"\. Available tools: Echo, Boom/);
    const result = resultOf(messages);
    expect(result.permissionDenials).toEqual([
      { toolName: "Echo", toolUseId: "c_deny", toolInput: { text: "secret" }, message: "secrets are off limits" },
    ]);
    expect(result.usage.toolCalls).toBe(6);
    // the model saw one result per call, in call order
    const toolMessage = model.requests[1]!.prompt.find((m) => m.role === "tool")!;
    expect(toolMessage.content.map((p) => (p.type === "tool-result" ? p.toolCallId : ""))).toEqual([
      "c_ok",
      "c_deny",
      "c_block",
      "c_invalid",
      "c_throw",
      "c_unknown",
    ]);
  });
});

describe("concurrency", () => {
  function tracker() {
    let active = 0;
    let maxActive = 0;
    const order: string[] = [];
    const make = (name: string, safe: boolean) =>
      defineTool({
        name,
        description: name,
        inputSchema: z.object({ id: z.string() }),
        isConcurrencySafe: safe,
        isReadOnly: safe,
        async execute({ id }) {
          active++;
          maxActive = Math.max(maxActive, active);
          order.push(`start ${id}`);
          await new Promise((r) => setTimeout(r, 30));
          order.push(`end ${id}`);
          active--;
          return id;
        },
      });
    return {
      make,
      get maxActive() {
        return maxActive;
      },
      order,
    };
  }

  it("runs concurrency-safe calls of one response in parallel, results in call order", async () => {
    const t = tracker();
    const look = t.make("Look", true);
    const model = scriptedModel([
      { toolCalls: ["a", "b", "c"].map((id) => ({ toolName: "Look", input: { id }, id })) },
      "done",
    ]);
    const messages = await collect(summon("go", { model, tools: [look], presets: [] }));
    expect(t.maxActive).toBe(3);
    expect(t.order.slice(0, 3)).toEqual(["start a", "start b", "start c"]);
    const toolMessage = model.requests[1]!.prompt.find((m) => m.role === "tool")!;
    expect(toolMessage.content.map((p) => (p.type === "tool-result" ? p.toolCallId : ""))).toEqual(["a", "b", "c"]);
    expect(resultOf(messages).isError).toBe(false);
  });

  it("runs the others one at a time in the model's order", async () => {
    const t = tracker();
    const change = t.make("Change", false);
    const look = t.make("Look", true);
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Change", input: { id: "w1" }, id: "w1" },
          { toolName: "Look", input: { id: "r1" }, id: "r1" },
          { toolName: "Look", input: { id: "r2" }, id: "r2" },
          { toolName: "Change", input: { id: "w2" }, id: "w2" },
        ],
      },
      "done",
    ]);
    await collect(summon("go", { model, tools: [change, look], presets: [] }));
    expect(t.order).toEqual(["start w1", "end w1", "start r1", "start r2", "end r1", "end r2", "start w2", "end w2"]);
  });
});

describe("limits", () => {
  it("maxTurns ends the run with error_max_turns", async () => {
    const model = scriptedModel(({ index }) => ({ toolCalls: [{ toolName: "Echo", input: { text: String(index) } }] }));
    const messages = await collect(summon("loop forever", { model, tools: [echo], presets: [], maxTurns: 3 }));
    const result = resultOf(messages);
    expect(result).toMatchObject({ subtype: "error_max_turns", isError: true, numTurns: 3 });
    expect(result.result).toMatch(/maximum number of turns \(3\)/);
    expect(model.requests).toHaveLength(3);
    expect(ofType(messages, "tool_use")).toHaveLength(3);
    expect(ofType(messages, "tool_result")).toHaveLength(3);
  });

  it("caps what the model sees, with a marker, while the stream keeps the full output", async () => {
    const big = defineTool({
      name: "Big",
      description: "Big output",
      inputSchema: z.object({}),
      execute: () => "x".repeat(50_000),
    });
    class Small extends Tool<z.ZodObject<{}>> {
      readonly name = "Small";
      readonly description = "Small cap";
      readonly inputSchema = z.object({});
      override maxResultChars = 100;
      async call(): Promise<ToolOutput> {
        return { content: "y".repeat(500) };
      }
    }
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Big", input: {} },
          { toolName: "Small", input: {} },
        ],
      },
      "ok",
    ]);
    const messages = await collect(summon("go", { model, tools: [big, new Small()], presets: [] }));
    const results = ofType(messages, "tool_result");
    expect(results[0]!.output.content).toHaveLength(50_000);
    expect(results[1]!.output.content).toHaveLength(500);
    const parts = model.requests[1]!.prompt.find((m) => m.role === "tool")!.content;
    const values = parts.map((p) => (p.type === "tool-result" && p.output.type === "text" ? p.output.value : ""));
    // Head and tail with a marker between, the same policy as Bash's capture.
    expect(
      values[0]!.startsWith(
        `${"x".repeat(15_000)}\n\n[… 20000 characters cut from the middle: the output was 50000 characters; the first 15000 and the last 15000 are shown …]\n\n`,
      ),
    ).toBe(true);
    expect(values[0]!.endsWith("x".repeat(15_000))).toBe(true);
    expect(values[0]!.length).toBeLessThan(30_200);
    expect(values[1]).toMatch(/^y{50}\n\n\[… 400 characters cut from the middle[^\]]*\]\n\ny{50}$/);
  });

  it("abortSignal ends the run between steps with 'Run aborted.'", async () => {
    const controller = new AbortController();
    const stopper = defineTool({
      name: "Stopper",
      description: "aborts the run",
      inputSchema: z.object({}),
      execute: () => {
        controller.abort();
        return "stopping";
      },
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: "Stopper", input: {} }] }, "never reached"]);
    const messages = await collect(
      summon("go", { model, tools: [stopper], presets: [], abortSignal: controller.signal }),
    );
    expect(resultOf(messages)).toMatchObject({
      subtype: "error_during_execution",
      isError: true,
      result: "Run aborted.",
      numTurns: 1,
    });
    expect(model.requests).toHaveLength(1);
  });

  it("a reason given to the abort (AbortSignal.timeout's, abort(reason)) is in the result", async () => {
    const ended = async (reason: unknown) => {
      const controller = new AbortController();
      const stopper = defineTool({
        name: "Stopper",
        description: "aborts the run",
        inputSchema: z.object({}),
        execute: () => {
          controller.abort(reason);
          return "stopping";
        },
      });
      const model = scriptedModel([{ toolCalls: [{ toolName: "Stopper", input: {} }] }, "never reached"]);
      const messages = await collect(
        summon("go", { model, tools: [stopper], presets: [], abortSignal: controller.signal }),
      );
      expect(model.requests).toHaveLength(1);
      return resultOf(messages).result;
    };
    // What AbortSignal.timeout aborts with, made here without a clock.
    expect(await ended(new DOMException("signal timed out", "TimeoutError"))).toBe("Run aborted: signal timed out");
    expect(await ended(new Error("the deploy window closed"))).toBe("Run aborted: the deploy window closed");
    expect(await ended("shutting down")).toBe("Run aborted: shutting down");
    expect(await ended(new DOMException("This operation was aborted", "AbortError"))).toBe("Run aborted.");
  });

  it("abort refuses the next tool call of the same response and passes the signal to tools", async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const stopper = defineTool({
      name: "Stopper",
      description: "aborts the run",
      inputSchema: z.object({}),
      execute: (_i, ctx) => {
        seen = ctx.abortSignal;
        controller.abort();
        return "stopping";
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Stopper", input: {} },
          { toolName: "Echo", input: { text: "late" } },
        ],
      },
    ]);
    const messages = await collect(
      summon("go", { model, tools: [stopper, echo], presets: [], abortSignal: controller.signal }),
    );
    const results = ofType(messages, "tool_result");
    expect(results[1]!.output).toMatchObject({ isError: true, content: "Run aborted before this tool ran." });
    expect(seen?.aborted).toBe(true);
    expect(resultOf(messages).result).toBe("Run aborted.");
  });
});

describe("usage", () => {
  it("sums usage over the run, with cached tokens", async () => {
    const model = scriptedModel([
      {
        toolCalls: [{ toolName: "Echo", input: { text: "a" } }],
        usage: { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 900 },
      },
      {
        toolCalls: [{ toolName: "Echo", input: { text: "b" } }],
        usage: { inputTokens: 1200, outputTokens: 40, cacheReadTokens: 900, cacheWriteTokens: 250 },
      },
      { text: "done", usage: { inputTokens: 1300, outputTokens: 10, cacheReadTokens: 1150, cacheWriteTokens: 100 } },
    ]);
    const messages = await collect(summon("go", { model, tools: [echo], presets: [] }));
    const result = resultOf(messages);
    // Each assistant message carries its own request's usage.
    expect(ofType(messages, "assistant").map((m) => m.usage)).toEqual([
      { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 900, requests: 1, toolCalls: 0 },
      { inputTokens: 1200, outputTokens: 40, cacheReadTokens: 900, cacheWriteTokens: 250, requests: 1, toolCalls: 0 },
      { inputTokens: 1300, outputTokens: 10, cacheReadTokens: 1150, cacheWriteTokens: 100, requests: 1, toolCalls: 0 },
    ]);
    expect(result.usage).toEqual({
      inputTokens: 3500,
      outputTokens: 100,
      cacheReadTokens: 2050,
      cacheWriteTokens: 1250,
      requests: 3,
      toolCalls: 2,
    });
    expect(result.modelUsage["scripted:scripted"]).toMatchObject({ inputTokens: 3500, requests: 3 });
    expect(result.totalCostUsd).toBeNull();
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });
});
