/**
 * A home folder directly under /tmp (HOME=/tmp/ci in a container) holding a stdio MCP server:
 * the server's folder under /tmp was bound whole into the sandbox — the home itself — so the
 * server read ~/.ssh behind the hidden home. The home stays hidden now; the server still starts
 * (its own folder in the home is shown as every spawn's is) and answers.
 * A server installed beside such a home (HOME=/tmp/t/home, the server in /tmp/t/node_modules, as
 * a trial of the packed package has it) was left out with the folder that holds the home, and
 * failed with "Cannot find module …" alone; its own folder is shown now, and a server that still
 * misses a file the sandbox hides is told so, with the fix.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { sandboxAvailability } from "../../plugins/sandbox/availability";
import { main } from "../../runner/cli";
import { collect, resultOf } from "../helpers/collect";
import { expectNoServerLeftAfterEachTest } from "../mcp/helpers";

const found = sandboxAvailability();
expectNoServerLeftAfterEachTest();
const made: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
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
    vi.stubEnv("HOME", home);
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

/** `ubiquity mcp list --config <file>` in-process, with the home folder the test set. */
async function mcpList(config: string) {
  let stdout = "";
  let stderr = "";
  const code = await main(["mcp", "list", "--config", config], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
  });
  return { code, stdout, stderr };
}

/** A trial's layout: /tmp/<t>/home is HOME, /tmp/<t>/<folder>/server.mjs a stdio MCP server, /tmp/<t>/proj the project. */
function trialLayout(folder: string) {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "ubq-trial-")));
  made.push(top);
  const home = join(top, "home");
  mkdirSync(home);
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE-KEY-MATERIAL\n");
  mkdirSync(join(top, folder), { recursive: true });
  const server = join(top, folder, "server.mjs");
  writeFileSync(
    server,
    `import { McpServer } from ${JSON.stringify(join(sdk, "mcp.js"))};
import { StdioServerTransport } from ${JSON.stringify(join(sdk, "stdio.js"))};
const server = new McpServer({ name: "beside", version: "1.0.0" });
server.tool("hello", "Say hello", async () => ({ content: [{ type: "text", text: "hello" }] }));
await server.connect(new StdioServerTransport());
`,
  );
  const proj = join(top, "proj");
  mkdirSync(proj);
  vi.stubEnv("HOME", home);
  return { top, home, server, proj };
}

describe.skipIf(!found.ok)("a stdio MCP server beside a home folder under /tmp", () => {
  it("named by its path, it starts (its folder is shown, the home is not)", async () => {
    const { server, proj } = trialLayout("node_modules/beside");
    const config = join(proj, "servers.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { beside: { command: process.execPath, args: [server] } } }));
    const { code, stdout } = await mcpList(config);
    expect(stdout).toMatch(/^ {2}connected, 1 tool$/m);
    expect(code).toBe(0);
  });

  it("a file it still misses behind the sandbox is named with the reason and the fix, and the fix works", async () => {
    const { server, proj } = trialLayout("lib");
    // The program imports the server by a path no argument names: the sandbox cannot know to show it.
    const load = ["--input-type=module", "-e", `await import(${JSON.stringify(server)})`];
    const config = join(proj, "servers.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { beside: { command: process.execPath, args: load } } }));
    const hidden = await mcpList(config);
    expect(hidden.code).toBe(1);
    expect(hidden.stdout).toContain(`${server} exists, but the sandbox hides it from the server`);
    expect(hidden.stdout).toContain(`sandbox.filesystem.allowRead in the config (["${dirname(server)}"])`);
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { beside: { command: process.execPath, args: load } },
        sandbox: { filesystem: { allowRead: [dirname(server)] } },
      }),
    );
    const fixed = await mcpList(config);
    expect(fixed.stdout).toMatch(/^ {2}connected, 1 tool$/m);
    expect(fixed.code).toBe(0);
  });
});
