/**
 * Honest truncation: a response cut by the output limit says so on the assistant message and
 * the result (`stopReason: "max_tokens"`), the runner prints a warning line, and the tool calls
 * of a cut response are answered without running.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, summon } from "ubiquity";
import { TextRenderer } from "../../runner/render";
import { scriptedModel, startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { openaiCompatible } from "ubiquity/plugins/model";
import { collect, ofType, resultOf } from "../helpers/collect";
import { modelLayer, run } from "../model/helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const LONG = "This answer goes on and on about the parser, the tokenizer and the tests. ".repeat(20);

describe("maxTokens: 5 on a long answer", () => {
  const kinds = {
    "openai chat": (s: FakeProviderServer) => ({
      model: "openai.chat:gpt-4o",
      apiKey: "sk-test",
      providerSettings: { baseURL: s.baseURL },
    }),
    "openai responses": (s: FakeProviderServer) => ({
      model: "openai:gpt-5",
      apiKey: "sk-test",
      providerSettings: { baseURL: s.baseURL },
    }),
    anthropic: (s: FakeProviderServer) => ({
      model: "anthropic:claude-sonnet-4-5",
      apiKey: "sk-ant-test",
      providerSettings: { baseURL: s.baseURL },
    }),
    openaiCompatible: (s: FakeProviderServer) => ({ model: openaiCompatible("local", { baseURL: s.baseURL }) }),
  };
  it.each(Object.entries(kinds))(
    "%s: the result and the assistant message carry stopReason max_tokens",
    async (_kind, optionsFor) => {
      server = await startProviderServer([LONG]);
      const messages = await run("explain", { ...optionsFor(server), maxTokens: 5 });
      const result = resultOf(messages);
      expect(result.isError).toBe(false);
      expect(result.stopReason).toBe("max_tokens");
      const [assistant] = ofType(messages, "assistant");
      expect(assistant!.stopReason).toBe("max_tokens");
      expect(assistant!.text.length).toBeLessThanOrEqual(20);
      expect(LONG.startsWith(assistant!.text)).toBe(true);
    },
  );

  it("an answer that fits ends with end_turn", async () => {
    server = await startProviderServer(["short"]);
    const result = resultOf(await run("hi", { ...kinds["openai chat"](server), maxTokens: 50 }));
    expect(result.stopReason).toBe("end_turn");
  });
});

describe("a cut tool call", () => {
  const ran: unknown[] = [];
  const write = defineTool({
    name: "Save",
    description: "Save text",
    inputSchema: z.object({ text: z.string() }),
    execute: (input) => {
      ran.push(input);
      return "saved";
    },
  });

  it("is answered with an error result and never runs; the model gets another turn", async () => {
    ran.length = 0;
    const model = scriptedModel([
      {
        text: "Saving",
        toolCalls: [{ toolName: "Save", input: { text: "the first half of a lo" } }],
        finishReason: "length",
      },
      { toolCalls: [{ toolName: "Save", input: { text: "short" } }] },
      "done",
    ]);
    const messages = await collect(summon("save it", { ...modelLayer(), tools: [write], model, maxTokens: 10 }));
    const results = ofType(messages, "tool_result");
    expect(results).toHaveLength(2);
    expect(results[0]!.output.isError).toBe(true);
    expect(results[0]!.output.content).toMatch(/^Not run: the response was cut at the output limit \(maxTokens: 10\)/);
    expect(ran).toEqual([{ text: "short" }]);
    expect(ofType(messages, "tool_use")).toHaveLength(2);
    expect(ofType(messages, "assistant").map((a) => a.stopReason)).toEqual(["max_tokens", "tool_use", "end_turn"]);
    expect(resultOf(messages).stopReason).toBe("end_turn");
    // The model saw why: the error result went back with the call.
    const second = model.requests[1]!.prompt.at(-1) as {
      role: string;
      content: { type: string; output: { value: string } }[];
    };
    expect(second.role).toBe("tool");
    expect(second.content[0]!.output.value).toMatch(/Not run: the response was cut/);
  });

  it("through a real server: a call in a response cut by max_tokens does not run", async () => {
    ran.length = 0;
    server = await startProviderServer([{ text: LONG, toolCalls: [{ name: "Save", input: { text: "x" } }] }, "ok"]);
    const messages = await collect(
      summon("save", {
        ...modelLayer(),
        tools: [write],
        model: "anthropic:claude-sonnet-4-5",
        apiKey: "k",
        providerSettings: { baseURL: server.baseURL },
        maxTokens: 30,
      }),
    );
    expect(ran).toEqual([]);
    const [first] = ofType(messages, "tool_result");
    expect(first!.output.content).toMatch(/Not run: the response was cut/);
  });
});

describe("the runner", () => {
  it("prints a warning line under a cut response", () => {
    const info: string[] = [];
    const renderer = new TextRenderer({ out: () => {}, info: (t) => info.push(t) }, false);
    const base = {
      uuid: "u",
      sessionId: "s",
      type: "assistant" as const,
      text: "The parser",
      content: [],
      model: "openai:gpt-5",
    };
    renderer.render({ ...base, stopReason: "end_turn" });
    expect(info).toEqual([]);
    renderer.render({ ...base, stopReason: "max_tokens" });
    expect(info).toEqual([expect.stringMatching(/^warning: the response was cut at the output limit \(maxTokens\)/)]);
  });
});
