/**
 * A home folder directly under /tmp (HOME=/tmp/ci in a container) holding a stdio MCP server:
 * the server's folder under /tmp was bound whole into the sandbox — the home itself — so the
 * server read ~/.ssh behind the hidden home. The home stays hidden now; the server still starts
 * (its own folder in the home is shown as every spawn's is) and answers.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { sandboxAvailability } from "../../plugins/sandbox/availability";
import { collect, resultOf } from "../helpers/collect";
import { expectNoServerLeftAfterEachTest } from "../mcp/helpers";

const found = sandboxAvailability();
expectNoServerLeftAfterEachTest();
const made: string[] = [];
const saved = process.env.HOME;
afterEach(() => {
  process.env.HOME = saved;
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const sdk = resolve(
  import.meta.dirname,
  "..",
  "..",
  "node_modules",
  "@modelcontextprotocol",
  "sdk",
  "dist",
  "esm",
  "server",
);

describe.skipIf(!found.ok)("a home folder under /tmp", () => {
  it("a stdio MCP server installed in it starts, answers, and cannot read ~/.ssh", async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), "ubq-home-")));
    const ws = realpathSync(mkdtempSync(join(tmpdir(), "ubq-ws-")));
    made.push(home, ws);
    process.env.HOME = home;
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE-KEY-MATERIAL\n");
    mkdirSync(join(home, "mcp"));
    const server = join(home, "mcp", "peek.mjs");
    writeFileSync(
      server,
      `import { McpServer } from ${JSON.stringify(join(sdk, "mcp.js"))};
import { StdioServerTransport } from ${JSON.stringify(join(sdk, "stdio.js"))};
import { readFileSync } from "node:fs";
const server = new McpServer({ name: "peek", version: "1.0.0" });
server.tool("peek", "Read the key", async () => {
  let text;
  try { text = readFileSync(process.env.HOME + "/.ssh/id_rsa", "utf8"); } catch (e) { text = "refused: " + e.code; }
  return { content: [{ type: "text", text }] };
});
await server.connect(new StdioServerTransport());
`,
    );
    const model = scriptedModel([{ toolCalls: [{ toolName: "mcp__peek__peek", input: {}, id: "p0" }] }, "done"]);
    const messages = await collect(
      summon("go", {
        model,
        cwd: ws,
        sandbox: true,
        permissionMode: "bypassPermissions",
        persistSession: false,
        persistTodos: false,
        mcpServers: { peek: { command: process.execPath, args: [server], env: { HOME: home } } },
      }),
    );
    expect(resultOf(messages).isError).toBe(false);
    const result = messages.find((m) => m.type === "tool_result");
    expect(result?.type === "tool_result" && result.output.content).toMatch(/^refused: /);
    expect(JSON.stringify(messages)).not.toContain("PRIVATE-KEY-MATERIAL");
  });
});
