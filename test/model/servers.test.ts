/**
 * The fake provider servers of ubiquity/testing, non-streaming paths (generateText), for each
 * wire family: text and tool calls, usage with cached tokens, a 404 that names the path, and
 * the request record. (The streaming paths run in providers.test.ts through summon().)
 */
import { afterEach, describe, expect, it } from "vitest";
import { generateText, jsonSchema, tool } from "ai";
import { createModel } from "ubiquity/plugins/model";
import { familyOf, startProviderServer, type FakeProviderServer } from "ubiquity/testing";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const FAMILIES = [
  { model: "openai:gpt-4o", family: "openai-responses", cacheRead: 40 },
  { model: "openai.chat:gpt-4o", family: "openai-chat", cacheRead: 40 },
  { model: "anthropic:claude-haiku-4-5", family: "anthropic", cacheRead: 40 },
  { model: "google:gemini-2.5-flash", family: "google", cacheRead: 40 },
  { model: "cohere:command-a", family: "cohere", cacheRead: 0 },
  {
    model: "bedrock:anthropic.claude-3-haiku-20240307-v1:0",
    family: "bedrock",
    cacheRead: 40,
    settings: { region: "us-east-1" },
  },
] as const;

describe.each(FAMILIES)("$family (not streamed)", (c) => {
  it("answers text and tool calls with usage", async () => {
    server = await startProviderServer([
      {
        text: "thinking out loud",
        toolCalls: [{ name: "lookup", input: { q: "x" } }],
        usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 40 },
      },
    ]);
    const settings = { baseURL: server.baseURL, ...("settings" in c ? c.settings : {}) };
    const model = await createModel(c.model, { apiKey: "k", providerSettings: settings });
    const result = await generateText({
      model,
      prompt: "go",
      maxRetries: 0,
      tools: {
        lookup: tool({
          description: "look up",
          inputSchema: jsonSchema<{ q: string }>({ type: "object", properties: { q: { type: "string" } } }),
        }),
      },
    });
    expect(result.text).toBe("thinking out loud");
    expect(result.toolCalls.map((t) => [t.toolName, t.input])).toEqual([["lookup", { q: "x" }]]);
    expect(result.usage.inputTokens).toBe(100);
    expect(result.usage.inputTokenDetails.cacheReadTokens ?? 0).toBe(c.cacheRead);
    expect(server.requests[0]).toMatchObject({ method: "POST", family: c.family });
  });
});

it("answers an unknown path with a 404 naming it, and routes by the path's end", async () => {
  server = await startProviderServer([]);
  const response = await fetch(`${server.url}/v9/nothing`, { method: "POST", body: "{}" });
  expect(response.status).toBe(404);
  expect(await response.text()).toContain("no wire format at POST /v9/nothing");
  expect(familyOf("/openai/v1/chat/completions?x=1")).toBe("openai-chat");
  expect(familyOf("/v1beta/models/gemini:streamGenerateContent?alt=sse")).toBe("google");
  expect(familyOf("/model/meta.llama3-70b-instruct-v1%3A0/converse-stream")).toBe("bedrock");
});
