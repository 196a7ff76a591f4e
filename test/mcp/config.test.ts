import { describe, expect, it } from "vitest";
import { ConfigError, createKernel } from "ubiquity";
import mcp, { mcpToolName } from "../../plugins/mcp/index";
import { describeBlock, toToolOutput } from "../../plugins/mcp/content";
import { parseMcpConfig } from "ubiquity/plugins/mcp";

describe("parseMcpConfig", () => {
  it("accepts a server map: stdio, sse, http", () => {
    const servers = {
      fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."], env: { A: "1" }, cwd: "sub" },
      old: { type: "sse", url: "https://example.test/sse", headers: { Authorization: "Bearer x" } },
      docs: { type: "http", url: "https://example.test/mcp" },
    };
    expect(parseMcpConfig(servers)).toEqual(servers);
  });

  it("accepts the .mcp.json / Claude Desktop file shape as it is", () => {
    const file = { mcpServers: { github: { type: "stdio", command: "gh-mcp" } }, globalShortcut: "Ctrl+Space" };
    expect(parseMcpConfig(file)).toEqual({ github: { type: "stdio", command: "gh-mcp" } });
  });

  it("reads a url without a type as streamable HTTP", () => {
    expect(parseMcpConfig({ docs: { url: "https://example.test/mcp" } })).toEqual({
      docs: { type: "http", url: "https://example.test/mcp" },
    });
  });

  it("expands ${VAR} and ${VAR:-default} in command, args, env, url and headers", () => {
    const env = { TOKEN: "t0k", BIN: "/opt/bin/server", HOST: "example.test" };
    const parsed = parseMcpConfig(
      {
        mcpServers: {
          a: { command: "${BIN}", args: ["--port", "${PORT:-8080}"], env: { GITHUB_TOKEN: "${TOKEN}" } },
          b: { type: "http", url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        },
      },
      { env },
    );
    expect(parsed).toEqual({
      a: { command: "/opt/bin/server", args: ["--port", "8080"], env: { GITHUB_TOKEN: "t0k" } },
      b: { type: "http", url: "https://example.test/mcp", headers: { Authorization: "Bearer t0k" } },
    });
  });

  it("names an unset variable, where it is, and the fix", () => {
    expect(() =>
      parseMcpConfig({ a: { command: "x", env: { T: "${NOPE}" } } }, { env: {}, source: ".mcp.json" }),
    ).toThrow(
      /\.mcp\.json: mcpServers\.a\.env\.T: \$\{NOPE\} is not set; set NOPE in the environment or write \$\{NOPE:-default\}/,
    );
  });

  it("rejects what the config schema rejects, naming the source", () => {
    expect(() => parseMcpConfig({ a: { type: "sse" } }, { source: "servers.json" })).toThrow(ConfigError);
    expect(() => parseMcpConfig({ a: { type: "sse" } }, { source: "servers.json" })).toThrow(
      /servers\.json: invalid MCP config/,
    );
    expect(() => parseMcpConfig([])).toThrow(/must be an object of servers/);
  });

  it("produces what options.mcpServers accepts", () => {
    const mcpServers = parseMcpConfig({ mcpServers: { docs: { url: "https://example.test/mcp" } } });
    expect(() => createKernel({ presets: [], plugins: [mcp()], mcpServers })).not.toThrow();
  });
});

describe("tool names", () => {
  it("are mcp__<server>__<tool>, with characters providers reject replaced", () => {
    expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(mcpToolName("my server", "files.read/v2")).toBe("mcp__my_server__files_read_v2");
  });
});

describe("tool results", () => {
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

  it("keeps text, describes images, audio, embedded resources and links", () => {
    expect(describeBlock({ type: "text", text: "hello" })).toBe("hello");
    expect(describeBlock({ type: "image", data: png, mimeType: "image/png" })).toBe(
      "[image image/png, 70 B: returned by the tool, not shown here]",
    );
    expect(describeBlock({ type: "audio", data: "AAAA", mimeType: "audio/wav" })).toMatch(/^\[audio audio\/wav, 3 B/);
    expect(
      describeBlock({ type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "body" } }),
    ).toBe("[resource file:///a.txt (text/plain)]\nbody");
    expect(describeBlock({ type: "resource", resource: { uri: "file:///a.bin", blob: "AAAA" } })).toBe(
      "[resource file:///a.bin, 3 B of binary data: not shown here]",
    );
    expect(describeBlock({ type: "resource_link", uri: "file:///b", name: "b", description: "the b file" })).toBe(
      "[resource link b <file:///b>: the b file]",
    );
  });

  it("marks isError results as errors and falls back to structured content", () => {
    expect(toToolOutput({ content: [{ type: "text", text: "nope" }], isError: true }, "s", "t")).toMatchObject({
      content: "nope",
      isError: true,
    });
    expect(toToolOutput({ content: [], isError: true }, "s", "t")).toMatchObject({
      content: 't on MCP server "s" failed without saying why',
      isError: true,
    });
    const out = toToolOutput({ content: [], structuredContent: { temp: 21 } }, "s", "t");
    expect(out).toMatchObject({
      content: '{"temp":21}',
      isError: false,
      metadata: { mcpServer: "s", mcpTool: "t", structuredContent: { temp: 21 } },
    });
  });
});
