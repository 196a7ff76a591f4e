/**
 * A remote server's configured `headers` go with every request, over streamable HTTP and SSE;
 * a server that refuses them fails to start with the transport's words (as MCP SDK 1.x put them).
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp from "ubiquity/plugins/mcp";
import { collect } from "../helpers/collect";

// Not an MCP server: it records what arrives and answers 401, so the connection fails at once.
const seen: { method?: string; path?: string; headers: IncomingHttpHeaders }[] = [];
const server = createServer((req, res) => {
  seen.push({ method: req.method, path: req.url, headers: req.headers });
  req.resume();
  res.writeHead(401, { "content-type": "text/plain" }).end("no");
});
let base = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("configured headers", () => {
  const refused = {
    // The first request is the revision probe (server/discover), refused the same way.
    http: "failed to start: Streamable HTTP error: Version negotiation failed: the server requires authorization (HTTP 401); check the Authorization header of mcpServers.remote (headers or headersHelper)",
    sse: "failed to start: SSE error: Non-200 status code (401)",
  };
  it.each(["http", "sse"] as const)("reach the server over %s", async (type) => {
    seen.length = 0;
    const headers = { Authorization: "Bearer test-token", "X-Ubiquity-Test": type };
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [mcp({ connectTimeoutMs: 5000 })],
        model: scriptedModel(["done"]),
        mcpServers: { remote: { type, url: `${base}/mcp`, headers } },
      }),
    );
    expect(seen.length).toBeGreaterThan(0);
    const init = messages.find((m) => m.type === "system" && m.subtype === "init") as unknown as {
      extra: { mcpServers: unknown };
    };
    expect(init.extra.mcpServers).toEqual([{ name: "remote", status: "failed", error: refused[type] }]);
    expect(seen[0]).toMatchObject({
      path: "/mcp",
      headers: { authorization: "Bearer test-token", "x-ubiquity-test": type },
    });
  });
});
