/**
 * OAuth 2.1 against a real authorization server and a protected MCP server on 127.0.0.1
 * (test/helpers/oauth-server): `ubiquity mcp login` (discovery, dynamic registration or a client
 * ID metadata document, PKCE, the loopback redirect — the browser step played by fetch), tokens
 * stored 0600 in the user's folder, runs that use and refresh them, and tokens that never reach
 * a message, a log line, a transcript or a stdio server's environment.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  exchangeAuthorization,
  registerClient,
  startAuthorization,
  discoverAuthorizationServerMetadata,
} from "@modelcontextprotocol/client";
import { summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp from "ubiquity/plugins/mcp";
import sessions from "ubiquity/plugins/sessions";
import { main } from "../../runner/cli";
import { collect, ofType } from "../helpers/collect";
import { tempHome } from "../helpers/temp-home";
import { approveInBrowser, startOAuthServers, type OAuthTestServers } from "../helpers/oauth-server";
import { mcpAuthFile } from "../../plugins/mcp/token-store";
import { runProvider } from "../../plugins/mcp/oauth";
import { auth } from "@modelcontextprotocol/client";
import { binPath, requireDist } from "../helpers/project";

const ENV_SERVER = fileURLToPath(new URL("../security/fixtures/env-server.mjs", import.meta.url));
const home = tempHome();
let servers: OAuthTestServers;
afterEach(() => servers?.close());

/** Every file under `dir` (recursively). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** `ubiquity mcp <args>` in process, with the servers of `mcpServers`; `onUrl` plays the browser. */
async function cli(
  args: string[],
  mcpServers: Record<string, unknown>,
  onUrl: (url: string) => Promise<unknown> = approveInBrowser,
) {
  const file = join(home(), "servers.json");
  writeFileSync(file, JSON.stringify({ mcpServers }));
  let stdout = "";
  let stderr = "";
  const opened: Promise<unknown>[] = [];
  const code = await main(["mcp", ...args, "--config", file], {
    stdout: (t) => {
      stdout += t;
      const url = /^ {2}(http\S+)$/m.exec(t)?.[1];
      if (url) opened.push(onUrl(url));
    },
    stderr: (t) => void (stderr += t),
  });
  await Promise.all(opened);
  return { code, stdout, stderr };
}

const record = (url: string) =>
  JSON.parse(readFileSync(mcpAuthFile("remote", url), "utf8")) as {
    tokens: { access_token: string; refresh_token: string };
    expiresAt: number;
    client: { client_id: string };
  };

/** A run whose scripted model calls `tools` in turn, with the remote server (and the env-reporting stdio server). */
async function runCalling(tools: string[], extra: Record<string, unknown> = {}) {
  const logs: string[] = [];
  const log = (...a: unknown[]) => void logs.push(a.map(String).join(" "));
  const model = scriptedModel([
    ...tools.map((toolName, i) => ({ toolCalls: [{ toolName, input: {}, id: `t${i}` }] })),
    "done",
  ]);
  const messages = await collect(
    summon("go", {
      presets: [],
      plugins: [mcp({ connectTimeoutMs: 10_000 }), sessions()],
      model,
      cwd: home(),
      logger: { debug: log, info: log, warn: log, error: log },
      mcpServers: {
        remote: { type: "http", url: servers.mcpUrl },
        envsrv: { command: process.execPath, args: [ENV_SERVER] },
        ...extra,
      },
    } as never),
  );
  return { messages, logs };
}

const initOf = (messages: Message[]) =>
  messages.find((m) => m.type === "system" && m.subtype === "init") as unknown as {
    extra: { mcpServers: { name: string; status: string; error?: string }[] };
  };
const outputs = (messages: Message[]) =>
  ofType(messages, "tool_result").map((r) => r.output as { content: string; isError: boolean });

describe("ubiquity mcp login", () => {
  beforeEach(async () => {
    servers = await startOAuthServers();
  });

  it("discovers the authorization server, registers dynamically, runs PKCE through the loopback redirect and stores the tokens 0600", async () => {
    const { code, stdout, stderr } = await cli(["login", "remote"], { remote: { type: "http", url: servers.mcpUrl } });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain('Open this URL in a browser to authorize Ubiquity with MCP server "remote"');
    expect(stdout).toMatch(
      /Logged in to MCP server "remote" \(scope: mcp:tools\); the tokens are in .*mcp-auth.*\(readable by you only\)/,
    );
    // Protected-resource metadata, then authorization-server metadata, then registration, then the token.
    const paths = servers.seen.map((s) => `${s.server} ${s.method} ${s.path}`);
    expect(paths).toContain("rs GET /.well-known/oauth-protected-resource/mcp");
    expect(paths).toContain("as GET /.well-known/oauth-authorization-server");
    expect(paths).toContain("as POST /register");
    expect(servers.seen.filter((s) => s.grant === "authorization_code")).toHaveLength(1);
    expect(servers.registered.size).toBe(1);
    const file = mcpAuthFile("remote", servers.mcpUrl);
    expect(file.startsWith(join(home(), ".ubiquity", "mcp-auth"))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home(), ".ubiquity", "mcp-auth")).mode & 0o777).toBe(0o700);
    const saved = record(servers.mcpUrl);
    expect(servers.issued).toContain(saved.tokens.access_token);
    expect(saved.client.client_id).toBe([...servers.registered.keys()][0]);
    // The tokens themselves are never printed.
    for (const t of servers.issued) expect(stdout).not.toContain(t);
  });

  it("works through the real bin: a process that prints the URL and waits on its loopback port", async () => {
    requireDist();
    const file = join(home(), "servers.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { remote: { type: "http", url: servers.mcpUrl } } }));
    const child = spawn(process.execPath, [binPath, "mcp", "login", "remote", "--config", file], {
      env: { ...process.env, HOME: home(), NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let opened: Promise<unknown> | undefined;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /^ {2}(http\S+)$/m.exec(stdout)?.[1];
      if (url && !opened) opened = approveInBrowser(url);
    });
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    await opened;
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/Waiting for the redirect to http:\/\/127\.0\.0\.1:\d+\/callback/);
    expect(statSync(mcpAuthFile("remote", servers.mcpUrl, home())).mode & 0o777).toBe(0o600);
  });

  it("uses a client ID metadata document where the server supports them (no registration)", async () => {
    await servers.close();
    servers = await startOAuthServers({ cimd: true, dcr: false });
    const clientMetadataUrl = "https://ubiquity.example/oauth/client.json";
    const { code } = await cli(["login", "remote"], {
      remote: { type: "http", url: servers.mcpUrl, oauth: { clientMetadataUrl } },
    });
    expect(code).toBe(0);
    expect(servers.seen.some((s) => s.path === "/register")).toBe(false);
    expect(record(servers.mcpUrl).client.client_id).toBe(clientMetadataUrl);
    const { messages } = await runCalling(["mcp__remote__whoami"], {
      remote: { type: "http", url: servers.mcpUrl, oauth: { clientMetadataUrl } },
    });
    expect(outputs(messages)[0]).toMatchObject({ content: `hello ${clientMetadataUrl}`, isError: false });
  });

  it("refuses a redirect whose state is not the one it sent", async () => {
    const forged = async (url: string) => {
      const res = await fetch(url, { redirect: "manual" });
      const back = new URL(res.headers.get("location")!);
      back.searchParams.set("state", "forged");
      return fetch(back);
    };
    const { code, stderr } = await cli(["login", "remote"], { remote: { type: "http", url: servers.mcpUrl } }, forged);
    expect(code).toBe(1);
    expect(stderr).toContain("the redirect's state does not match the one sent; the login was refused");
    expect(servers.seen.some((s) => s.grant === "authorization_code")).toBe(false);
  });

  it("names the servers it knows when the name is wrong; logout deletes the tokens", async () => {
    const wrong = await cli(["login", "nope"], { remote: { type: "http", url: servers.mcpUrl } });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('no MCP server "nope" in the config; the remote servers configured are: remote');
    expect((await cli(["login", "remote"], { remote: { type: "http", url: servers.mcpUrl } })).code).toBe(0);
    const out = await cli(["logout", "remote"], { remote: { type: "http", url: servers.mcpUrl } });
    expect(out.stdout).toBe('Logged out of MCP server "remote": its tokens are deleted.\n');
    expect(() => statSync(mcpAuthFile("remote", servers.mcpUrl))).toThrow();
  });
});

describe("a run against an OAuth-protected server", () => {
  beforeEach(async () => {
    servers = await startOAuthServers();
  });

  it("without a login fails that server naming `ubiquity mcp login`, and registers nothing", async () => {
    const { messages } = await runCalling([]);
    const remote = initOf(messages).extra.mcpServers.find((s) => s.name === "remote");
    expect(remote).toEqual({
      name: "remote",
      status: "failed",
      error: "failed to start: requires OAuth authorization: run `ubiquity mcp login remote`, then start the run again",
    });
    expect(servers.registered.size).toBe(0);
    expect(servers.seen.some((s) => s.path === "/authorize" || s.path === "/token")).toBe(false);
  });

  it("sends the token; it reaches no message, log line, transcript or stdio server environment", async () => {
    expect((await cli(["login", "remote"], { remote: { type: "http", url: servers.mcpUrl } })).code).toBe(0);
    const { messages, logs } = await runCalling(["mcp__remote__whoami", "mcp__envsrv__env"]);
    const [whoami, env] = outputs(messages);
    expect(whoami).toMatchObject({ content: `hello ${[...servers.registered.keys()][0]}`, isError: false });
    expect(env!.isError).toBe(false);
    expect(JSON.parse(env!.content)).toHaveProperty("PATH"); // the stdio server really reported its environment
    const transcripts = filesUnder(home()).filter((f) => !f.includes("mcp-auth"));
    expect(transcripts.some((f) => f.endsWith(".jsonl"))).toBe(true);
    const everywhere = [
      JSON.stringify(messages),
      logs.join("\n"),
      env!.content,
      ...transcripts.map((f) => readFileSync(f, "utf8")),
    ].join("\n");
    expect(servers.issued.length).toBeGreaterThan(0);
    for (const t of servers.issued) expect(everywhere).not.toContain(t);
  });

  it("refreshes an access token the server stopped accepting (401), then retries the call", async () => {
    expect((await cli(["login", "remote"], { remote: { type: "http", url: servers.mcpUrl } })).code).toBe(0);
    const before = record(servers.mcpUrl).tokens;
    servers.expireAccessTokens();
    servers.seen.length = 0;
    const { messages } = await runCalling(["mcp__remote__whoami"]);
    expect(outputs(messages)[0]!.isError).toBe(false);
    expect(servers.seen.some((s) => s.server === "rs" && s.status === 401)).toBe(true);
    expect(servers.seen.filter((s) => s.grant === "refresh_token")).toHaveLength(1);
    const after = record(servers.mcpUrl).tokens;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token); // rotated, and the new one kept
    expect(statSync(mcpAuthFile("remote", servers.mcpUrl)).mode & 0o777).toBe(0o600);
  });

  it("refreshes a token past its stored expiry before connecting (no 401 first)", async () => {
    expect((await cli(["login", "remote"], { remote: { type: "http", url: servers.mcpUrl } })).code).toBe(0);
    const file = mcpAuthFile("remote", servers.mcpUrl);
    writeFileSync(file, JSON.stringify({ ...record(servers.mcpUrl), expiresAt: 0 }));
    servers.expireAccessTokens();
    servers.seen.length = 0;
    const { messages } = await runCalling(["mcp__remote__whoami"]);
    expect(outputs(messages)[0]!.isError).toBe(false);
    expect(servers.seen.filter((s) => s.grant === "refresh_token")).toHaveLength(1);
    expect(servers.seen.some((s) => s.status === 401)).toBe(false);
    expect(record(servers.mcpUrl).expiresAt).toBeGreaterThan(Date.now());
  });

  it("a run whose refresh token another run already rotated picks up that run's tokens instead of dropping them", async () => {
    expect((await cli(["login", "remote"], { remote: { type: "http", url: servers.mcpUrl } })).code).toBe(0);
    const config = { type: "http" as const, url: servers.mcpUrl };
    const stale = runProvider("remote", config, undefined)!;
    const old = (await stale.tokens())!; // this run read the tokens, then another run refreshed them
    servers.expireAccessTokens();
    expect(outputs((await runCalling(["mcp__remote__whoami"])).messages)[0]!.isError).toBe(false);
    const rotated = record(servers.mcpUrl).tokens;
    expect(rotated.refresh_token).not.toBe(old.refresh_token);
    // The stale run's refresh is refused (its refresh token was rotated away): it must not delete the newer tokens.
    await expect(auth(stale, { serverUrl: servers.mcpUrl })).resolves.toBe("AUTHORIZED");
    const now = record(servers.mcpUrl).tokens;
    expect(now.access_token).toBeDefined();
    expect(now.access_token).not.toBe(old.access_token);
    expect(servers.seen.filter((r) => r.grant === "refresh_token").length).toBe(3); // the other run's, the refused one, the good one
  });

  it("a refused refresh fails the server naming the login again", async () => {
    expect((await cli(["login", "remote"], { remote: { type: "http", url: servers.mcpUrl } })).code).toBe(0);
    servers.expireAccessTokens();
    servers.revokeRefreshTokens();
    const { messages } = await runCalling([]);
    const remote = initOf(messages).extra.mcpServers.find((s) => s.name === "remote");
    expect(remote?.status).toBe("failed");
    expect(remote?.error).toContain("requires OAuth authorization: run `ubiquity mcp login remote`");
  });

  it("leaves a server with its own Authorization header to that header (no OAuth)", async () => {
    const { messages } = await runCalling([], {
      remote: { type: "http", url: servers.mcpUrl, headers: { Authorization: "Bearer static-key" } },
    });
    const remote = initOf(messages).extra.mcpServers.find((s) => s.name === "remote");
    expect(remote?.status).toBe("failed");
    expect(remote?.error).not.toContain("ubiquity mcp login");
    expect(servers.seen.some((s) => s.server === "as")).toBe(false);
  });
});

describe("the test authorization server itself", () => {
  beforeEach(async () => {
    servers = await startOAuthServers();
  });

  it("refuses a wrong PKCE verifier and accepts the right one", async () => {
    const metadata = await discoverAuthorizationServerMetadata(servers.issuer);
    const redirectUrl = "http://127.0.0.1:9/callback";
    const client = await registerClient(servers.issuer, {
      metadata,
      clientMetadata: { redirect_uris: [redirectUrl], client_name: "t", token_endpoint_auth_method: "none" },
    });
    const codeFor = async () => {
      const { authorizationUrl, codeVerifier } = await startAuthorization(servers.issuer, {
        metadata,
        clientInformation: client,
        redirectUrl,
        resource: new URL(servers.mcpUrl),
      });
      const res = await fetch(authorizationUrl, { redirect: "manual" });
      return { code: new URL(res.headers.get("location")!).searchParams.get("code")!, codeVerifier };
    };
    const first = await codeFor();
    const exchange = (code: string, verifier: string) =>
      exchangeAuthorization(servers.issuer, {
        metadata,
        clientInformation: client,
        authorizationCode: code,
        codeVerifier: verifier,
        redirectUri: redirectUrl,
        resource: new URL(servers.mcpUrl),
      });
    await expect(exchange(first.code, `${first.codeVerifier}x`)).rejects.toThrow(/PKCE verification failed/);
    const second = await codeFor();
    await expect(exchange(second.code, second.codeVerifier)).resolves.toMatchObject({
      token_type: "Bearer",
      access_token: expect.stringMatching(/^at_/),
    });
  });
});
