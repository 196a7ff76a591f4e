/**
 * What the compat survey (docs/guide/compat-survey.md) found ubiquity misreading, on the real files
 * (test/fixtures/compat/survey, see SOURCE.md there): an agent's `effort` and `initialPrompt` and a
 * `tools` entry holding commas (anthropics/claude-plugins-official's claude-security), a Claude
 * model id without a provider (EveryInc/compound-engineering-plugin, davila7/claude-code-templates),
 * a skill without a description (compound-engineering) or with Claude Code fields ubiquity does not
 * apply (centminmod/my-claude-code-setup), and `.mcp.json` servers written `"enabled": false`
 * (claude-code-templates).
 */
import { cpSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createKernel, summon } from "ubiquity";
import { commandRoots, loadCommands } from "../../plugins/commands/load";
import { scriptedModel } from "ubiquity/testing";
import modelPlugin from "ubiquity/plugins/model";
import mcp from "ubiquity/plugins/mcp";
import permissions from "ubiquity/plugins/permissions";
import settings from "ubiquity/plugins/settings";
import commandsPlugin from "../../plugins/commands/index";
import { loadSkills } from "../../plugins/skills/index";
import { parseAgentFile, readAgentFiles } from "../../plugins/agents/index";
import { agentModel } from "../../plugins/agents/launch";
import { readMcpConfigEntries } from "../../plugins/mcp/config";
import { settingsProjectFiles } from "../../plugins/settings/project-files";
import { tempDirs } from "../helpers/temp-dirs";
import { collect, resultOf } from "../helpers/collect";

const SURVEY = fileURLToPath(new URL("../fixtures/compat/survey/", import.meta.url));
const tempDir = tempDirs();
const temp = () => realpathSync(tempDir("ubq-compat-survey-"));
const fixture = (path: string) => readFileSync(join(SURVEY, path), "utf8");

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("agent files of claude-plugins-official's claude-security plugin", () => {
  it("`effort: medium` / `effort: xhigh` are the agent's reasoning level", () => {
    const inventory = parseAgentFile(fixture("claude-plugins-official/agents/scan-inventory.md"), "scan-inventory");
    const lead = parseAgentFile(fixture("claude-plugins-official/agents/claude-security.md"), "claude-security");
    expect(inventory.ok && inventory.definition).toMatchObject({
      reasoning: "medium",
      tools: ["Read", "Glob", "Grep"],
    });
    expect(lead.ok && lead.definition.reasoning).toBe("xhigh");
    expect(inventory.ok && inventory.dropped).toEqual([]);
  });

  it("a `tools` entry with commas inside parentheses (`Agent(a, b, …)`) stays one entry", () => {
    const lead = parseAgentFile(fixture("claude-plugins-official/agents/claude-security.md"), "claude-security");
    const tools = lead.ok ? (lead.definition.tools ?? []) : [];
    expect(tools).toHaveLength(16);
    expect(tools.at(-1)).toBe(
      "Agent(claude-security:scan-inventory, claude-security:scan-researcher, claude-security:scan-verifier, claude-security:patch-generator, claude-security:patch-verifier, claude-security:explore)",
    );
    expect(tools).toContain("Workflow(claude-security:scan)");
  });

  it("`initialPrompt`, which ubiquity does not apply, is said, and the agent still loads", async () => {
    const cwd = temp();
    mkdirSync(join(cwd, "agents"));
    cpSync(join(SURVEY, "claude-plugins-official/agents"), join(cwd, "agents"), { recursive: true });
    const reports: string[] = [];
    const found = await readAgentFiles([], { cwd, home: cwd }, (m) => reports.push(m), [
      { path: join(cwd, "agents"), source: "project" },
    ]);
    expect([...found.keys()].sort()).toEqual(["claude-security", "scan-inventory"]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain("claude-security.md: initialPrompt (an agent's first prompt is the Agent call's)");
    expect(reports[0]).toContain("ubiquity does not apply");
  });
});

describe("a Claude model id without a provider (`model: claude-sonnet-4-5-20250929`)", () => {
  it("keeps the run's model unless an alias maps it, as the tiers do", () => {
    const reviewer = parseAgentFile(fixture("compound-engineering/agents/security-reviewer.md"), "security-reviewer");
    const written =
      reviewer.ok && typeof reviewer.definition.model === "string" ? reviewer.definition.model : undefined;
    expect(written).toBe("claude-sonnet-4-20250514");
    expect(agentModel(written, undefined)).toBeUndefined();
    expect(agentModel("opus[1m]", undefined)).toBeUndefined();
    expect(agentModel("opusplan", {})).toBeUndefined();
    expect(agentModel(written, { "claude-sonnet-4-20250514": "anthropic:claude-sonnet-4-20250514" })).toBe(written);
    expect(agentModel("anthropic:claude-sonnet-4-5", undefined)).toBe("anthropic:claude-sonnet-4-5");
  });

  it("a command asking for one (claude-code-templates' gemini-review) runs on the session's model", async () => {
    const cwd = temp();
    mkdirSync(join(cwd, "commands"));
    cpSync(join(SURVEY, "claude-code-templates/commands/gemini-review.md"), join(cwd, "commands", "gemini-review.md"));
    const model = scriptedModel(["reviewed"]);
    const messages = await collect(
      summon("/gemini-review 42", {
        presets: [],
        plugins: [modelPlugin(), commandsPlugin()],
        model,
        cwd,
        commands: ["commands"],
      }),
    );
    expect(resultOf(messages).isError).toBe(false);
    expect(resultOf(messages).result).toBe("reviewed");
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0]!.prompt)).toContain("Gemini PR Review Automation");
  });
});

describe("commands in subfolders of Claude Code's folders (my-claude-code-setup)", () => {
  // Its README documents `/cleanup-context` for `.claude/commands/cleanup/cleanup-context.md`, as
  // Claude Code's docs name such files (`ci/build.md` is `/build`, "(project:ci)").
  it("are named by their file alone; two files of one name keep their folders, so neither is lost", async () => {
    const cwd = temp();
    cpSync(join(SURVEY, "my-claude-code-setup/commands"), join(cwd, ".claude/commands"), { recursive: true });
    mkdirSync(join(cwd, ".claude/commands/ci"));
    mkdirSync(join(cwd, ".claude/commands/docs"));
    writeFileSync(join(cwd, ".claude/commands/ci/build.md"), "Build the code.\n");
    writeFileSync(join(cwd, ".claude/commands/docs/build.md"), "Build the docs.\n");
    const reports: string[] = [];
    const roots = commandRoots(
      { compatRoots: [{ path: join(cwd, ".claude/commands"), source: "project" }] },
      { cwd, home: cwd },
    );
    const names = (await loadCommands(roots, (m) => reports.push(m))).map((c) => c.name);
    expect(reports).toEqual([]);
    expect(names).toEqual(["ci:build", "cleanup-context", "create-release-note", "docs:build"]);
    // Our own folders keep naming a subfolder's file `folder:name`.
    cpSync(join(SURVEY, "my-claude-code-setup/commands"), join(cwd, "own"), { recursive: true });
    const own = await loadCommands(commandRoots({ commands: ["own"] }, { cwd, home: cwd }), () => {});
    expect(own.map((c) => c.name)).toEqual(["cleanup:cleanup-context", "documentation:create-release-note"]);
  });

  it("/cleanup-context runs the file from ~/.claude/commands/cleanup under compat", async () => {
    const home = temp();
    vi.stubEnv("HOME", home);
    cpSync(join(SURVEY, "my-claude-code-setup/commands"), join(home, ".claude/commands"), { recursive: true });
    const model = scriptedModel(["done"]);
    const messages = await collect(
      summon("/cleanup-context", { model, cwd: temp(), compat: ["claude"], sandbox: false, persistSession: false }),
    );
    expect(resultOf(messages).isError).toBe(false);
    expect(JSON.stringify(model.requests[0]!.prompt)).toContain("Memory Bank Context Optimization");
  });
});

describe("skills", () => {
  it("one without a description (compound-engineering's default-skill) is described by its first paragraph, as a Claude Code plugin's or folder's skill; one of ours is skipped (the seed)", async () => {
    const reports: string[] = [];
    const root = join(SURVEY, "compound-engineering", "skills");
    const place = { cwd: SURVEY, home: SURVEY };
    // A Claude Code plugin's skills folder.
    const skills = await loadSkills({ skills: [root] }, place, (m) => reports.push(m), true);
    expect(reports).toEqual([]);
    expect(skills.map((s) => [s.name, s.description])).toEqual([["default-skill", "Default skill"]]);
    // A .claude/skills folder (a compat root).
    const compat = await loadSkills({ compatRoots: [{ path: root, source: "project" }] }, place, (m) =>
      reports.push(m),
    );
    expect(compat.map((s) => s.description)).toEqual(["Default skill"]);
    // The same folder named in `skills`: ubiquity's own convention, a description is required.
    expect(await loadSkills({ skills: [root] }, place, (m) => reports.push(m))).toEqual([]);
    expect(reports).toEqual([expect.stringMatching(/default-skill\/SKILL\.md: it has no description/)]);
  });

  it("`effort` (my-claude-code-setup's session-metrics) loads the skill and is said not to apply", async () => {
    const reports: string[] = [];
    const skills = await loadSkills(
      { skills: [join(SURVEY, "my-claude-code-setup", "skills")] },
      { cwd: SURVEY, home: SURVEY },
      (m) => reports.push(m),
    );
    expect(skills.map((s) => s.name)).toEqual(["session-metrics"]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(/session-metrics\/SKILL\.md: effort \(the run's reasoning level applies\)/);
  });
});

describe('.mcp.json servers written `"enabled": false` (claude-code-templates\' ruby template)', () => {
  it("are not started, each said; the file's other servers are", () => {
    const read = readMcpConfigEntries(JSON.parse(fixture("claude-code-templates/ruby/.mcp.json")), { env: {} });
    expect(Object.keys(read.servers)).toEqual(["ruby-docs", "rails-docs", "rubygems", "bundler"]);
    expect(read.failed).toEqual([]);
    // The servers left on say `"enabled": true`: a key read, so no warning names it.
    expect(read.warnings.filter((w) => w.includes('"enabled" is not one'))).toEqual([]);
    expect(read.warnings.filter((w) => w.includes("not started"))).toEqual([
      'mcpServers.github says "enabled": false, so it was not started; remove that key to start it',
      'mcpServers.postgres says "enabled": false, so it was not started; remove that key to start it',
      'mcpServers.brave-search says "enabled": false, so it was not started; remove that key to start it',
    ]);
  });

  it("the trust question names only the servers that would start", () => {
    const cwd = temp();
    cpSync(join(SURVEY, "claude-code-templates/ruby/.mcp.json"), join(cwd, ".mcp.json"));
    const [mcpFile] = settingsProjectFiles({ cwd } as Parameters<typeof settingsProjectFiles>[0]);
    expect(mcpFile!.effect).toBe("starts MCP servers ruby-docs, rails-docs, rubygems, bundler");
  });

  it("a project's .mcp.json read by the settings plugin starts none of them", () => {
    const cwd = temp();
    cpSync(join(SURVEY, "claude-code-templates/ruby/.mcp.json"), join(cwd, ".mcp.json"));
    const warnings: string[] = [];
    const kernel = createKernel({
      presets: [],
      plugins: [settings({ home: cwd }), permissions(), mcp()],
      cwd,
      compat: ["claude"],
      settingSources: ["project"],
      logger: { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} },
    });
    const names = Object.keys((kernel.options as { mcpServers?: object }).mcpServers ?? {});
    expect(names).not.toContain("github");
    expect(names).toContain("bundler");
    expect(warnings.join("\n")).toContain('mcpServers.github says "enabled": false');
  });
});
