/**
 * Red team of 2026-12-06 (q): constructs nobody listed, through the built bin (`ubiquity acp`
 * driven by the ACP SDK's client, `ubiquity run` against the scripted attacker), the engine, and
 * the real programs as the oracle. Each finding's test failed before its fix (checked by
 * reverting the fix).
 *
 * Q1 FIXED  An "always" answer (the terminal's `a`, the editor's allow_always) remembered the
 *           engine's suggested rules as strings, and a later call whose suggestions were the same
 *           strings ran unasked. The engine suggested `Bash(npm test:*)` for `npm test
 *           --script-shell=./tools/x.sh` too, which that rule does not cover (an option the engine
 *           does not know must be named by the rule): after "always" for `npm test`, npm ran the
 *           project's script as its shell, unasked. A suggestion is now only what, added as an
 *           allow rule, the engine itself would count as covering the call.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderServer, type FakeProviderServer } from "../../src/testing/index";
import { requireDist } from "../helpers/project";
import { startAgent, type AgentProcess } from "../acp/helpers";
import { attacker } from "./scripted-attacker";
import { explainPermission } from "../../plugins/permissions/decide";
import { builtinTools } from "../../plugins/tools/index";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function folder(prefix: string, files: Record<string, string> = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content, { mode: 0o755 });
  }
  return dir;
}

const PACKAGE = JSON.stringify({ name: "victim", version: "1.0.0", scripts: { test: "echo tests ok" } });
/** What the repository ships: a script that leaves a marker where it runs. */
const SCRIPT = "#!/bin/sh\necho ran > MARK\n";

describe("Q1: an 'always' answer covers only what its rules cover as the engine reads them", () => {
  const bash = builtinTools().find((t) => t.name === "Bash");
  const suggestions = async (cwd: string, command: string) =>
    (await explainPermission({ toolName: "Bash", input: { command }, mode: "default", cwd, home: cwd, tool: bash }))
      .suggestions;

  it("npm: `npm test --script-shell=FILE` runs FILE (the oracle)", () => {
    const cwd = folder("ubq-q1-", { "package.json": PACKAGE, "tools/x.sh": SCRIPT });
    spawnSync("npm", ["test", "--script-shell=./tools/x.sh"], { cwd, encoding: "utf8" });
    expect(existsSync(join(cwd, "MARK"))).toBe(true);
  });

  it("the engine: a call its suggestion would not cover offers no rule to remember; plain calls still do", async () => {
    const cwd = folder("ubq-q1-", { "package.json": PACKAGE, "tools/x.sh": SCRIPT });
    expect(await suggestions(cwd, "npm test")).toEqual(["Bash(npm test:*)"]);
    expect(await suggestions(cwd, "git status")).toEqual(["Bash(git status:*)"]);
    expect(await suggestions(cwd, "npm test --script-shell=./tools/x.sh")).toEqual([]);
    expect(await suggestions(cwd, "ls --no-such-option")).toEqual([]);
  });

  describe("through the bin (`ubiquity acp`, the editor answers)", () => {
    let provider: FakeProviderServer;
    let proc: AgentProcess | undefined;
    beforeAll(async () => {
      requireDist();
      provider = await startProviderServer(attacker(["npm test", "npm test --script-shell=./tools/x.sh"]));
    });
    afterAll(async () => {
      await proc?.close();
      await provider.close();
    });

    it("allow_always for `npm test`, then the script as npm's shell: asked, and rejected it does not run", async () => {
      const cwd = folder("ubq-q1-repo-", { ".git/HEAD": "x", "package.json": PACKAGE, "tools/x.sh": SCRIPT });
      const home = folder("ubq-q1-home-");
      proc = startAgent({ dir: cwd, sessions: join(home, "sessions") }, ["--model", "openai:gpt-4.1"], {
        HOME: home,
        UBIQUITY_TRUST: "",
        UBIQUITY_MODEL: "",
        OPENAI_API_KEY: "sk-q1-test",
        OPENAI_BASE_URL: provider.baseURL,
      });
      await proc.initialized;
      const { sessionId } = await proc.agent.request("session/new", { cwd, mcpServers: [] });
      proc.answer = (request) =>
        (request.toolCall.rawInput as { command?: string }).command === "npm test" ? "allow_always" : "reject_once";
      await proc.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run the tests" }] });
      const asked = proc.permissions.map((p) => (p.toolCall.rawInput as { command?: string }).command);
      expect(asked[0]).toBe("npm test");
      expect(existsSync(join(cwd, "MARK"))).toBe(false);
      expect(asked).toContain("npm test --script-shell=./tools/x.sh");
    });
  });
});
