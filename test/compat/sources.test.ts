/**
 * `compat`: Claude Code's and Codex's files, read only when asked and under the same trust as
 * ours — on real repositories' files (test/fixtures/compat, see SOURCE.md there):
 * anthropics/claude-agent-sdk-python's CLAUDE.md, .claude/settings.json, agent and skill, and
 * openai/codex's AGENTS.md and a skill in .agents/skills.
 */
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { summon, type Options } from "ubiquity";
import { recordedBash } from "../helpers/recorded-bash";
import { scriptedModel } from "ubiquity/testing";
import settingsPlugin from "ubiquity/plugins/settings";
import permissionsPlugin from "ubiquity/plugins/permissions";
import memoryPlugin from "ubiquity/plugins/memory";
import skillsPlugin from "ubiquity/plugins/skills";
import agentsPlugin from "ubiquity/plugins/agents";
import hooksPlugin from "ubiquity/plugins/hooks";
import { collect, ofType, resultOf } from "../helpers/collect";
import { digestsOf, findFilesToPin, TrustPins } from "../../loader/index";

const FIXTURES = fileURLToPath(new URL("../fixtures/compat/", import.meta.url));
const made: string[] = [];
const temp = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
};

// The user's own ~/.claude must not leak into these runs: HOME is an empty folder.
let emptyHome = "";
beforeAll(() => {
  emptyHome = temp("ubq-compat-home-");
});
beforeEach(() => {
  vi.stubEnv("HOME", emptyHome);
});
afterEach(() => {
  vi.unstubAllEnvs();
});
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A copy of a fixture project (plus `files`), so each test has its own folder. */
function project(fixture: string | undefined, files: Record<string, string> = {}): string {
  const dir = temp("ubq-compat-");
  if (fixture) cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const { tool: shell, ran } = recordedBash();

const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

async function runIn(cwd: string, options: Options, command = "python -m pytest tests/") {
  ran.length = 0;
  const warnings: string[] = [];
  const model = scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command } }] }, "done"]);
  const messages = await collect(
    summon("go", {
      presets: [],
      plugins: [settingsPlugin(), permissionsPlugin(), memoryPlugin(), skillsPlugin(), agentsPlugin(), hooksPlugin()],
      model,
      tools: [shell],
      cwd,
      logger: { debug() {}, info() {}, error() {}, warn: (...a: unknown[]) => warnings.push(a.join(" ")) },
      ...options,
    }),
  );
  const first = model.requests[0] ?? { prompt: [], tools: [] };
  const system = first.prompt
    .filter((m) => m.role === "system")
    .map((m) => textOf(m.content))
    .join("\n");
  const tools = Object.fromEntries(
    (first.tools ?? []).map((t) => [t.name, "description" in t ? (t.description ?? "") : ""]),
  );
  return { messages, warnings, system, tools, result: resultOf(messages), ran: [...ran] };
}

describe("compat: nothing is read unless asked", () => {
  it("with every source on and no compat, no CLAUDE.md, .claude agent, skill or settings apply", async () => {
    const dir = project("claude-agent-sdk-python");
    const run = await runIn(dir, {
      settingSources: ["user", "project", "local"],
      memorySources: ["user", "project", "local"],
      skillSources: ["user", "project", "local"],
      agentSources: ["user", "project", "local"],
    });
    expect(run.system).not.toContain("python -m ruff check");
    expect(Object.keys(run.tools)).not.toContain("Skill");
    expect(Object.keys(run.tools)).not.toContain("Agent");
    // The allow rule of .claude/settings.json did not apply: headless, the call is denied.
    expect(run.ran).toEqual([]);
    // …and the run says so once, naming the file and the option that reads it.
    const said = run.warnings.filter((w) => w.includes(join(dir, ".claude", "settings.json")));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(
      `is Claude Code's settings file and is not read, so its permission rules and hooks do not apply: set compat: ["claude"]`,
    );
  });

  it("an explicit compat: [] keeps them unread without the warning; no project source, no warning", async () => {
    const dir = project("claude-agent-sdk-python");
    const chosen = await runIn(dir, { compat: [], settingSources: ["project"] });
    expect(chosen.ran).toEqual([]);
    expect(chosen.warnings.filter((w) => w.includes("Claude Code's settings file"))).toEqual([]);
    const userOnly = await runIn(dir, { settingSources: ["user"] });
    expect(userOnly.warnings.filter((w) => w.includes("Claude Code's settings file"))).toEqual([]);
  });
});

describe('compat: ["claude"] on anthropics/claude-agent-sdk-python', () => {
  it("reads CLAUDE.md, the .claude agent and skill, and .claude/settings.json's allow rules", async () => {
    const dir = project("claude-agent-sdk-python");
    const run = await runIn(dir, { compat: ["claude"] });
    expect(run.result.isError).toBe(false);
    expect(run.system).toContain("python -m ruff check src/ tests/ scripts/ --fix");
    expect(run.tools.Skill).toContain("verify");
    expect(run.tools.Agent).toContain("test-agent");
    expect(run.ran).toEqual(["python -m pytest tests/"]);
    // A command the file does not allow still asks (headless: denied).
    const other = await runIn(dir, { compat: ["claude"] }, "rm -rf src");
    expect(other.ran).toEqual([]);
  });

  it("reads them only from the sources a plugin asks for, when it asks", async () => {
    const dir = project("claude-agent-sdk-python");
    const run = await runIn(dir, {
      compat: ["claude"],
      memorySources: ["user"],
      skillSources: ["user"],
      agentSources: ["user"],
      settingSources: ["user"],
    });
    expect(run.system).not.toContain("python -m ruff check");
    expect(Object.keys(run.tools)).not.toContain("Skill");
    expect(run.ran).toEqual([]);
  });

  it("CLAUDE.local.md, .claude/CLAUDE.md and @includes are memory too", async () => {
    const dir = project(undefined, {
      "CLAUDE.md": "Project rule: say PROJECT-RULE.\n\nSee @docs/conventions.md for the conventions.\n",
      "docs/conventions.md": "Convention: say INCLUDED-CONVENTION.\n",
      ".claude/CLAUDE.md": "Say DOT-CLAUDE-RULE.\n",
      "CLAUDE.local.md": "Say LOCAL-RULE.\n",
    });
    const run = await runIn(dir, { compat: ["claude"] });
    for (const marker of ["PROJECT-RULE", "INCLUDED-CONVENTION", "DOT-CLAUDE-RULE", "LOCAL-RULE"])
      expect(run.system).toContain(marker);
  });

  it("keys it does not apply are reported once and ignored; the rest of the file applies", async () => {
    const settings = {
      model: "claude-sonnet-4-5",
      statusLine: { type: "command", command: "echo hi" },
      enabledPlugins: { "x@y": true },
      apiKeyHelper: "echo key",
      permissions: { allow: ["Bash(python -m pytest tests/)"] },
      env: { MAX_THINKING_TOKENS: 1024 },
    };
    const dir = project(undefined, { ".claude/settings.json": JSON.stringify(settings) });
    const run = await runIn(dir, { compat: ["claude"] });
    expect(run.result.isError).toBe(false);
    expect(run.ran).toEqual(["python -m pytest tests/"]);
    const reports = run.warnings.filter((w) => w.includes(join(dir, ".claude", "settings.json")));
    expect(reports).toHaveLength(2);
    for (const key of [
      // The model is named with the --model it means (a Claude model name names no provider).
      '"model (a Claude model name, not read: pass --model anthropic:claude-sonnet-4-5)"',
      '"statusLine"',
      '"enabledPlugins (x@y: no readable ~/.claude/plugins/installed_plugins.json)',
    ])
      expect(reports[0]).toContain(key);
    // A project's apiKeyHelper is never run (the user's own file's is: trial ze): said on its own.
    expect(reports[1]).toContain("its apiKeyHelper is not run: a project's file never sets the provider's key");
  });

  it("an unparseable .claude/settings.json stops the run naming it (fail closed)", async () => {
    const dir = project(undefined, { ".claude/settings.json": '{ "permissions": { "deny": ["Bash(rm:*)"] ' });
    const run = await runIn(dir, { compat: ["claude"] });
    expect(run.result.isError).toBe(true);
    expect(run.result.result).toContain(join(dir, ".claude", "settings.json"));
    expect(run.ran).toEqual([]);
  });
});

describe("compat under trust", () => {
  it("in an untrusted folder no .claude file applies but its deny rules do, as with ours", async () => {
    const dir = project("claude-agent-sdk-python");
    const run = await runIn(dir, { compat: ["claude"], trust: false });
    expect(run.system).not.toContain("python -m ruff check");
    expect(Object.keys(run.tools)).not.toContain("Skill");
    expect(Object.keys(run.tools)).not.toContain("Agent");
    expect(run.ran).toEqual([]); // its allow rule did not apply

    const denying = project(undefined, {
      ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Bash(python -m pytest:*)"] } }),
    });
    const denied = await runIn(denying, { compat: ["claude"], trust: false, permissionMode: "bypassPermissions" });
    expect(denied.ran).toEqual([]);
    expect(ofType(denied.messages, "tool_result")[0]!.output.isError).toBe(true);
    // The same call in bypass mode without the file runs: the deny rule is what stopped it.
    const plain = await runIn(project(undefined), {
      compat: ["claude"],
      trust: false,
      permissionMode: "bypassPermissions",
    });
    expect(plain.ran).toEqual(["python -m pytest tests/"]);
  });
});

describe("compat: the user's own ~/.claude", () => {
  it("applies in an untrusted folder too (it is the user's, not the folder's)", async () => {
    const home = process.env.HOME!;
    mkdirSync(join(home, ".claude", "skills", "house-style"), { recursive: true });
    writeFileSync(join(home, ".claude", "CLAUDE.md"), "User rule: say USER-CLAUDE-RULE.\n");
    writeFileSync(
      join(home, ".claude", "skills", "house-style", "SKILL.md"),
      "---\nname: house-style\ndescription: The user's house style.\n---\nUse tabs.\n",
    );
    writeFileSync(
      join(home, ".claude", "settings.json"),
      JSON.stringify({ permissions: { allow: ["Bash(python -m pytest tests/)"] } }),
    );
    try {
      const run = await runIn(project("claude-agent-sdk-python"), { compat: ["claude"], trust: false });
      expect(run.system).toContain("USER-CLAUDE-RULE");
      expect(run.system).not.toContain("python -m ruff check"); // the folder's CLAUDE.md is not read
      expect(run.tools.Skill).toContain("house-style");
      expect(run.tools.Skill).not.toContain("verify");
      expect(run.ran).toEqual(["python -m pytest tests/"]); // the user's allow rule applies
    } finally {
      rmSync(join(home, ".claude"), { recursive: true, force: true });
    }
  });
});

describe("compat under approved digests (TrustPins)", () => {
  it("trusting a folder approves its .claude files; one changed since is not read until approved again", async () => {
    const dir = project("claude-agent-sdk-python");
    const home = process.env.HOME!;
    const plugins = [settingsPlugin(), memoryPlugin(), skillsPlugin(), agentsPlugin()];
    const pinned = findFilesToPin(dir, home, plugins).map((f) => f.path);
    for (const file of ["CLAUDE.md", ".claude/settings.json", ".claude/agents", ".claude/skills"])
      expect(pinned).toContain(join(dir, file));
    const pins = () => new TrustPins(digestsOf(findFilesToPin(dir, home, plugins)), home);
    const approved = pins();
    const before = await runIn(dir, { compat: ["claude"], trust: approved });
    expect(before.system).toContain("python -m ruff check");
    expect(before.ran).toEqual(["python -m pytest tests/"]);
    expect(before.tools.Agent).toContain("test-agent");

    writeFileSync(join(dir, "CLAUDE.md"), "Changed after approval: say CHANGED-MARKER.\n");
    writeFileSync(
      join(dir, ".claude", "settings.json"),
      JSON.stringify({ permissions: { allow: ["Bash(python -m pytest tests/)", "Bash(rm:*)"] } }),
    );
    const after = await runIn(dir, { compat: ["claude"], trust: approved });
    expect(after.system).not.toContain("CHANGED-MARKER");
    expect(after.ran).toEqual([]); // the changed file's allow rules do not apply
    expect(after.tools.Agent).toContain("test-agent"); // unchanged files still do
  });
});

describe('compat: ["codex"] on openai/codex files', () => {
  it("reads AGENTS.md and .agents/skills", async () => {
    const dir = project("codex");
    const run = await runIn(dir, { compat: ["codex"] });
    expect(run.system).toContain("TUI bottom pane (state machines)");
    expect(run.tools.Skill).toContain("code-review-context");
  });

  it("claude alone does not read AGENTS.md", async () => {
    const dir = project("codex");
    const run = await runIn(dir, { compat: ["claude"] });
    expect(run.system).not.toContain("TUI bottom pane");
  });
});
