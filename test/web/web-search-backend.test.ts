/**
 * WebSearch without native search (issue 42, point 2): a model whose provider hosts no search
 * uses the configured backend — a SearXNG instance and the Brave Search API, each a real HTTP
 * server on 127.0.0.1 speaking its JSON format — or a backend given to the plugin factory; the
 * results have the same shape as native ones, the domain filters apply, and with no backend the
 * tool is not offered at all.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { summon, type Message, type SummonOptions } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import web, { type SearchBackend } from "ubiquity/plugins/web";
import defaultPreset from "ubiquity/presets/default";
import { collect, ofType } from "../helpers/collect";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
});

/** A JSON server recording each request. */
async function jsonServer(
  body: unknown,
  seen: IncomingMessage[] = [],
): Promise<{ url: string; seen: IncomingMessage[] }> {
  const server = createServer((req, res) => {
    seen.push(req);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const SEARXNG = {
  query: "ubiquity",
  results: [
    {
      title: "Ubiquity docs",
      url: "https://docs.example.com/ubiquity",
      content: "The SDK's guide.",
      publishedDate: "2026-02-01T00:00:00",
    },
    { title: "A forum thread", url: "https://forum.example.net/t/1", content: "Someone asks.", publishedDate: null },
  ],
};

const BRAVE = {
  web: {
    results: [
      {
        title: "Ubiquity docs",
        url: "https://docs.example.com/ubiquity",
        description: "The <strong>SDK</strong>'s guide.",
        page_age: "2026-02-01T00:00:00",
      },
      { title: "News", url: "https://news.example.org/a", description: "A story.", age: "2 days ago" },
    ],
  },
};

type SearchOutput = {
  content: string;
  isError?: boolean;
  metadata: { source: string; native: boolean; results: Record<string, unknown>[] };
};
const searchOutput = (messages: Message[]) =>
  (ofType(messages, "tool_result")[0] as unknown as { output: SearchOutput }).output;

function searchRun(
  input: Record<string, unknown>,
  options: SummonOptions,
  model = scriptedModel([{ toolCalls: [{ toolName: "WebSearch", input }] }, "done"]),
): Promise<Message[]> {
  return collect(
    summon("search", { model, allowedTools: ["WebSearch"], persistSession: false, sandbox: false, ...options }),
  );
}

describe("SearXNG", () => {
  it("searches the instance's JSON API and maps its results", async () => {
    const searx = await jsonServer(SEARXNG);
    const out = searchOutput(
      await searchRun({ query: "ubiquity sdk" }, { webSearch: { backend: { type: "searxng", url: searx.url } } }),
    );
    expect(searx.seen[0]!.url).toMatch(/^\/search\?q=ubiquity\+sdk&format=json$/);
    expect(out.metadata).toMatchObject({ source: "searxng", native: false });
    expect(out.metadata.results).toEqual([
      {
        title: "Ubiquity docs",
        url: "https://docs.example.com/ubiquity",
        snippet: "The SDK's guide.",
        date: "2026-02-01T00:00:00",
        source: "searxng",
      },
      { title: "A forum thread", url: "https://forum.example.net/t/1", snippet: "Someone asks.", source: "searxng" },
    ]);
    expect(out.content).toContain("untrusted content from the web");
    expect(out.content).toContain(
      "1. Ubiquity docs\n   https://docs.example.com/ubiquity\n   Date: 2026-02-01T00:00:00\n   The SDK's guide.",
    );
  });

  it("keeps only allowed_domains (subdomains included), and narrows the query with site: for one domain", async () => {
    const searx = await jsonServer(SEARXNG);
    const out = searchOutput(
      await searchRun(
        { query: "ubiquity", allowed_domains: ["example.com"] },
        { webSearch: { backend: { type: "searxng", url: searx.url } } },
      ),
    );
    expect(decodeURIComponent(searx.seen[0]!.url!)).toContain("site:example.com");
    expect(out.metadata.results.map((r) => r.url)).toEqual(["https://docs.example.com/ubiquity"]);
  });

  it("drops blocked_domains, and refuses both lists at once", async () => {
    const searx = await jsonServer(SEARXNG);
    const options = { webSearch: { backend: { type: "searxng" as const, url: searx.url } } };
    expect(
      searchOutput(
        await searchRun({ query: "ubiquity", blocked_domains: ["forum.example.net"] }, options),
      ).metadata.results.map((r) => r.url),
    ).toEqual(["https://docs.example.com/ubiquity"]);
    const both = ofType(
      await searchRun({ query: "ubiquity", allowed_domains: ["a.com"], blocked_domains: ["b.com"] }, options),
      "tool_result",
    )[0] as unknown as { output: { isError: boolean; content: string } };
    expect(both.output.isError).toBe(true);
    expect(both.output.content).toContain("not both");
  });

  it("caps the results at webSearch.maxResults", async () => {
    const searx = await jsonServer(SEARXNG);
    const out = searchOutput(
      await searchRun(
        { query: "ubiquity" },
        { webSearch: { maxResults: 1, backend: { type: "searxng", url: searx.url } } },
      ),
    );
    expect(out.metadata.results).toHaveLength(1);
  });
});

describe("Brave Search API", () => {
  it("sends the key from the environment and maps the results to the same shape", async () => {
    const brave = await jsonServer(BRAVE);
    const out = searchOutput(
      await searchRun(
        { query: "ubiquity" },
        {
          env: { BRAVE_KEY_FOR_TEST: "brave-secret" },
          webSearch: {
            backend: { type: "brave", apiKeyEnv: "BRAVE_KEY_FOR_TEST", url: `${brave.url}/res/v1/web/search` },
          },
        },
      ),
    );
    expect(brave.seen[0]!.headers["x-subscription-token"]).toBe("brave-secret");
    expect(out.metadata.results).toEqual([
      {
        title: "Ubiquity docs",
        url: "https://docs.example.com/ubiquity",
        snippet: "The SDK's guide.",
        date: "2026-02-01T00:00:00",
        source: "brave",
      },
      { title: "News", url: "https://news.example.org/a", snippet: "A story.", date: "2 days ago", source: "brave" },
    ]);
    expect(out.content).not.toContain("brave-secret");
  });

  it("without the key, says which variable to set", async () => {
    const out = searchOutput(
      await searchRun(
        { query: "ubiquity" },
        { webSearch: { backend: { type: "brave", apiKeyEnv: "UBIQUITY_TEST_NO_SUCH_KEY" } } },
      ),
    );
    expect(out.isError).toBe(true);
    expect(out.content).toContain("UBIQUITY_TEST_NO_SUCH_KEY is not set");
  });
});

describe("availability", () => {
  it("is not offered when the model has no native search and no backend is configured", async () => {
    const messages = await collect(
      summon("hi", { model: scriptedModel(["hi"]), persistSession: false, sandbox: false }),
    );
    const init = messages.find((m) => m.type === "system") as unknown as { tools: string[] };
    expect(init.tools).toContain("WebFetch");
    expect(init.tools).not.toContain("WebSearch");
  });

  it("a backend given to the plugin factory serves the search", async () => {
    const backend: SearchBackend = {
      name: "acme",
      search: async (request) => [
        { title: `About ${request.query}`, url: "https://acme.example/1", snippet: "s", source: "acme" },
      ],
    };
    const messages = await searchRun({ query: "widgets" }, { presets: [defaultPreset], plugins: [web({ backend })] });
    expect(searchOutput(messages).metadata.results).toEqual([
      { title: "About widgets", url: "https://acme.example/1", snippet: "s", source: "acme" },
    ]);
  });

  it("webSearch.native false uses the backend even for a model with native search", async () => {
    const searx = await jsonServer(SEARXNG);
    const model = scriptedModel([{ toolCalls: [{ toolName: "WebSearch", input: { query: "ubiquity" } }] }, "done"], {
      provider: "anthropic.messages",
      modelId: "claude-sonnet-4-5",
    });
    const out = searchOutput(
      await searchRun({}, { webSearch: { native: false, backend: { type: "searxng", url: searx.url } } }, model),
    );
    expect(out.metadata.source).toBe("searxng");
    expect(model.requests).toHaveLength(2);
  });
});
