/**
 * The web tools are governed like every tool (issue 42, points 3 and 4): `WebFetch(domain:…)`
 * and `WebSearch` rules, plan mode allowing both while other modes ask unless a rule allows
 * them, an unparseable URL never covered by an allow rule; and a WebFetch `prompt` is a model
 * call charged to the run (its own model when `webFetch.model` names one).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { summon, type Message, type SummonOptions } from "ubiquity";
import { decidePermission, explainPermission } from "ubiquity/plugins/permissions";
import { WebFetchTool, WebSearchTool } from "../../plugins/web/index";
import { scriptedModel, startProviderServer } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { startWebServer, type WebServer } from "./web-server";

let web: WebServer;
beforeAll(async () => {
  web = await startWebServer();
});
afterAll(() => web.close());

describe("rules", () => {
  const fetchTool = new WebFetchTool();
  const searchTool = new WebSearchTool();
  const decideFetch = (
    url: string,
    rules: Parameters<typeof decidePermission>[0]["rules"] = {},
    mode: Parameters<typeof decidePermission>[0]["mode"] = "default",
  ) => decidePermission({ toolName: "WebFetch", input: { url }, tool: fetchTool, rules, mode });

  it("WebFetch(domain:…) allows exactly that host; other hosts still ask", async () => {
    const rules = { allow: ["WebFetch(domain:example.com)"] };
    expect((await decideFetch("https://example.com/docs", rules)).behavior).toBe("allow");
    expect((await decideFetch("https://EXAMPLE.com:443/x", rules)).behavior).toBe("allow");
    expect((await decideFetch("https://evil.com/", rules)).behavior).toBe("ask");
    expect((await decideFetch("https://example.com.evil.com/", rules)).behavior).toBe("ask");
    expect((await decideFetch("https://sub.example.com/", rules)).behavior).toBe("ask");
    expect(
      (await decideFetch("https://sub.example.com/", { allow: ["WebFetch(domain:*.example.com)"] })).behavior,
    ).toBe("allow");
  });

  it("an approval handler is offered the rule for the fetched domain", async () => {
    const decision = await explainPermission({
      toolName: "WebFetch",
      input: { url: "https://docs.rs/serde" },
      tool: fetchTool,
    });
    expect(decision.behavior).toBe("ask");
    expect(decision.suggestions).toEqual(["WebFetch(domain:docs.rs)"]);
  });

  it("an unparseable URL is never covered by an allow rule, even a wildcard one", async () => {
    for (const url of ["not a url", "http://", "example.com/no-scheme"]) {
      expect((await decideFetch(url, { allow: ["WebFetch(domain:*)"] })).behavior).not.toBe("allow");
    }
  });

  it("a deny rule on the domain wins over every mode", async () => {
    const rules = { deny: ["WebFetch(domain:evil.com)"], allow: ["WebFetch"] };
    for (const mode of ["default", "plan", "acceptEdits", "bypassPermissions"] as const)
      expect((await decideFetch("https://evil.com/a", rules, mode)).behavior).toBe("deny");
  });

  it("plan mode allows both tools; default asks; dontAsk denies; bypassPermissions allows", async () => {
    expect((await decideFetch("https://example.com/", {}, "plan")).behavior).toBe("allow");
    expect((await decideFetch("https://example.com/", {}, "default")).behavior).toBe("ask");
    expect((await decideFetch("https://example.com/", {}, "acceptEdits")).behavior).toBe("ask");
    expect((await decideFetch("https://example.com/", {}, "dontAsk")).behavior).toBe("deny");
    expect((await decideFetch("https://example.com/", {}, "bypassPermissions")).behavior).toBe("allow");
    const search = (mode: "plan" | "default", rules = {}) =>
      decidePermission({ toolName: "WebSearch", input: { query: "x y" }, tool: searchTool, rules, mode });
    expect((await search("plan")).behavior).toBe("allow");
    expect((await search("default")).behavior).toBe("ask");
    expect((await search("default", { allow: ["WebSearch"] })).behavior).toBe("allow");
    expect((await search("plan", { deny: ["WebSearch"] })).behavior).toBe("deny");
  });
});

/** A run whose model fetches `url` (with `prompt`), then ends. */
function fetchRun(url: string, options: SummonOptions, extra: Record<string, unknown> = {}): Promise<Message[]> {
  const model = scriptedModel([{ toolCalls: [{ toolName: "WebFetch", input: { url, ...extra } }] }, "done"]);
  return collect(summon("read it", { model, persistSession: false, sandbox: false, ...options }));
}
const fetchOutput = (messages: Message[]) =>
  (ofType(messages, "tool_result")[0] as unknown as { output: { content: string; isError?: boolean } }).output;

describe("in a run", () => {
  const open = { webFetch: { allowPrivateAddresses: true, cacheTtlMs: 0 } };

  it("without a rule or a handler the fetch is denied and the server never hears of it", async () => {
    const before = web.hits.get("/json") ?? 0;
    const messages = await fetchRun(`${web.url}/json`, open);
    expect(resultOf(messages).permissionDenials.map((d) => d.toolName)).toEqual(["WebFetch"]);
    expect(web.hits.get("/json") ?? 0).toBe(before);
  });

  it("an allow rule for the domain lets it run", async () => {
    const out = fetchOutput(
      await fetchRun(`${web.url}/json`, { ...open, allowedTools: ["WebFetch(domain:127.0.0.1)"] }),
    );
    expect(out.isError).toBeFalsy();
    expect(out.content).toContain('"ok":true');
  });

  it("plan mode runs it", async () => {
    const out = fetchOutput(await fetchRun(`${web.url}/json`, { ...open, permissionMode: "plan" }));
    expect(out.content).toContain('"ok":true');
  });

  it("a deny rule for the domain stops it even in bypassPermissions", async () => {
    const before = web.hits.get("/json") ?? 0;
    const messages = await fetchRun(`${web.url}/json`, {
      ...open,
      permissionMode: "bypassPermissions",
      disallowedTools: ["WebFetch(domain:127.0.0.1)"],
    });
    expect(resultOf(messages).permissionDenials.map((d) => d.toolName)).toEqual(["WebFetch"]);
    expect(web.hits.get("/json") ?? 0).toBe(before);
  });

  it("the private-address refusal holds even when a rule allows the domain", async () => {
    const out = fetchOutput(
      await fetchRun(`${web.url}/json`, { allowedTools: ["WebFetch(domain:127.0.0.1)"], webFetch: { cacheTtlMs: 0 } }),
    );
    expect(out.isError).toBe(true);
    expect(out.content).toContain("allowPrivateAddresses");
  });
});

describe("prompt", () => {
  it("answers from the page with a model call charged to the run", async () => {
    const model = scriptedModel([
      {
        toolCalls: [{ toolName: "WebFetch", input: { url: `${web.url}/page`, prompt: "What is the heading?" } }],
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      { text: "The heading is Welcome.", usage: { inputTokens: 400, outputTokens: 8 } },
      { text: "done", usage: { inputTokens: 120, outputTokens: 2 } },
    ]);
    const messages = await collect(
      summon("read it", {
        model,
        permissionMode: "bypassPermissions",
        webFetch: { allowPrivateAddresses: true, cacheTtlMs: 0 },
        modelPricing: { scripted: { input: 1, output: 2 } },
        persistSession: false,
        sandbox: false,
      }),
    );
    const out = fetchOutput(messages);
    expect(out.content).toContain("The heading is Welcome.");
    expect(out.content).toContain("untrusted content from the web");
    const asked = JSON.stringify(model.requests[1]!.prompt);
    expect(asked).toContain("# Welcome");
    expect(asked).toContain("What is the heading?");
    expect(asked).not.toContain("do-not-show");
    const result = resultOf(messages);
    expect(result.usage).toMatchObject({ requests: 3, inputTokens: 620, outputTokens: 20 });
    expect(result.totalCostUsd).toBeCloseTo((620 * 1 + 20 * 2) / 1e6, 12);
  });

  it("webFetch.model answers with another model, which appears in modelUsage and the cost", async () => {
    const server = await startProviderServer([
      { text: "Welcome, it says.", usage: { inputTokens: 300, outputTokens: 5 } },
    ]);
    try {
      const model = scriptedModel([
        {
          toolCalls: [{ toolName: "WebFetch", input: { url: `${web.url}/page`, prompt: "Heading?" } }],
          usage: { inputTokens: 100, outputTokens: 10 },
        },
        { text: "done", usage: { inputTokens: 100, outputTokens: 10 } },
      ]);
      const messages = await collect(
        summon("read it", {
          model,
          permissionMode: "bypassPermissions",
          apiKey: "k",
          providerSettings: { baseURL: server.baseURL },
          webFetch: { model: "openai:gpt-4o-mini", allowPrivateAddresses: true, cacheTtlMs: 0 },
          modelPricing: { scripted: { input: 1, output: 1 }, "openai:gpt-4o-mini": { input: 10, output: 10 } },
          persistSession: false,
          sandbox: false,
        }),
      );
      expect(fetchOutput(messages).content).toContain("Welcome, it says.");
      expect(JSON.stringify(server.requests[0]!.body)).toContain("Heading?");
      const result = resultOf(messages);
      expect(result.modelUsage["openai:gpt-4o-mini"]).toMatchObject({ requests: 1, inputTokens: 300, outputTokens: 5 });
      expect(result.modelUsage["scripted:scripted"]).toMatchObject({ requests: 2 });
      expect(result.totalCostUsd).toBeCloseTo((220 * 1 + 305 * 10) / 1e6, 12);
    } finally {
      await server.close();
    }
  });
});
