/**
 * A Claude Code plugin's `.mcp.json` (`claudePlugins`): its server starts from
 * `${CLAUDE_PLUGIN_ROOT}`, named `plugin_<plugin>_<server>`; a plugin in an untrusted project
 * starts nothing; a `.mcp.json` that is not JSON ends the run naming it. The plugin here is made
 * by the test (its server is server-everything, started through a file in the plugin folder).
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createKernel } from "ubiquity";
import mcp, { getMcpApi } from "ubiquity/plugins/mcp";
import { tempDirs } from "../helpers/temp-dirs";
import { EVERYTHING_BIN, MARKER, expectNoServerLeftAfterEachTest } from "./helpers";

const temp = tempDirs();
expectNoServerLeftAfterEachTest();

/** A plugin folder `demo` whose .mcp.json starts server-everything through `${CLAUDE_PLUGIN_ROOT}/server.mjs`. */
function demoPlugin(parent: string, mcpJson?: string): string {
  const root = join(parent, "demo");
  mkdirSync(join(root, ".claude-plugin"), { recursive: true });
  writeFileSync(join(root, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "demo" }));
  writeFileSync(join(root, "server.mjs"), `import ${JSON.stringify(EVERYTHING_BIN)};\n`);
  writeFileSync(
    join(root, ".mcp.json"),
    mcpJson ??
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs", "stdio", MARKER] },
        },
      }),
  );
  return root;
}

/** A kernel with the mcp plugin and the demo plugin (outside the project), plus `extra` options. */
function demoKernel(extra: Record<string, unknown> = {}) {
  return createKernel({
    presets: [],
    plugins: [mcp()],
    cwd: realpathSync(temp("ubq-plugin-mcp-")),
    claudePlugins: [demoPlugin(realpathSync(temp("ubq-plugins-")))],
    ...extra,
  });
}

describe("Claude Code plugins: MCP servers", () => {
  it("start from ${CLAUDE_PLUGIN_ROOT}, named plugin_<plugin>_<server>", async () => {
    const kernel = demoKernel();
    try {
      await kernel.ready();
      const [server] = getMcpApi(kernel)!.servers();
      expect(server).toMatchObject({ name: "plugin_demo_everything", status: "connected" });
      expect(server!.tools.map((t) => t.name)).toContain("mcp__plugin_demo_everything__echo");
    } finally {
      await kernel.dispose();
    }
  });

  it("strictMcpConfig: a plugin's servers do not start, only those of mcpServers", async () => {
    const kernel = demoKernel({
      strictMcpConfig: true,
      mcpServers: { own: { command: process.execPath, args: [EVERYTHING_BIN, "stdio", MARKER] } },
    });
    try {
      await kernel.ready();
      expect(
        getMcpApi(kernel)!
          .servers()
          .map((s) => [s.name, s.status]),
      ).toEqual([["own", "connected"]]);
    } finally {
      await kernel.dispose();
    }
  });

  it("${CLAUDE_PROJECT_DIR} in a plugin's server config stands for the project", async () => {
    const cwd = realpathSync(temp("ubq-plugin-mcp-"));
    const parent = realpathSync(temp("ubq-plugins-"));
    const root = demoPlugin(
      parent,
      JSON.stringify({
        mcpServers: {
          everything: {
            command: process.execPath,
            args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs", "stdio", MARKER],
            env: { PROJECT: "${CLAUDE_PROJECT_DIR}" },
          },
        },
      }),
    );
    const { pluginServers } = await import("../../plugins/mcp/plugin-servers");
    const found = pluginServers([root], { cwd, trust: undefined }, () => {});
    expect(found.failed).toEqual([]);
    expect((found.servers.plugin_demo_everything as { env?: Record<string, string> }).env).toEqual({ PROJECT: cwd });
  });

  it("a plugin inside an untrusted project starts nothing", async () => {
    const cwd = realpathSync(temp("ubq-plugin-mcp-"));
    demoPlugin(cwd);
    const kernel = createKernel({
      presets: [],
      plugins: [mcp()],
      cwd,
      claudePlugins: ["./demo"],
      trust: false,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    try {
      await kernel.ready();
      expect(getMcpApi(kernel)!.servers()).toEqual([]);
    } finally {
      await kernel.dispose();
    }
  });

  it("a .mcp.json that is not JSON fails kernel.ready naming it", async () => {
    const cwd = realpathSync(temp("ubq-plugin-mcp-"));
    const root = demoPlugin(realpathSync(temp("ubq-plugins-")), "{ nope");
    const kernel = createKernel({ presets: [], plugins: [mcp()], cwd, claudePlugins: [root] });
    try {
      await expect(kernel.ready()).rejects.toThrow(join(root, ".mcp.json"));
    } finally {
      await kernel.dispose();
    }
  });
});
