/**
 * The span tree of real runs (default preset, the built-in tools on a temp dir, the scripted
 * model), caught by the OpenTelemetry SDK's in-memory exporter: parents, names and attributes
 * of the run, turn, model-call, tool-call and compaction spans; the AI SDK's own spans inside
 * the model-call span; denied and failing tool calls; a subagent's run under its Agent call.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { summon, type Options } from "ubiquity";
import { scriptedModel, type Script } from "ubiquity/testing";
import { collect, resultOf } from "../helpers/collect";
import { memoryTracing, tree } from "./helpers";
import { tempDirs } from "../helpers/temp-dirs";

const madeDir = tempDirs();

function project() {
  const dir = madeDir("ubq-telemetry-");
  writeFileSync(join(dir, "notes.txt"), "hello\n");
  writeFileSync(join(dir, "more.txt"), "world\n");
  return dir;
}

async function traced(script: Script, options: Partial<Options> = {}, prompt = "look around") {
  const dir = project();
  const { tracer, settled } = memoryTracing();
  const model = scriptedModel(script);
  const messages = await collect(
    summon(prompt, {
      model,
      cwd: dir,
      persistSession: false,
      persistTodos: false,
      marketPricing: false,
      maxRetries: 0,
      telemetry: { tracer },
      ...options,
    }),
  );
  return { dir, messages, result: resultOf(messages), t: tree(await settled()) };
}

const PRICING = { scripted: { input: 2, output: 10 } };

describe("a two-turn run with two tool calls", () => {
  it("is one invoke_agent span holding two turns, their chat spans and the tool calls, with tokens, model, cost and verdicts", async () => {
    const dir = project();
    const { tracer, settled } = memoryTracing();
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Read", input: { file_path: join(dir, "notes.txt") }, id: "read-1" },
          { toolName: "Glob", input: { pattern: "*.txt" }, id: "glob-1" },
        ],
        usage: { inputTokens: 1_000, outputTokens: 200 },
      },
      { text: "two files", usage: { inputTokens: 1_500, outputTokens: 50 } },
    ]);
    const result = resultOf(
      await collect(
        summon("look around", {
          model,
          cwd: dir,
          persistSession: false,
          marketPricing: false,
          modelPricing: PRICING,
          telemetry: { tracer },
        }),
      ),
    );
    expect(result.isError).toBe(false);
    const t = tree(await settled());

    const run = t.one("invoke_agent ubiquity");
    expect(t.parentOf(run), t.outline()).toBeUndefined();
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "ubiquity",
      "gen_ai.conversation.id": result.sessionId,
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "scripted",
      "gen_ai.usage.input_tokens": 2_500,
      "gen_ai.usage.output_tokens": 250,
      "ubiquity.num_turns": 2,
      "ubiquity.result.subtype": "success",
    });
    expect(run.attributes["ubiquity.cost_usd"]).toBeCloseTo(result.totalCostUsd!, 12);
    expect(result.totalCostUsd).toBeCloseTo((2_500 * 2 + 250 * 10) / 1e6, 12);

    const turns = t
      .named("turn")
      .sort((a, b) => Number(a.attributes["ubiquity.turn.number"]) - Number(b.attributes["ubiquity.turn.number"]));
    expect(turns.map((s) => s.attributes["ubiquity.turn.number"])).toEqual([1, 2]);
    for (const turn of turns) expect(t.parentOf(turn)).toBe(run);
    expect(turns.map((s) => s.attributes["ubiquity.turn.tool_calls"])).toEqual([2, 0]);

    // Our chat spans carry the purpose; the AI SDK's own chat spans sit deeper, inside ours.
    const chats = t.named("chat scripted").filter((s) => s.attributes["ubiquity.model.purpose"] === "turn");
    expect(chats.map((s) => t.parentOf(s))).toEqual(turns);
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "scripted",
      "gen_ai.response.model": "scripted",
      "gen_ai.usage.input_tokens": 1_000,
      "gen_ai.usage.output_tokens": 200,
      "gen_ai.response.finish_reasons": ["tool-calls"],
    });
    expect(chats[0]!.attributes["ubiquity.cost_usd"]).toBeCloseTo((1_000 * 2 + 200 * 10) / 1e6, 12);
    expect(chats[1]!.attributes["ubiquity.cost_usd"]).toBeCloseTo((1_500 * 2 + 50 * 10) / 1e6, 12);

    const tools = t.named(/^execute_tool /);
    expect(tools.map((s) => s.name).sort()).toEqual(["execute_tool Glob", "execute_tool Read"]);
    for (const tool of tools) {
      expect(t.parentOf(tool)).toBe(turns[0]);
      expect(tool.status.code).not.toBe(SpanStatusCode.ERROR);
      expect(tool.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "ubiquity.permission.verdict": "allow",
        "ubiquity.permission.decision": "allow",
      });
      expect(tool.attributes["ubiquity.tool.duration_ms"]).toBeGreaterThan(0);
    }
    expect(t.one("execute_tool Read").attributes).toMatchObject({
      "gen_ai.tool.name": "Read",
      "gen_ai.tool.call.id": "read-1",
    });
    // A tool call's span lasts while the call runs, inside its turn.
    const read = t.one("execute_tool Read");
    // (Each span's clock starts from Date.now(), so spans agree to about a millisecond.)
    const ms = (time: [number, number]) => time[0] * 1e3 + time[1] / 1e6;
    expect(ms(read.endTime)).toBeLessThanOrEqual(ms(turns[0]!.endTime) + 2);
    expect(ms(read.startTime)).toBeGreaterThanOrEqual(ms(turns[0]!.startTime) - 2);

    // The AI SDK's own spans (its agent, step and provider-call spans) nest inside each chat span.
    for (const chat of chats) {
      const inner = t.spans.filter((s) => t.ancestors(s).includes(chat));
      expect(
        inner.map((s) => s.name),
        t.outline(),
      ).toEqual(expect.arrayContaining(["invoke_agent ubiquity.turn", "step 1", "chat scripted"]));
      const sdkChat = inner.find((s) => s.name === "chat scripted")!;
      expect(sdkChat.attributes["gen_ai.usage.input_tokens"]).toBe(chat.attributes["gen_ai.usage.input_tokens"]);
    }
    // Every span ended in this one trace.
    expect(new Set(t.spans.map((s) => s.spanContext().traceId)).size).toBe(1);
  });
});

describe("tool calls that do not succeed", () => {
  it("a denied call shows its verdict and decision; a failing call shows its error; both are ERROR", async () => {
    const { result, t } = await traced(
      [
        {
          toolCalls: [
            { toolName: "Write", input: { file_path: "out.txt", content: "x" }, id: "write-1" },
            { toolName: "Read", input: { file_path: "missing.txt" }, id: "read-missing" },
          ],
        },
        "ok",
      ],
      { canUseTool: async () => ({ behavior: "deny", message: "no writes today" }) },
    );
    expect(result.isError).toBe(false);
    expect(result.permissionDenials).toHaveLength(1);
    const write = t.one("execute_tool Write");
    expect(write.attributes).toMatchObject({
      "ubiquity.permission.verdict": "ask",
      "ubiquity.permission.decision": "deny",
      "error.type": "permission_denied",
    });
    expect(write.status).toEqual({ code: SpanStatusCode.ERROR, message: "no writes today" });
    const read = t.one("execute_tool Read");
    expect(read.attributes).toMatchObject({ "ubiquity.permission.decision": "allow", "error.type": "tool_error" });
    expect(read.status.code).toBe(SpanStatusCode.ERROR);
    expect(read.status.message).toMatch(/missing\.txt/);
  });

  it("a call refused before the funnel's hooks (an unknown tool) still gets its span, under its turn", async () => {
    const { t } = await traced([{ toolCalls: [{ toolName: "Nope", input: {}, id: "nope-1" }] }, "ok"]);
    const nope = t.one("execute_tool Nope");
    expect(t.parentOf(nope)?.name).toBe("turn");
    expect(nope.status.code).toBe(SpanStatusCode.ERROR);
    expect(nope.status.message).toMatch(/Unknown tool "Nope"/);
  });

  it("a failing model call ends every open span: the chat, turn and run spans are ERROR with the message", async () => {
    const { result, t } = await traced([{ error: { status: 400, message: "bad request from the provider" } }]);
    expect(result.isError).toBe(true);
    for (const name of ["invoke_agent ubiquity", "turn"]) {
      const span = t.one(name);
      expect(span.status.code, name).toBe(SpanStatusCode.ERROR);
      expect(span.status.message, name).toMatch(/bad request from the provider/);
    }
    const chat = t.named("chat scripted").find((s) => s.attributes["ubiquity.model.purpose"] === "turn")!;
    expect(chat.status.code).toBe(SpanStatusCode.ERROR);
    expect(chat.status.message).toMatch(/bad request from the provider/);
    expect(chat.events.map((e) => e.name)).toContain("exception");
  });

  it("a retried call stays one chat span: the failure is an exception event, the answer ends it OK", async () => {
    const { result, t } = await traced(
      [
        { error: { status: 503, message: "overloaded right now" } },
        { text: "fine", usage: { inputTokens: 40, outputTokens: 2 } },
      ],
      {
        maxRetries: 1,
        retryMaxWaitMs: 1,
      },
    );
    expect(result.isError, result.result).toBe(false);
    const chats = t.named("chat scripted").filter((s) => s.attributes["ubiquity.model.purpose"] === "turn");
    expect(chats, t.outline()).toHaveLength(1);
    expect(chats[0]!.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(chats[0]!.attributes["gen_ai.usage.input_tokens"]).toBe(40);
    expect(
      chats[0]!.events.filter((e) => e.name === "exception").map((e) => e.attributes?.["exception.message"]),
    ).toEqual(["overloaded right now"]);
    // The AI SDK's span of each attempt sits inside it, the failed one and the answered one.
    expect(
      t.spans.filter((s) => s.name === "invoke_agent ubiquity.turn" && t.ancestors(s).includes(chats[0]!)),
    ).toHaveLength(2);
  });

  it("an aborted run ends its spans too", async () => {
    const abort = new AbortController();
    const { result, t } = await traced(
      () => {
        abort.abort();
        return { text: "never", delayMs: 5_000 };
      },
      { abortSignal: abort.signal },
    );
    expect(result.isError).toBe(true);
    expect(t.one("invoke_agent ubiquity").status.code).toBe(SpanStatusCode.ERROR);
    expect(t.one("turn").status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe("a subagent", () => {
  it("runs as an invoke_agent span under the Agent tool call's span, its own turns and chats inside", async () => {
    const { result, t } = await traced(
      ({ request }) => {
        const system = request.prompt
          .filter((m) => m.role === "system")
          .map((m) => m.content)
          .join("\n");
        if (system.includes("You are HELPER."))
          return { text: "helper done", usage: { inputTokens: 10, outputTokens: 3 } };
        if (request.prompt.at(-1)?.role === "tool") return "parent done";
        return {
          toolCalls: [
            {
              toolName: "Agent",
              input: { subagent_type: "helper", description: "help", prompt: "help me" },
              id: "agent-1",
            },
          ],
        };
      },
      { agents: { helper: { description: "Helps.", prompt: "You are HELPER." } } },
    );
    expect(result.isError).toBe(false);
    const agentTool = t.one("execute_tool Agent");
    const child = t.one("invoke_agent helper");
    expect(t.parentOf(child), t.outline()).toBe(agentTool);
    expect(child.attributes).toMatchObject({
      "gen_ai.agent.name": "helper",
      "gen_ai.usage.input_tokens": 10,
      "gen_ai.usage.output_tokens": 3,
    });
    expect(typeof child.attributes["gen_ai.agent.id"]).toBe("string");
    const childTurn = t.childrenOf(child).find((s) => s.name === "turn");
    expect(childTurn).toBeDefined();
    expect(t.childrenOf(childTurn!).map((s) => s.name)).toContain("chat scripted");
    expect(t.ancestors(agentTool)).toContain(t.one("invoke_agent ubiquity"));
  });
});

describe("compaction", () => {
  it("a summary shows as a compact span inside the turn, holding the summary's chat span", async () => {
    const summarizer = scriptedModel(
      [{ text: "They looked around; notes.txt was read.", usage: { inputTokens: 500, outputTokens: 20 } }],
      { modelId: "summarizer" },
    );
    const dir = project();
    const read = (i: number) => ({ toolName: "Read", input: { file_path: join(dir, "notes.txt") }, id: `r${i}` });
    const { result, t } = await traced(
      [
        { toolCalls: [read(0)], usage: { inputTokens: 1_000, outputTokens: 40 } },
        { toolCalls: [read(1)], usage: { inputTokens: 80_000, outputTokens: 40 } },
        { text: "done", usage: { inputTokens: 1_000, outputTokens: 5 } },
      ],
      { compactModel: summarizer, maxContextTokens: 100_000, compactKeepRecent: 2 },
    );
    expect(result.isError).toBe(false);
    expect(summarizer.played).toBe(1);
    const compact = t.one("compact summarize");
    expect(t.parentOf(compact)?.name, t.outline()).toBe("turn");
    expect(t.parentOf(compact)?.attributes["ubiquity.turn.number"]).toBe(3);
    expect(compact.attributes).toMatchObject({
      "ubiquity.compaction.tier": "summarize",
      "ubiquity.compaction.applied": true,
    });
    expect(Number(compact.attributes["ubiquity.compaction.tokens_after"])).toBeLessThan(
      Number(compact.attributes["ubiquity.compaction.tokens_before"]),
    );
    const summaryCall = t.childrenOf(compact).find((s) => s.name === "chat summarizer");
    expect(summaryCall?.attributes).toMatchObject({
      "ubiquity.model.purpose": "compact",
      "gen_ai.usage.input_tokens": 500,
    });
  });
});
