/**
 * What the sixth compat survey (docs/guide/compat-survey.md, "Round v") found ubiquity misreading in
 * real Claude Code and Codex files, run through the built bin with a scripted model in a temp project
 * with its own HOME. Fixtures: test/compat/fixtures/survey-v/ (SOURCE.md names each file's repository,
 * commit and licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempProjects, requireDist, runCli } from "../helpers/project";
import { stepsProject } from "../helpers/scripted-project";
import { tempDirs } from "../helpers/temp-dirs";

const FIXTURES = fileURLToPath(new URL("./fixtures/survey-v/", import.meta.url));
const temp = tempDirs();

beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

/** A project with the scripted model, `fixture`'s files copied in, and a HOME of its own. */
const project = (fixture?: string) => stepsProject(fixture && join(FIXTURES, fixture));

/** Scripted turns: the parent calls the agent, which writes `file`, then both finish. */
const agentWrites = (agent: string, file: string) =>
  JSON.stringify([
    { toolCalls: [{ toolName: "Agent", input: { subagent_type: agent, description: "work", prompt: "do the task" } }] },
    { toolCalls: [{ toolName: "Write", input: { file_path: file, content: "x\n" } }] },
  ]);

describe("Codex custom agents (.codex/agents/<name>.toml): five of the round's repositories had them", () => {
  // Codex reads each TOML file of ~/.codex/agents and a project's .codex/agents as an agent (name,
  // description, developer_instructions, and config keys such as sandbox_mode); ubiquity read none,
  // and said nothing, so under --compat codex `pinky-scout` was "not an agent".
  it("under --compat codex they are agents, their developer_instructions the prompt", async () => {
    const p = project("specd");
    const out = await runCli(["run", "--compat", "codex", "--permission-mode", "acceptEdits", "-p", "go"], p.dir, {
      ...p.env,
      UBQ_STEPS: agentWrites("pinky-craftsman", "crafted.txt"),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(p.requests()[1]).toContain("You are the specd Pinky craftsman worker.");
    expect(existsSync(join(p.dir, "crafted.txt"))).toBe(true);
  });

  it('sandbox_mode = "read-only" keeps the agent from writing (plan mode), as Codex\'s sandbox does', async () => {
    const p = project("specd");
    const out = await runCli(["run", "--compat", "codex", "--permission-mode", "acceptEdits", "-p", "go"], p.dir, {
      ...p.env,
      UBQ_STEPS: agentWrites("pinky-scout", "scouted.txt"),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(p.requests()[1]).toContain("You are the specd Pinky scout worker.");
    expect(existsSync(join(p.dir, "scouted.txt"))).toBe(false);
  });

  it("a key ubiquity does not apply is named with the file; a file without instructions is skipped, said", async () => {
    const p = project();
    mkdirSync(join(p.home, ".codex", "agents"), { recursive: true });
    writeFileSync(
      join(p.home, ".codex", "agents", "helper.toml"),
      'name = "helper"\ndescription = "Helps"\nsandbox_mode = "danger-full-access"\ndeveloper_instructions = "Help."\n[mcp_servers.docs]\ncommand = "docs-mcp"\n',
    );
    writeFileSync(join(p.home, ".codex", "agents", "empty.toml"), 'name = "empty"\ndescription = "Nothing"\n');
    const out = await runCli(["run", "--compat", "codex", "-p", "hello"], p.dir, p.env);
    expect(out.code, out.stderr).toBe(0);
    const helper = join(p.home, ".codex", "agents", "helper.toml");
    expect(out.stderr).toContain(`Codex agent file ${helper}: sandbox_mode = "danger-full-access"`);
    expect(out.stderr).toContain("mcp_servers (an agent gets its parent's MCP servers, not its own)");
    expect(out.stderr).toContain(
      `skipped the agent file ${join(p.home, ".codex", "agents", "empty.toml")}: it has no developer_instructions`,
    );
  });

  it("a project's are project files: named as not applied in an untrusted folder, listed by `ubiquity trust .`", async () => {
    const p = project("specd");
    const untrusted = { ...p.env, UBIQUITY_TRUST: "" };
    // (The scripted config is one of the folder's files too, so the untrusted run has no model: it ends there.)
    const out = await runCli(["run", "--compat", "codex", "-p", "go"], p.dir, untrusted);
    expect(out.stderr).toContain("this folder is not trusted, so its own files were not applied");
    expect(out.stderr).toContain(".codex/agents (read with --compat codex)");
    expect(p.requests().join("\n")).not.toContain("Pinky");
    const trust = await runCli(["trust", ".", "--compat", "codex"], p.dir, untrusted);
    expect(trust.code, trust.stderr).toBe(0);
    expect(trust.stdout).toContain(
      '.codex/agents (defines subagents (their prompts and tools) (with compat: ["codex"]))',
    );
  });

  it("under --compat claude (Claude Code reads no .codex folder) they are not agents", async () => {
    const p = project("specd");
    const out = await runCli(["run", "--compat", "claude", "-p", "go"], p.dir, {
      ...p.env,
      UBQ_STEPS: agentWrites("pinky-craftsman", "crafted.txt"),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(p.requests().join("\n")).not.toContain("You are the specd Pinky craftsman worker.");
  });
});

describe("path-scoped rules (.claude/rules with `paths:`): moai-adk has 63 of them, 1 MB together", () => {
  // Claude Code adds a rule whose frontmatter sets `paths` once Claude works on a file it matches;
  // ubiquity put every one in the system prompt from the start, so moai-adk's project sent 1.1 MB of
  // instructions with each request (its 14 unscoped rules and CLAUDE.md files are ~250 KB of it).
  function moai() {
    const p = project("moai");
    mkdirSync(join(p.dir, "pkg"));
    writeFileSync(join(p.dir, "pkg", "a_test.go"), "package pkg\n");
    writeFileSync(join(p.dir, "pkg", "b_test.go"), "package pkg\n");
    writeFileSync(join(p.dir, "pkg", "main.go"), "package pkg\n");
    return p;
  }
  const reads = (...files: string[]) =>
    JSON.stringify(files.map((f) => ({ toolCalls: [{ toolName: "Read", input: { file_path: f } }] })));
  const count = (text: string, what: string) => text.split(what).length - 1;

  it("a scoped rule is not in the system prompt; it comes once, with the first file it matches", async () => {
    const p = moai();
    const out = await runCli(["run", "--compat", "claude", "-p", "read them"], p.dir, {
      ...p.env,
      UBQ_STEPS: reads("pkg/main.go", "pkg/a_test.go", "pkg/b_test.go"),
    });
    expect(out.code, out.stderr).toBe(0);
    const [first, afterMain, afterTest, last] = p.requests();
    expect(first).not.toContain("# Boundary Verification");
    expect(afterMain).not.toContain("# Boundary Verification"); // main.go is not a test file
    expect(count(afterTest!, "# Boundary Verification")).toBe(1);
    expect(afterTest).toContain(
      `The project rule ${join(p.dir, ".claude/rules/moai/quality/boundary-verification.md")} applies to pkg/a_test.go`,
    );
    expect(count(last!, "# Boundary Verification")).toBe(1); // not again for b_test.go
    // The other rule is for files under .claude/agents: none was touched.
    expect(last).not.toContain("# Agent Authoring");
  });

  it("a Read deny rule that covers the rule keeps it out", async () => {
    const p = moai();
    writeFileSync(
      join(p.dir, ".claude", "settings.json"),
      JSON.stringify({ permissions: { deny: ["Read(.claude/rules/moai/quality/**)"] } }),
    );
    const out = await runCli(["run", "--compat", "claude", "-p", "read it"], p.dir, {
      ...p.env,
      UBQ_STEPS: reads("pkg/a_test.go"),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(p.requests().join("\n")).not.toContain("# Boundary Verification");
    expect(out.stderr).toContain("did not add the rule");
  });
});

describe('a plugin whose mcpServers names an MCP bundle (5uck1ess/devkit: `"mcpServers": "./devkit.mcpb"`)', () => {
  // An .mcpb file is a zip of a server and its manifest.json. ubiquity read it as the plugin's .mcp.json, so
  // every run with the plugin stopped (exit 2: "the plugin's MCP config cannot be used: it is 2793134 bytes").
  it("the plugin loads without its servers, and that is said", async () => {
    const p = project();
    const plugin = join(temp(), "devkit");
    cpSync(join(FIXTURES, "devkit"), plugin, { recursive: true });
    // The bundle itself (2.8 MB) is not kept: a zip's first bytes stand for it.
    writeFileSync(join(plugin, "devkit.mcpb"), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00]));
    const out = await runCli(["run", "--compat", "claude", "--plugin-dir", plugin, "-p", "hello"], p.dir, p.env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain(
      `plugin devkit: its MCP servers are an MCP bundle (${join(plugin, "devkit.mcpb")}: a zip archive`,
    );
    // Its agents are read (reviewer.md's `background` is named as not applied).
    expect(out.stderr).toContain(`agent file ${join(plugin, "agents", "reviewer.md")}: background`);
  });
});

describe("a Stop hook that blocks every stop (0xjgv/harness: `.codex/hooks.json` runs its Go checks on Stop)", () => {
  // When the checks fail for good (here: a `go` that always fails), each stop is blocked and the agent sent back
  // until the turns run out; the run ended "Reached the maximum number of turns; raise maxTurns", which would
  // not help, and nothing named the hook.
  it("the end names the Stop hook's loop and its reason, not only the turns", async () => {
    const p = project("harness");
    execFileSync("git", ["init", "-q"], { cwd: p.dir });
    mkdirSync(join(p.dir, "bin"));
    writeFileSync(join(p.dir, "bin", "go"), "#!/bin/sh\necho 'FAIL: lint' >&2\nexit 1\n");
    chmodSync(join(p.dir, "bin", "go"), 0o755);
    const out = await runCli(["run", "--compat", "codex", "--max-turns", "3", "-p", "hello"], p.dir, {
      ...p.env,
      PATH: `${join(p.dir, "bin")}:${process.env.PATH}`,
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("a Stop hook blocked every stop, 3 times in a row");
    expect(out.stderr).toContain('"Stop hook checks failed; review the output above and fix it before stopping."');
    expect(out.stderr).toContain("stop_hook_active");
  });
});

describe("skills that are links leading nowhere (j5ik2o/oni-comb-rs: 29 skills linked into a git submodule)", () => {
  // j5ik2o's .claude/skills/<name> are links to ../../.agent/skills/<name>, themselves links into a submodule a plain
  // clone lacks: no skill loaded, and nothing said. (The test writes the same links; nothing of the repository is kept.)
  it("are named, once for the folder, with where they lead and the likely cause", async () => {
    const p = project();
    mkdirSync(join(p.dir, ".claude", "skills"), { recursive: true });
    for (const name of ["aggregate-design", "clean-architecture"])
      symlinkSync(`../../.agent/skills/${name}`, join(p.dir, ".claude", "skills", name));
    mkdirSync(join(p.dir, ".claude", "skills", "present"));
    writeFileSync(
      join(p.dir, ".claude", "skills", "present", "SKILL.md"),
      "---\nname: present\ndescription: Here\n---\nBody.\n",
    );
    const out = await runCli(["run", "--compat", "claude", "-p", "hello"], p.dir, p.env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain(
      `${join(p.dir, ".claude", "skills")}: 2 skill links lead nowhere, so those skills are not there (aggregate-design -> ../../.agent/skills/aggregate-design, clean-architecture -> ../../.agent/skills/clean-architecture): a git submodule not checked out`,
    );
    expect(out.stderr).not.toContain("present");
  });
});
