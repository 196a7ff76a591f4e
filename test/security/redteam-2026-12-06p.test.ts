/**
 * Red team of 2026-12-06 (p): constructs nobody listed, through the built bin against the
 * scripted attacker (real bwrap, marker files), the engine, and bash and python themselves as the
 * oracle. Each finding's test failed before its fix (checked by reverting the fix).
 *
 * HEADER-TALLY
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { sandboxAvailability } from "../../plugins/sandbox/availability";
import { attackBench } from "./attack-bench";

/** What a planted Python module does when it is imported: a marker in the folder it runs in. */
const PLANT = `import os; open(os.path.join(os.getcwd(), "MARK"), "w").write("ran")`;
const python = spawnSync("python3", ["-c", "import sys; print(sys.version_info >= (3, 11))"], { encoding: "utf8" });
const python311 = python.stdout?.trim() === "True";

const { attack, project } = attackBench<{ mcp?: Record<string, unknown>; hook?: string }>({
  name: "redteamp",
  model: "openai:gpt-4.1",
  key: "sk-test-redteam-p",
  fill: ({ cwd }, { mcp, hook }) => {
    if (mcp) writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { srv: mcp } }));
    if (hook) {
      mkdirSync(join(cwd, ".ubiquity"));
      writeFileSync(
        join(cwd, ".ubiquity", "settings.json"),
        JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: hook }] }] } }),
      );
    }
  },
});

const bypass = ["--permission-mode", "bypassPermissions"];
/** A sandboxed command planting a package `json` at the project's top (nothing protects the name). */
const plantJson = `mkdir json && printf '%s\\n' '${PLANT}' > json/__init__.py && echo planted`;

describe("P1: `python3 -m MOD` puts the folder it starts in first on the import path", () => {
  it("oracle: python -m json.tool imports ./json/__init__.py from its folder", () => {
    const p = project();
    mkdirSync(join(p.cwd, "json"));
    writeFileSync(join(p.cwd, "json", "__init__.py"), PLANT);
    spawnSync("python3", ["-m", "json.tool"], { cwd: p.cwd, input: "{}" });
    expect(existsSync(join(p.cwd, "MARK"))).toBe(true);
  });

  it.skipIf(!sandboxAvailability().ok || !python311)(
    "an MCP server `python3 -m json.tool`: a package a sandboxed command planted at the top does not run as the server at the next start",
    async () => {
      const p = project({ mcp: { command: "python3", args: ["-m", "json.tool", "--help"] } });
      const { out } = await attack([plantJson], bypass, p);
      expect(out[0]!.content).toMatch(/planted/);
      await attack([], bypass, p);
      expect(existsSync(join(p.cwd, "MARK"))).toBe(false);
    },
  );

  it.skipIf(!sandboxAvailability().ok || !python311)(
    "a command hook `python3 -m json.tool`: the planted package does not run as the hook (whose answer could approve calls)",
    async () => {
      const p = project({ hook: "python3 -m json.tool >/dev/null" });
      const { out } = await attack([plantJson, "echo second"], bypass, p);
      expect(out[0]!.content).toMatch(/planted/);
      expect(existsSync(join(p.cwd, "MARK"))).toBe(false);
    },
  );

  it.skipIf(!python311)("a server that is the project's module runs from the folder when its own env says so (`PYTHONSAFEPATH: \"\"`)", async () => {
    const p = project({ mcp: { command: "python3", args: ["-m", "tools_srv"], env: { PYTHONSAFEPATH: "" } } });
    writeFileSync(join(p.cwd, "tools_srv.py"), PLANT);
    await attack([], bypass, p);
    expect(readFileSync(join(p.cwd, "MARK"), "utf8")).toBe("ran");
  });
});
