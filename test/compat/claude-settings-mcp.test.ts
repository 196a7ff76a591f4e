/**
 * Which servers of a project's `.mcp.json` start, under Claude Code's settings keys
 * `enabledMcpjsonServers`, `disabledMcpjsonServers` and `enableAllProjectMcpServers` (9 of 150
 * public `.claude/settings*.json` files set one; they were reported as ignored and every server
 * started). Minimal inputs of our own: the files seen carry no open licence (see
 * test/fixtures/compat/settings/SOURCE.md).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createKernel } from "ubiquity";
import mcp from "ubiquity/plugins/mcp";
import permissions from "ubiquity/plugins/permissions";
import settings from "ubiquity/plugins/settings";
import { tempDir } from "../permissions/helpers";

const server = { command: "node", args: ["server.js"] };

function kernelFor(files: { project?: unknown; local?: unknown }) {
  const cwd = tempDir();
  const home = tempDir();
  writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { a: server, b: server, c: server } }));
  mkdirSync(join(cwd, ".claude"));
  if (files.project) writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify(files.project));
  if (files.local) writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify(files.local));
  const warnings: string[] = [];
  const make = () =>
    createKernel({
      presets: [],
      plugins: [settings({ home }), permissions(), mcp()],
      cwd,
      compat: ["claude"],
      settingSources: ["project", "local"],
      logger: { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} },
    });
  return { make, warnings };
}

const started = (files: { project?: unknown; local?: unknown }) => {
  const { make, warnings } = kernelFor(files);
  const kernel = make();
  return { names: Object.keys((kernel.options as { mcpServers?: object }).mcpServers ?? {}), warnings };
};

describe("Claude Code settings: which servers of .mcp.json start", () => {
  it("every server, when no file says", () => {
    expect(started({ project: { permissions: { allow: ["Bash(npm test)"] } } }).names).toEqual(["a", "b", "c"]);
  });

  it("only those enabledMcpjsonServers lists, never one disabledMcpjsonServers lists; each left out is reported", () => {
    const run = started({
      project: { enabledMcpjsonServers: ["a", "b"] },
      local: { disabledMcpjsonServers: ["b"] },
    });
    expect(run.names).toEqual(["a"]);
    expect(run.warnings.join("\n")).toContain('MCP server "b" of .mcp.json was not started: disabledMcpjsonServers');
    expect(run.warnings.join("\n")).toContain('MCP server "c" of .mcp.json was not started: enabledMcpjsonServers');
    expect(run.warnings.join("\n")).not.toContain("ignored");
  });

  it("enableAllProjectMcpServers: true in the file that wins lets every server start but the disabled ones", () => {
    const run = started({
      project: { enabledMcpjsonServers: ["a"], enableAllProjectMcpServers: false },
      local: { enableAllProjectMcpServers: true, disabledMcpjsonServers: ["c"] },
    });
    expect(run.names).toEqual(["a", "b"]);
    expect(started({ project: { enableAllProjectMcpServers: true, enabledMcpjsonServers: ["a"] } }).names).toEqual([
      "a",
      "b",
      "c",
    ]);
  });

  it("a disabledMcpjsonServers that is not a list stops the run (dropping it would start what it keeps out)", () => {
    const { make } = kernelFor({ project: { disabledMcpjsonServers: "b" } });
    expect(make).toThrow(/disabledMcpjsonServers" is not a list of server names/);
  });
});
