/**
 * A project's `.mcp.json` is read entry by entry, as Claude Code reads it: a bad entry or an
 * unset `${VAR}` fails only its own server (named in a warning and as `failed` in system/init),
 * an unknown key is reported and ignored, `headersHelper` runs and its headers reach the server,
 * and a stdio server gets the TLS and proxy variables — never a provider key.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withEnv } from "../helpers/env";
import { summon, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp from "ubiquity/plugins/mcp";
import settingsPlugin from "ubiquity/plugins/settings";
import { readMcpConfigEntries } from "../../plugins/mcp/api";
import { collect } from "../helpers/collect";

const FIXTURES = fileURLToPath(new URL("../fixtures/compat/mcp-json/", import.meta.url));
const PROBE = fileURLToPath(new URL("../security/fixtures/probe-server.mjs", import.meta.url));
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name, ".mcp.json"), "utf8")) as unknown;

const made: string[] = [];
const project = (mcpJson: unknown) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ubq-mcpjson-")));
  made.push(dir);
  writeFileSync(join(dir, ".mcp.json"), JSON.stringify(mcpJson));
  return dir;
};

// Not an MCP server: it records the headers that arrive and answers 401.
const seen: IncomingHttpHeaders[] = [];
const http = createServer((req, res) => {
  seen.push(req.headers);
  req.resume();
  res.writeHead(401).end("no");
});
let base = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

async function runIn(cwd: string, options: Options = {}) {
  const warnings: string[] = [];
  const messages = await collect(
    summon("go", {
      presets: [],
      plugins: [settingsPlugin(), mcp({ connectTimeoutMs: 15_000 })],
      model: scriptedModel(["done"]),
      settingSources: ["project"],
      cwd,
      logger: { debug() {}, info() {}, error() {}, warn: (...a: unknown[]) => warnings.push(a.join(" ")) },
      ...options,
    }),
  );
  const init = messages.find((m) => m.type === "system" && m.subtype === "init") as unknown as {
    extra: { mcpServers?: { name: string; status: string; error?: string }[] };
  };
  const result = messages.at(-1) as { isError: boolean; result: string };
  return { warnings, servers: init?.extra.mcpServers ?? [], result };
}

describe("readMcpConfigEntries on real plugin files", () => {
  it("the GitHub plugin's file: an unset token fails only that server, naming it and the variable", () => {
    const unset = readMcpConfigEntries(fixture("github"), { env: {} });
    expect(unset.servers).toEqual({});
    expect(unset.failed).toEqual([
      {
        name: "github",
        error: expect.stringContaining(
          "mcpServers.github.headers.Authorization: ${GITHUB_PERSONAL_ACCESS_TOKEN} is not set",
        ),
      },
    ]);
    const set = readMcpConfigEntries(fixture("github"), { env: { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_x" } });
    expect(set.servers.github).toMatchObject({
      type: "http",
      url: "https://api.githubcopilot.com/mcp/",
      headers: { Authorization: "Bearer ghp_x" },
    });
  });

  it("the Playwright plugin's file is a stdio server as it is", () => {
    expect(readMcpConfigEntries(fixture("playwright"), { env: {} })).toEqual({
      servers: { playwright: { command: "npx", args: ["@playwright/mcp@latest", "--image-responses=omit"] } },
      failed: [],
      warnings: [],
    });
  });

  it("unknown keys are reported and dropped; Claude Code's headersHelper and oauth are kept", () => {
    const read = readMcpConfigEntries(
      {
        mcpServers: {
          a: { command: "x", alwaysLoad: true, timeout: 5 },
          b: {
            type: "http",
            url: "https://example.test/mcp",
            headersHelper: "get-token",
            oauth: { clientId: "c", callbackPort: 8976 },
            alwaysLoad: true,
          },
        },
      },
      { env: {} },
    );
    expect(read.servers).toEqual({
      a: { command: "x" },
      b: {
        type: "http",
        url: "https://example.test/mcp",
        headersHelper: "get-token",
        oauth: { clientId: "c", callbackPort: 8976 },
      },
    });
    expect(read.warnings).toEqual([
      'mcpServers.a: the key "alwaysLoad" is not one ubiquity reads; it was ignored',
      'mcpServers.a: the key "timeout" is not one ubiquity reads; it was ignored',
      'mcpServers.b: the key "alwaysLoad" is not one ubiquity reads; it was ignored',
    ]);
  });
});

describe("a project's .mcp.json in a run", () => {
  it("a bad entry and an unset variable fail only their servers; the good one starts with TLS and proxy variables and no provider key", async () => {
    const report = join(realpathSync(tmpdir()), `ubq-mcpjson-probe-${process.pid}.json`);
    made.push(report);
    const dir = project({
      mcpServers: {
        probe: { command: process.execPath, args: [PROBE, report] },
        broken: { type: "sse" },
        tokenless: {
          type: "http",
          url: "https://example.test/mcp",
          headers: { Authorization: "Bearer ${UBQ_TEST_SURELY_UNSET_TOKEN}" },
        },
      },
    });
    const parentVars: Record<string, string> = {
      NODE_EXTRA_CA_CERTS: "/etc/ssl/certs/extra-test.pem",
      SSL_CERT_FILE: "/etc/ssl/certs/test.pem",
      SSL_CERT_DIR: "/etc/ssl/certs",
      HTTPS_PROXY: "http://proxy.test:3128",
      HTTP_PROXY: "http://proxy.test:3128",
      NO_PROXY: "localhost,127.0.0.1",
      https_proxy: "http://proxy.test:3128",
      http_proxy: "http://proxy.test:3128",
      no_proxy: "localhost",
      ANTHROPIC_API_KEY: "sk-ant-MCPJSON-secret",
      OPENAI_API_KEY: "sk-proj-MCPJSON-secret",
    };
    const run = await withEnv(parentVars, () => runIn(dir));
    expect(run.result.isError).toBe(false);
    expect(run.servers.find((s) => s.name === "probe")).toMatchObject({ status: "connected" });
    expect(run.servers.find((s) => s.name === "broken")).toMatchObject({
      status: "failed",
      error: expect.stringContaining("mcpServers.broken"),
    });
    expect(run.servers.find((s) => s.name === "tokenless")).toMatchObject({
      status: "failed",
      error: expect.stringContaining("UBQ_TEST_SURELY_UNSET_TOKEN"),
    });
    expect(run.warnings.join("\n")).toMatch(/MCP server "broken" was not started/);
    expect(run.warnings.join("\n")).toMatch(/MCP server "tokenless" was not started/);
    const env = (JSON.parse(readFileSync(report, "utf8")) as { env: Record<string, string> }).env;
    const { ANTHROPIC_API_KEY, OPENAI_API_KEY, ...passed } = parentVars;
    expect(env).toMatchObject(passed);
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain(ANTHROPIC_API_KEY);
    expect(JSON.stringify(env)).not.toContain(OPENAI_API_KEY);
  });

  it("headersHelper runs with the server's name and URL, and its headers win over the static ones", async () => {
    seen.length = 0;
    const helper = `printf '{"Authorization":"Bearer dyn-%s","X-Url":"%s"}' "$CLAUDE_CODE_MCP_SERVER_NAME" "$CLAUDE_CODE_MCP_SERVER_URL"`;
    const dir = project({
      mcpServers: {
        remote: {
          type: "http",
          url: `${base}/mcp`,
          headers: { Authorization: "Bearer static", "X-Static": "kept" },
          headersHelper: helper,
        },
      },
    });
    const run = await runIn(dir);
    expect(run.result.isError).toBe(false);
    expect(seen[0]).toMatchObject({ authorization: "Bearer dyn-remote", "x-url": `${base}/mcp`, "x-static": "kept" });
  });

  it("a failing headersHelper fails its server, naming the helper", async () => {
    seen.length = 0;
    const dir = project({
      mcpServers: { remote: { type: "http", url: `${base}/mcp`, headersHelper: "echo not json" } },
    });
    const run = await runIn(dir);
    expect(run.result.isError).toBe(false);
    expect(seen).toHaveLength(0);
    expect(run.servers).toEqual([
      {
        name: "remote",
        status: "failed",
        error: expect.stringContaining('headersHelper "echo not json" did not print a JSON object'),
      },
    ]);
  });
});
