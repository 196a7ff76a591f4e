/**
 * Prompt caching against local servers speaking each provider's wire format (the provider
 * packages run unmodified; only the endpoint is local): Anthropic request bodies carry
 * cache_control on the last tool, the system prompt and the newest message, and the message
 * breakpoint advances turn by turn; "1h" sets the TTL; Bedrock gets a cache point at the end of
 * the user prompt; other providers and `cachePrompt: false` go out untouched.
 */
import { afterEach, describe, expect, it } from "vitest";
import { summon, type SummonOptions } from "ubiquity";
import { scriptedModel, startProviderServer, type FakeProviderServer, type FakeTurn } from "ubiquity/testing";
import model from "ubiquity/plugins/model";
import systemPrompt from "ubiquity/plugins/system-prompt";
import caching from "ubiquity/plugins/caching";
import { collect, resultOf } from "../helpers/collect";
import { sizedTool } from "./helpers";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SCRIPT: FakeTurn[] = [
  {
    toolCalls: [
      { name: "Read", input: { size: 10 } },
      { name: "Grep", input: { size: 10 } },
    ],
  },
  { toolCalls: [{ name: "Read", input: { size: 10 } }] },
  "done",
];

async function bodies(
  modelString: string,
  options: Partial<SummonOptions> = {},
  settings: Record<string, unknown> = {},
) {
  server = await startProviderServer(SCRIPT);
  const messages = await collect(
    summon("read things", {
      model: modelString,
      apiKey: "key-for-test",
      providerSettings: { baseURL: server.baseURL, ...settings },
      presets: [],
      plugins: [model(), systemPrompt(), caching()],
      tools: [sizedTool("Read"), sizedTool("Grep")],
      ...options,
    }),
  );
  expect(resultOf(messages).isError, resultOf(messages).result).toBe(false);
  return server.requests.map((r) => r.body as Record<string, unknown>);
}

type Block = { type: string; cache_control?: unknown };
type AnthropicBody = {
  system?: Block[];
  tools: (Block & { name: string })[];
  messages: { role: string; content: Block[] }[];
};

/** `[message index, block index]` of every breakpoint in the messages of an Anthropic body. */
const messageBreakpoints = (body: AnthropicBody) =>
  body.messages.flatMap((m, i) => m.content.flatMap((b, j) => (b.cache_control ? [[i, j]] : [])));

describe("Anthropic", () => {
  it("marks the tool block, the system prompt and the newest message, advancing the message breakpoint every request", async () => {
    const sent = (await bodies("anthropic:claude-sonnet-4-5")) as unknown as AnthropicBody[];
    expect(sent).toHaveLength(3);
    const ephemeral = { type: "ephemeral" };
    let previous = -1;
    for (const body of sent) {
      // Tool block: the last tool only.
      expect(body.tools.map((t) => t.cache_control)).toEqual([undefined, ephemeral]);
      // System prompt: one text block, marked.
      expect(body.system).toHaveLength(1);
      expect(body.system![0]!.cache_control).toEqual(ephemeral);
      // Messages: exactly one breakpoint, on the last block of the last message.
      const marks = messageBreakpoints(body);
      const last = body.messages.length - 1;
      expect(marks).toEqual([[last, body.messages[last]!.content.length - 1]]);
      expect(body.messages[last]!.content.at(-1)!.cache_control).toEqual(ephemeral);
      expect(last).toBeGreaterThan(previous);
      previous = last;
    }
    // Request 2's newest message is the tool results of call 1, and it is unmarked in request 3.
    expect(sent[1]!.messages.at(-1)!.content.map((b) => b.type)).toEqual(["tool_result", "tool_result"]);
    expect(sent[2]!.messages[sent[1]!.messages.length - 1]!.content.every((b) => !b.cache_control)).toBe(true);
  });

  it('sets the one-hour TTL with cachePrompt: "1h"', async () => {
    const sent = (await bodies("anthropic:claude-sonnet-4-5", { cachePrompt: "1h" })) as unknown as AnthropicBody[];
    const hour = { type: "ephemeral", ttl: "1h" };
    for (const body of sent) {
      expect(body.tools.at(-1)!.cache_control).toEqual(hour);
      expect(body.system![0]!.cache_control).toEqual(hour);
      expect(body.messages.at(-1)!.content.at(-1)!.cache_control).toEqual(hour);
    }
  });

  it("sends no breakpoint with cachePrompt: false", async () => {
    const sent = await bodies("anthropic:claude-sonnet-4-5", { cachePrompt: false });
    expect(JSON.stringify(sent)).not.toContain("cache_control");
  });
});

describe("Bedrock", () => {
  it("puts one cache point at the end of the user prompt", async () => {
    const sent = (await bodies("bedrock:anthropic.claude-3-5-sonnet-20241022-v2:0", {}, { region: "us-east-1" })) as {
      messages: { role: string; content: Record<string, unknown>[] }[];
      system?: unknown[];
      toolConfig?: unknown;
    }[];
    for (const body of sent) {
      const prompt = body.messages[0]!;
      expect(prompt.role).toBe("user");
      expect(prompt.content.at(-1)).toEqual({ cachePoint: { type: "default" } });
      // Only there: the tool results and the system prompt carry none.
      expect(JSON.stringify(body).split('"cachePoint"')).toHaveLength(2);
    }
  });
});

describe("fallback", () => {
  async function fallbackBodies(fallbackModel: string, settings: Record<string, unknown> = {}) {
    server = await startProviderServer(["the fallback answered"]);
    const primary = scriptedModel([{ error: { status: 503, message: "primary overloaded" } }]);
    const messages = await collect(
      summon("read things", {
        model: primary,
        fallbackModel,
        apiKey: "key-for-test",
        providerSettings: { baseURL: server.baseURL, ...settings },
        presets: [],
        plugins: [model(), systemPrompt(), caching()],
        tools: [sizedTool("Read")],
      }),
    );
    expect(resultOf(messages).result).toBe("the fallback answered");
    return server.requests.map((r) => r.body as Record<string, unknown>);
  }

  it("when a fallback model takes over, the caching plugin places that provider's markers on the fallback request (Anthropic cache_control)", async () => {
    const [body] = (await fallbackBodies("anthropic:claude-haiku-4-5")) as unknown as AnthropicBody[];
    const ephemeral = { type: "ephemeral" };
    expect(body!.tools.at(-1)!.cache_control).toEqual(ephemeral);
    expect(body!.system![0]!.cache_control).toEqual(ephemeral);
    expect(body!.messages.at(-1)!.content.at(-1)!.cache_control).toEqual(ephemeral);
  });

  it("when a fallback model takes over, the caching plugin places that provider's markers on the fallback request (Bedrock cachePoint)", async () => {
    const [body] = (await fallbackBodies("bedrock:anthropic.claude-3-5-sonnet-20241022-v2:0", {
      region: "us-east-1",
    })) as {
      messages: { role: string; content: Record<string, unknown>[] }[];
    }[];
    expect(body!.messages[0]!.content.at(-1)).toEqual({ cachePoint: { type: "default" } });
  });
});

describe("providers that cache on their own", () => {
  it("get the same request bodies with and without the plugin", async () => {
    const withPlugin = await bodies("openai:gpt-4o");
    await server!.close();
    const without = await bodies("openai:gpt-4o", { plugins: [model(), systemPrompt()] });
    expect(JSON.stringify(withPlugin)).toBe(JSON.stringify(without));
    expect(JSON.stringify(withPlugin)).not.toMatch(/cache_control|cachePoint/);
  });
});
