/**
 * WebSearch on the providers that host search (issue 42, points 2 and 4): for Anthropic, OpenAI
 * (Responses) and Google models, the search is one request to the provider with its own search
 * tool (the real provider packages, a fake server on 127.0.0.1 speaking each wire format); the
 * results come back in the one shape (title, url, snippet, date, source), the domain filters
 * apply, and the search call's tokens and cost land in the run's usage, modelUsage and
 * totalCostUsd. A model whose provider has no hosted search (OpenAI Chat Completions) never
 * sends a provider search tool, and without a backend WebSearch is not offered to it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { summon, type Message } from "ubiquity";
import { startProviderServer, type FakeProviderServer, type FakeTurn, type RecordedRequest } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import {
  anthropicSearchAnswer,
  anthropicSearchError,
  googleSearchAnswer,
  openaiSearchAnswer,
  SEARCH_USAGE,
} from "./native-wire";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TURN_USAGE = { inputTokens: 100, outputTokens: 10 };
const PRICE = { input: 3, output: 15 };

/** A provider request body: the tools it offers, whatever their wire shape. */
interface RequestBody {
  tools?: Record<string, unknown>[];
}

const CASES = [
  {
    provider: "anthropic",
    model: "anthropic:claude-sonnet-4-5",
    answer: anthropicSearchAnswer,
    tool: (body: unknown) => (body as RequestBody).tools?.find((t) => t.type === "web_search_20250305"),
    urls: ["https://docs.example.com/guide", "https://blocked.example.net/post"],
  },
  {
    provider: "openai",
    model: "openai:gpt-5",
    answer: openaiSearchAnswer,
    tool: (body: unknown) => (body as RequestBody).tools?.find((t) => t.type === "web_search"),
    urls: ["https://docs.example.com/guide", "https://news.example.org/story"],
  },
  {
    provider: "google",
    model: "google:gemini-2.5-flash",
    answer: googleSearchAnswer,
    tool: (body: unknown) => (body as RequestBody).tools?.find((t) => "googleSearch" in t || "google_search" in t),
    urls: ["https://docs.example.com/guide", "https://other.example.org/page"],
  },
] as const;

async function searchRun(
  c: (typeof CASES)[number],
  input: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<{ messages: Message[]; requests: RecordedRequest[] }> {
  const script = (_request: RecordedRequest, index: number): FakeTurn => {
    if (index === 0) return { toolCalls: [{ name: "WebSearch", input, id: "call_search" }], usage: TURN_USAGE };
    if (index === 1) return c.answer(String(input.query));
    return { text: "All done.", usage: TURN_USAGE };
  };
  server = await startProviderServer(script);
  const messages = await collect(
    summon("find the guide", {
      model: c.model,
      apiKey: "test-key",
      providerSettings: { baseURL: server.baseURL },
      allowedTools: ["WebSearch"],
      modelPricing: { [`${c.provider}:`]: PRICE },
      persistSession: false,
      sandbox: false,
      ...extra,
    }),
  );
  return { messages, requests: server.requests };
}

type SearchOutput = {
  content: string;
  isError?: boolean;
  metadata: {
    results: { title: string; url: string; snippet: string; date?: string; source: string }[];
    source: string;
    native: boolean;
  };
};
const toolResultOf = (messages: Message[]) =>
  (ofType(messages, "tool_result")[0] as unknown as { output: SearchOutput }).output;

describe.each(CASES)("native search: $provider", (c) => {
  it("asks the provider with its own search tool and maps the results to the one shape", async () => {
    const { messages, requests } = await searchRun(c, { query: "ubiquity sdk guide" });
    expect(requests).toHaveLength(3);
    // The turn offers WebSearch as a function tool; only the search request carries the provider's tool.
    expect(c.tool(requests[0]!.body)).toBeUndefined();
    expect(c.tool(requests[1]!.body)).toBeDefined();
    expect(JSON.stringify(requests[1]!.body)).toContain("ubiquity sdk guide");
    const result = toolResultOf(messages);
    expect(result.isError).toBeFalsy();
    expect(result.metadata).toMatchObject({ source: c.provider, native: true });
    expect(result.metadata.results.map((r) => r.url)).toEqual(c.urls);
    for (const r of result.metadata.results) {
      expect(Object.keys(r).sort()).toEqual(expect.arrayContaining(["source", "snippet", "title", "url"]));
      expect(r.source).toBe(c.provider);
    }
    expect(result.content).toContain("untrusted content from the web");
    expect(result.content).toContain("https://docs.example.com/guide");
    expect(result.content).toContain("The guide explains the SDK.");
  });

  it("charges the search call to the run: usage, modelUsage and totalCostUsd", async () => {
    const { messages } = await searchRun(c, { query: "ubiquity sdk guide" });
    const result = resultOf(messages);
    const input = TURN_USAGE.inputTokens * 2 + SEARCH_USAGE.inputTokens;
    const output = TURN_USAGE.outputTokens * 2 + SEARCH_USAGE.outputTokens;
    expect(result.usage).toMatchObject({ requests: 3, inputTokens: input, outputTokens: output });
    const label = Object.keys(result.modelUsage)[0]!;
    expect(label.startsWith(`${c.provider}:`)).toBe(true);
    expect(result.modelUsage[label]).toMatchObject({ requests: 3, inputTokens: input });
    expect(result.totalCostUsd).toBeCloseTo((input * PRICE.input + output * PRICE.output) / 1e6, 10);
  });

  it("adds the provider's per-search fee to totalCostUsd when webSearch.searchPriceUsd says what it is", async () => {
    const { messages } = await searchRun(c, { query: "ubiquity sdk guide" }, { webSearch: { searchPriceUsd: 0.01 } });
    const input = TURN_USAGE.inputTokens * 2 + SEARCH_USAGE.inputTokens;
    const output = TURN_USAGE.outputTokens * 2 + SEARCH_USAGE.outputTokens;
    expect(toolResultOf(messages).metadata).toMatchObject({ searches: 1 });
    expect(resultOf(messages).totalCostUsd).toBeCloseTo((input * PRICE.input + output * PRICE.output) / 1e6 + 0.01, 10);
  });

  it("applies blocked_domains to the results", async () => {
    const blocked = new URL(c.urls[1]).hostname;
    const { messages } = await searchRun(c, { query: "ubiquity sdk guide", blocked_domains: [blocked] });
    expect(toolResultOf(messages).metadata.results.map((r) => r.url)).toEqual([c.urls[0]]);
  });
});

it("passes allowed domains to Anthropic's and OpenAI's search tools, and keeps only their results", async () => {
  const anthropic = await searchRun(CASES[0], { query: "ubiquity sdk guide", allowed_domains: ["docs.example.com"] });
  expect(CASES[0].tool(anthropic.requests[1]!.body)).toMatchObject({ allowed_domains: ["docs.example.com"] });
  expect(toolResultOf(anthropic.messages).metadata.results.map((r) => r.url)).toEqual([
    "https://docs.example.com/guide",
  ]);
  await server?.close();
  const openai = await searchRun(CASES[1], { query: "ubiquity sdk guide", allowed_domains: ["docs.example.com"] });
  expect(CASES[1].tool(openai.requests[1]!.body)).toMatchObject({ filters: { allowed_domains: ["docs.example.com"] } });
  expect(toolResultOf(openai.messages).metadata.results.map((r) => r.url)).toEqual(["https://docs.example.com/guide"]);
});

it("an OpenAI Chat Completions model has no hosted search: WebSearch is not offered without a backend", async () => {
  server = await startProviderServer(["No search here."]);
  const messages = await collect(
    summon("hi", {
      model: "openai.chat:gpt-4o",
      apiKey: "k",
      providerSettings: { baseURL: server.baseURL },
      persistSession: false,
      sandbox: false,
    }),
  );
  const init = messages.find(
    (m) => m.type === "system" && (m as { subtype?: string }).subtype === "init",
  ) as unknown as { tools: string[] };
  expect(init.tools).toContain("WebFetch");
  expect(init.tools).not.toContain("WebSearch");
  const offered = ((server.requests[0]!.body as { tools?: { function?: { name: string } }[] }).tools ?? []).map(
    (t) => t.function?.name,
  );
  expect(offered).not.toContain("WebSearch");
});

it("a failed provider search is an error result naming the provider's code", async () => {
  const { messages } = await searchRun(
    { ...CASES[0], answer: () => anthropicSearchError("max_uses_exceeded") },
    { query: "ubiquity sdk guide" },
  );
  const out = toolResultOf(messages);
  expect(out.isError).toBe(true);
  expect(out.content).toContain("max_uses_exceeded");
});
