/**
 * Every provider family, through summon() with a model string, against a real HTTP server on
 * 127.0.0.1 speaking that provider's wire format (base URL set through providerSettings): a text
 * answer, a tool-call round trip with a custom tool, and usage with cached tokens where the
 * wire format reports them. The provider packages are not mocked; only the endpoint is local.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer, type WireFamily } from "ubiquity/testing";
import { ofType, resultOf } from "../helpers/collect";
import { run } from "./helpers";

interface Case {
  model: string;
  family: WireFamily;
  /** Which cached-token counts the provider reads from this wire format. */
  cache: "read" | "read+write" | "none";
  settings?: Record<string, unknown>;
  /** False for providers whose package cannot send tool results back (Perplexity, Hugging Face). */
  tools?: false;
  /** Where the API key travels. */
  auth: (headers: Record<string, string>) => string | undefined;
}

const bearer = (h: Record<string, string>) => h.authorization?.replace(/^Bearer /, "");
const CASES: Case[] = [
  { model: "openai:gpt-4o", family: "openai-responses", cache: "read+write", auth: bearer },
  { model: "openai.chat:gpt-4o", family: "openai-chat", cache: "read", auth: bearer },
  { model: "anthropic:claude-sonnet-4-5", family: "anthropic", cache: "read+write", auth: (h) => h["x-api-key"] },
  { model: "google:gemini-2.5-flash", family: "google", cache: "read", auth: (h) => h["x-goog-api-key"] },
  { model: "mistral:mistral-large-latest", family: "openai-chat", cache: "read", auth: bearer },
  { model: "cohere:command-r-plus", family: "cohere", cache: "none", auth: bearer },
  {
    model: "bedrock:anthropic.claude-3-5-sonnet-20241022-v2:0",
    family: "bedrock",
    cache: "read+write",
    settings: { region: "us-east-1" },
    auth: bearer,
  },
  { model: "groq:llama-3.3-70b-versatile", family: "openai-chat", cache: "read", auth: bearer },
  { model: "xai:grok-4", family: "openai-responses", cache: "read", auth: bearer },
  { model: "deepseek:deepseek-chat", family: "openai-chat", cache: "read", auth: bearer },
  { model: "openrouter:meta-llama/llama-3.3-70b-instruct", family: "openai-chat", cache: "read", auth: bearer },
  { model: "ollama:llama3.3", family: "openai-chat", cache: "read", auth: bearer },
  { model: "togetherai:meta-llama/Llama-3.3-70B-Instruct-Turbo", family: "openai-chat", cache: "read", auth: bearer },
  {
    model: "fireworks:accounts/fireworks/models/llama-v3p3-70b-instruct",
    family: "openai-chat",
    cache: "read",
    auth: bearer,
  },
  { model: "cerebras:llama-3.3-70b", family: "openai-chat", cache: "read", auth: bearer },
  { model: "deepinfra:meta-llama/Llama-3.3-70B-Instruct", family: "openai-chat", cache: "read", auth: bearer },
  {
    model: "azure:my-deployment",
    family: "openai-responses",
    cache: "read+write",
    settings: { resourceName: undefined },
    auth: (h) => h["api-key"],
  },
  { model: "perplexity:sonar", family: "openai-chat", cache: "none", tools: false, auth: bearer },
  {
    model: "huggingface:meta-llama/Llama-3.3-70B-Instruct",
    family: "openai-responses",
    cache: "read",
    tools: false,
    auth: bearer,
  },
  { model: "moonshotai:kimi-k2", family: "openai-chat", cache: "read", auth: bearer },
  { model: "alibaba:qwen-plus", family: "openai-chat", cache: "read", auth: bearer },
  { model: "vercel:v0-1.5-md", family: "openai-chat", cache: "read", auth: bearer },
  {
    model: "google-vertex:gemini-2.5-flash",
    family: "google",
    cache: "read",
    settings: { project: "p", location: "us-central1" },
    auth: (h) => h["x-goog-api-key"],
  },
];

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(CASES)("$model", (c) => {
  const settings = () => {
    const s: Record<string, unknown> = { ...c.settings, baseURL: server!.baseURL };
    for (const k of Object.keys(s)) if (s[k] === undefined) delete s[k];
    return s;
  };

  it("answers with text", async () => {
    server = await startProviderServer(["Hello from the wire."]);
    const messages = await run("say hello", { model: c.model, apiKey: "key-for-test", providerSettings: settings() });
    const result = resultOf(messages);
    expect(result.result).toBe("Hello from the wire.");
    expect(result.isError).toBe(false);
    expect(server.requests.map((r) => r.family)).toEqual([c.family]);
    expect(c.auth(server.requests[0]!.headers)).toBe("key-for-test");
  });

  if (c.tools !== false)
    it("makes a tool-call round trip and reports usage with cached tokens", async () => {
      server = await startProviderServer([
        { toolCalls: [{ name: "Echo", input: { text: "ping" } }], usage: { inputTokens: 50, outputTokens: 8 } },
        {
          text: "The tool said pong-ish.",
          usage: { inputTokens: 120, outputTokens: 9, cacheReadTokens: 40, cacheWriteTokens: 30 },
        },
      ]);
      const messages = await run("use the tool", {
        model: c.model,
        apiKey: "key-for-test",
        providerSettings: settings(),
      });
      const result = resultOf(messages);
      expect(result.isError, result.result).toBe(false);
      expect(ofType(messages, "tool_use")).toMatchObject([{ toolName: "Echo", toolInput: { text: "ping" } }]);
      expect(ofType(messages, "tool_result")[0]!.output.content).toBe("echoed: ping");
      // The tool's output went back to the provider in its own format.
      expect(server.requests).toHaveLength(2);
      expect(JSON.stringify(server.requests[1]!.body)).toContain("echoed: ping");
      expect(result.result).toBe("The tool said pong-ish.");

      const read = c.cache === "none" ? 0 : 40;
      const write = c.cache === "read+write" ? 30 : 0;
      // Input is inclusive of cached tokens; a provider that reports no writes counts them as plain input.
      expect(result.usage).toMatchObject({
        outputTokens: 17,
        cacheReadTokens: read,
        cacheWriteTokens: write,
        requests: 2,
      });
      expect(result.usage.inputTokens).toBe(c.cache === "read" ? 170 - 30 + 30 : 170);
      // The label is the provider name the user wrote, then the model id (openai.chat: is openai:).
      const label = c.model.replace(/^(\w+)\.chat:/, "$1:");
      expect(Object.keys(result.modelUsage ?? {})).toEqual([label]);
    });

  if (c.tools === false)
    it("reports usage with cached tokens (its package sends no tool results)", async () => {
      server = await startProviderServer([
        { text: "ok", usage: { inputTokens: 120, outputTokens: 9, cacheReadTokens: 40 } },
      ]);
      const result = resultOf(
        await run("hi", { model: c.model, apiKey: "key-for-test", providerSettings: settings() }),
      );
      expect(result.usage).toMatchObject({
        inputTokens: 120,
        outputTokens: 9,
        cacheReadTokens: c.cache === "none" ? 0 : 40,
      });
    });
});
