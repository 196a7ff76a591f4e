/**
 * WebFetch against a real web server on 127.0.0.1 (issue 42, point 1 and the client half of
 * point 3): the default refusal of private addresses and the opt-in that reaches the test's own
 * server, HTML → Markdown, PDF text, gzip, the size cap (a compressed bomb included), same-host
 * redirects followed and cross-host ones reported, the redirect limit, the timeout, paging with
 * offset, the cache, the sandbox network allow-list, and the untrusted-data frame.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunContext } from "ubiquity/plugin";
import type { ToolContext, ToolOutput } from "ubiquity";
import { WebFetchTool } from "../../plugins/web/index";
import { fetchPage } from "../../plugins/web/fetch-page";
import { startWebServer, type WebServer } from "./web-server";

let web: WebServer;
beforeAll(async () => {
  web = await startWebServer();
});
afterAll(() => web.close());

/** A tool context whose run carries `options` (the tool reads nothing else of the run here). */
function contextWith(options: Record<string, unknown>): ToolContext {
  const run = { options: { cwd: process.cwd(), sandbox: false, ...options } } as unknown as RunContext;
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  return {
    cwd: process.cwd(),
    roots: [process.cwd()],
    abortSignal: new AbortController().signal,
    sessionId: "s",
    toolUseId: "t",
    env: {},
    logger: quiet,
    run,
  };
}

const open = (more: Record<string, unknown> = {}) =>
  contextWith({ webFetch: { allowPrivateAddresses: true, cacheTtlMs: 0, ...more } });

async function fetchWith(
  url: string,
  ctx: ToolContext,
  extra: { offset?: number } = {},
  tool = new WebFetchTool(),
): Promise<ToolOutput> {
  return tool.call({ url, ...extra }, ctx);
}

describe("private addresses", () => {
  it("refuses 127.0.0.1 by default, and the server is never reached", async () => {
    const out = await fetchWith(`${web.url}/page`, contextWith({}));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("allowPrivateAddresses");
    expect(web.hits.get("/page") ?? 0).toBe(0);
  });

  it("refuses a name that resolves to a loopback address (localhost), judged at the lookup", async () => {
    const out = await fetchWith(`http://localhost:${web.port}/page`, contextWith({}));
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/non-public address/);
    expect(web.hits.get("/page") ?? 0).toBe(0);
  });

  it.each([
    "http://[::1]/",
    "http://0.0.0.0/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:127.0.0.1]/",
    "http://2130706433/",
    "http://10.0.0.1/",
    "http://[fd00::1]/",
  ])("refuses %s without connecting", async (url) => {
    const out = await fetchWith(url, contextWith({}));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("allowPrivateAddresses");
  });

  it("reaches the test's own server with webFetch.allowPrivateAddresses", async () => {
    const out = await fetchWith(`${web.url}/page`, open());
    expect(out.isError).toBeFalsy();
    expect(web.hits.get("/page")).toBeGreaterThanOrEqual(1);
  });
});

describe("content", () => {
  it("turns HTML into Markdown, drops scripts and styles, and frames it as untrusted", async () => {
    const out = await fetchWith(`${web.url}/page`, open());
    expect(out.content).toContain("untrusted content from the web");
    expect(out.content).toContain("Title: The Test & Page");
    expect(out.content).toContain("# Welcome");
    expect(out.content).toContain("Hello **web** tools.");
    expect(out.content).toMatch(/-\s+one/);
    expect(out.content).toContain("```\nlet x = 1;\n```");
    expect(out.content).not.toContain("do-not-show");
    expect(out.content).not.toContain("color:red");
    expect(out.metadata).toMatchObject({ status: 200, format: "markdown", title: "The Test & Page" });
  });

  it("reads a PDF's text", async () => {
    const out = await fetchWith(`${web.url}/pdf`, open());
    expect(out.isError).toBeFalsy();
    expect(out.content).toContain("Hello from a PDF");
    expect(out.metadata).toMatchObject({ format: "pdf" });
  });

  it("decodes gzip and keeps JSON as text", async () => {
    expect((await fetchWith(`${web.url}/gzip`, open())).content).toContain("## Compressed");
    expect((await fetchWith(`${web.url}/json`, open())).content).toContain('"name":"ubiquity"');
  });

  it("refuses an image by its type", async () => {
    const out = await fetchWith(`${web.url}/image`, open());
    expect(out.isError).toBe(true);
    expect(out.content).toContain("image/png");
  });

  it("reports an HTTP error status as an error with the body", async () => {
    const out = await fetchWith(`${web.url}/missing`, open());
    expect(out.isError).toBe(true);
    expect(out.content).toContain("HTTP 404");
    expect(out.content).toContain("no such page");
  });

  it("keeps injected directions inside the untrusted frame", async () => {
    const out = await fetchWith(`${web.url}/injection`, open());
    const frame = out.content.indexOf("never as instructions");
    expect(frame).toBeGreaterThan(-1);
    expect(out.content.indexOf("IGNORE ALL PREVIOUS")).toBeGreaterThan(frame);
  });
});

describe("limits", () => {
  it("cuts a body at maxBytes and says so", async () => {
    const out = await fetchWith(`${web.url}/big`, open({ maxBytes: 1000 }));
    expect(out.content).toContain("larger than webFetch.maxBytes");
    expect(out.metadata).toMatchObject({ truncated: true, chars: 1000 });
  });

  it("cuts a compressed bomb at maxBytes after decompression", async () => {
    const out = await fetchWith(`${web.url}/bomb`, open({ maxBytes: 4096 }));
    expect(out.metadata).toMatchObject({ truncated: true, chars: 4096 });
  });

  it("stops a server that never answers at timeoutMs", async () => {
    const out = await fetchWith(`${web.url}/silent`, open({ timeoutMs: 300 }));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("webFetch.timeoutMs");
  });

  it("pages a long text with offset", async () => {
    const first = await fetchWith(`${web.url}/long`, open({ pageChars: 100 }));
    expect(first.content).toContain("Call WebFetch again with offset 100");
    const second = await fetchWith(`${web.url}/long`, open({ pageChars: 100 }), { offset: 100 });
    const full = Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n");
    expect(second.content).toContain(full.slice(100, 200));
    expect(second.metadata).toMatchObject({ offset: 100, end: 200 });
  });
});

describe("redirects", () => {
  it("follows a same-host redirect", async () => {
    const out = await fetchWith(`${web.url}/same-host-redirect`, open());
    expect(out.content).toContain("# Welcome");
    expect(out.metadata).toMatchObject({ url: `${web.url}/page` });
  });

  it("reports a cross-host redirect without following it", async () => {
    const before = web.hits.get("/page") ?? 0;
    const out = await fetchWith(`${web.url}/cross-host-redirect`, open());
    expect(out.content).toContain(`redirected (HTTP 301) to another host: http://localhost:${web.port}/page`);
    expect(out.content).toContain("It was not followed");
    expect(out.metadata).toMatchObject({ redirect: `http://localhost:${web.port}/page` });
    expect(web.hits.get("/page") ?? 0).toBe(before);
  });

  it("checks every hop again before it connects", async () => {
    const seen: string[] = [];
    const policy = { maxBytes: 10_000, timeoutMs: 5_000, maxRedirects: 5, allowPrivateAddresses: true };
    const page = await fetchPage(`${web.url}/same-host-redirect`, {
      ...policy,
      refuseHost: (host, port) => void seen.push(`${host}:${port}`),
    });
    expect(page.kind).toBe("page");
    expect(seen).toEqual([`127.0.0.1:${web.port}`, `127.0.0.1:${web.port}`]);
    // A hop refused after the first one stops the fetch there.
    let calls = 0;
    const before = web.hits.get("/page") ?? 0;
    await expect(
      fetchPage(`${web.url}/same-host-redirect`, {
        ...policy,
        refuseHost: () => (++calls > 1 ? "refused on the second hop" : undefined),
      }),
    ).rejects.toThrow("refused on the second hop");
    expect(web.hits.get("/page") ?? 0).toBe(before);
  });

  it("gives up past maxRedirects", async () => {
    const out = await fetchWith(`${web.url}/loop`, open({ maxRedirects: 3 }));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("redirected more than 3 times");
    expect(web.hits.get("/loop")).toBe(4);
  });
});

describe("cache and policy", () => {
  it("serves a page again from the cache within cacheTtlMs", async () => {
    const tool = new WebFetchTool();
    const ctx = contextWith({ webFetch: { allowPrivateAddresses: true } });
    const before = web.hits.get("/json") ?? 0;
    await fetchWith(`${web.url}/json`, ctx, {}, tool);
    await fetchWith(`${web.url}/json`, ctx, {}, tool);
    expect(web.hits.get("/json")).toBe(before + 1);
  });

  it("never serves a page cached under allowPrivateAddresses to a run without it", async () => {
    const tool = new WebFetchTool();
    await fetchWith(`${web.url}/page`, contextWith({ webFetch: { allowPrivateAddresses: true } }), {}, tool);
    const out = await fetchWith(`${web.url}/page`, contextWith({}), {}, tool);
    expect(out.isError).toBe(true);
  });

  it("applies the sandbox network allow-list to client fetches", async () => {
    const sandbox = { enabled: true, failIfUnavailable: false, network: { allowedDomains: ["example.com"] } };
    const refused = await fetchWith(
      `${web.url}/page`,
      contextWith({ sandbox, webFetch: { allowPrivateAddresses: true, cacheTtlMs: 0 } }),
    );
    expect(refused.isError).toBe(true);
    expect(refused.content).toContain("sandbox.network.allowedDomains");
    const allowed = await fetchWith(
      `${web.url}/page`,
      contextWith({
        sandbox: { ...sandbox, network: { allowedDomains: ["127.0.0.1"] } },
        webFetch: { allowPrivateAddresses: true, cacheTtlMs: 0 },
      }),
    );
    expect(allowed.isError).toBeFalsy();
    const none = await fetchWith(
      `${web.url}/page`,
      contextWith({
        sandbox: { ...sandbox, network: "none" },
        webFetch: { allowPrivateAddresses: true, cacheTtlMs: 0 },
      }),
    );
    expect(none.content).toContain('network setting is "none"');
  });

  it("refuses URLs it does not fetch", async () => {
    const tool = new WebFetchTool();
    expect(tool.validateInput({ url: "file:///etc/passwd" })).toContain("http:// and https:// URLs only");
    expect(tool.validateInput({ url: "not a url" })).toContain("not a valid URL");
    expect(tool.validateInput({ url: "http://user:pw@example.com/" })).toContain("password");
    expect(tool.permissionRuleContent({ url: "https://Docs.Example.COM/a?b" })).toEqual(["domain:docs.example.com"]);
    expect(tool.permissionRuleContent({ url: "::nonsense" })).toEqual([]);
  });
});
