/** openaiCompatible(model, { baseURL, apiKey?, headers? }): any OpenAI-compatible server as a constructed model. */
import { afterEach, expect, it } from "vitest";
import { openaiCompatible } from "ubiquity";
import { startProviderServer, type FakeProviderServer } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { run } from "./helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it("reaches the server with its key and headers, round-trips a tool call, and is labelled openai-compatible:<model>", async () => {
  server = await startProviderServer([
    { toolCalls: [{ name: "Echo", input: { text: "v" } }] },
    { text: "done", usage: { inputTokens: 70, outputTokens: 2, cacheReadTokens: 20 } },
  ]);
  const model = openaiCompatible("llama3.3", {
    baseURL: server.baseURL,
    apiKey: "local-key",
    headers: { "x-team": "a" },
  });
  expect(model.provider).toBe("openai-compatible.chat");
  const messages = await run("go", { model });
  const result = resultOf(messages);
  expect(result.result).toBe("done");
  expect(ofType(messages, "tool_result")[0]!.output.content).toBe("echoed: v");
  expect(server.requests[0]!.headers).toMatchObject({ authorization: "Bearer local-key", "x-team": "a" });
  expect((server.requests[0]!.body as { model: string }).model).toBe("llama3.3");
  expect(result.modelUsage).toMatchObject({ "openai-compatible:llama3.3": { cacheReadTokens: 20, requests: 2 } });
});

it("rejects a missing or non-http base URL with a TypeError that shows the form", () => {
  expect(() => openaiCompatible("m", {} as never)).toThrow(/baseURL must be an http\(s\) URL/);
  expect(() => openaiCompatible("m", { baseURL: "localhost:11434" })).toThrow(TypeError);
});

it("answers a tool call whose arguments are not valid JSON with a result saying so, and the run goes on", async () => {
  // A small local model's slip: the arguments stop before their closing brace.
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const broken = [
    chunk({ role: "assistant", content: "" }),
    chunk({
      tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "Echo", arguments: '{"text": "v"' } }],
    }),
    chunk({}, "tool_calls"),
    "data: [DONE]\n\n",
  ].join("");
  server = await startProviderServer([
    { fault: "raw", contentType: "text/event-stream", body: broken },
    { text: "done" },
  ]);
  const messages = await run("go", { model: openaiCompatible("m", { baseURL: server.baseURL }) });
  expect(resultOf(messages).result).toBe("done");
  expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({
    isError: true,
    content:
      'Invalid arguments for Echo: they are not valid JSON; send them as one JSON object. Received: {"text": "v"',
  });
  // The model reads the same words in its next request.
  expect(JSON.stringify(server.requests[1]!.body)).toContain("they are not valid JSON");
});
