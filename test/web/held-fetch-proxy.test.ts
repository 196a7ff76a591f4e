/**
 * heldFetch (red team zf, ZF2) holds a configured endpoint whose name first resolved to a public
 * address to public addresses, by connecting itself. Behind the environment's proxy this process
 * resolves and connects to nothing: the proxy does. A network with only a proxy reached no remote
 * MCP server, search backend or HTTP hook once they went through heldFetch: such a request goes
 * to the proxy where node's NODE_USE_ENV_PROXY sends it, in a tunnel to the address judged here
 * (red team zh, ZH2: a proxy given the name resolves it again).
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proxiedByEnvironment } from "../../plugins/web/held-fetch";
import { tsNodeArgs } from "../helpers/ts-child";

let origin: Server;
let proxy: Server;
const tunnels: string[] = [];

beforeAll(async () => {
  origin = createServer((req, res) => res.end(`origin saw ${req.headers.host}${req.url}`));
  await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
  // A CONNECT proxy that records each target and tunnels every one to the origin above.
  proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on("connect", (req, socket, head) => {
    tunnels.push(req.url ?? "");
    const upstream = connect((origin.address() as AddressInfo).port, "127.0.0.1", () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
});
afterAll(() => {
  origin.close();
  proxy.close();
});

describe("heldFetch behind the environment's proxy", () => {
  it("sends a held name's request through the proxy (node's NODE_USE_ENV_PROXY), tunnelled to the address judged", async () => {
    // Not spawnSync: the proxy and the origin answer from this process's event loop.
    const child = spawn(
      process.execPath,
      [...tsNodeArgs, join(import.meta.dirname, "fixtures", "held-through-proxy.ts"), "http://mcp.example.test/v1"],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          NODE_USE_ENV_PROXY: "1",
          HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        },
      },
    );
    const run = { stdout: "", stderr: "" };
    child.stdout.on("data", (d: Buffer) => (run.stdout += d));
    child.stderr.on("data", (d: Buffer) => (run.stderr += d));
    await new Promise((done) => child.once("close", done));
    expect(run.stdout.trim(), run.stderr).toBe("200 origin saw mcp.example.test/v1");
    expect(tunnels).toEqual(["93.184.216.34:80"]);
  });

  it("a name this machine cannot resolve (only the proxy could) is refused, saying why and what to do; no tunnel opens", async () => {
    const before = tunnels.length;
    const child = spawn(
      process.execPath,
      [
        ...tsNodeArgs,
        join(import.meta.dirname, "fixtures", "held-through-proxy.ts"),
        "http://mcp.corp.test/v1",
        "nxdomain",
      ],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          NODE_USE_ENV_PROXY: "1",
          HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        },
      },
    );
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    await new Promise((done) => child.once("close", done));
    expect(stdout).toContain("mcp.corp.test could not be resolved on this machine (ENOTFOUND)");
    expect(stdout).toContain(`behind the proxy 127.0.0.1:${(proxy.address() as AddressInfo).port}`);
    expect(stdout).toContain("/etc/hosts");
    expect(tunnels.length).toBe(before);
  });

  it("tells which requests node sends to the proxy", () => {
    const on = { NODE_USE_ENV_PROXY: "1", HTTPS_PROXY: "http://proxy:3128", HTTP_PROXY: "http://proxy:3128" };
    const https = new URL("https://mcp.example.com/mcp");
    expect(proxiedByEnvironment(https, on, [])).toBe(true);
    expect(proxiedByEnvironment(https, { ...on, NODE_USE_ENV_PROXY: undefined }, [])).toBe(false);
    expect(proxiedByEnvironment(https, { ...on, NODE_USE_ENV_PROXY: undefined }, ["--use-env-proxy"])).toBe(true);
    // Without an https proxy node sends https requests to the http one too (EnvHttpProxyAgent).
    expect(proxiedByEnvironment(https, { HTTP_PROXY: on.HTTP_PROXY, NODE_OPTIONS: "--use-env-proxy" }, [])).toBe(true);
    expect(proxiedByEnvironment(https, { HTTPS_PROXY: on.HTTPS_PROXY, NODE_OPTIONS: "--use-env-proxy" }, [])).toBe(
      true,
    );
    for (const noProxy of ["*", "example.com", ".example.com", "mcp.example.com:443", "a.test, example.com"])
      expect(proxiedByEnvironment(https, { ...on, NO_PROXY: noProxy }, []), noProxy).toBe(false);
    for (const noProxy of ["other.com", "ample.com", ""])
      expect(proxiedByEnvironment(https, { ...on, NO_PROXY: noProxy }, []), noProxy).toBe(true);
    // As node's EnvHttpProxyAgent: the lower-case variables first, an empty https proxy meaning the http one's.
    expect(proxiedByEnvironment(https, { ...on, NO_PROXY: "other.com", no_proxy: "example.com" }, [])).toBe(false);
    expect(proxiedByEnvironment(https, { ...on, NO_PROXY: "example.com", no_proxy: "" }, [])).toBe(true);
    expect(
      proxiedByEnvironment(https, { NODE_USE_ENV_PROXY: "1", HTTPS_PROXY: on.HTTPS_PROXY, https_proxy: "" }, []),
    ).toBe(false);
  });
});
