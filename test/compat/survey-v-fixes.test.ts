/**
 * What the sixth compat survey (docs/guide/compat-survey.md, "Round v") found ubiquity misreading in
 * real Claude Code and Codex files, run through the built bin with a scripted model in a temp project
 * with its own HOME. Fixtures: test/compat/fixtures/survey-v/ (SOURCE.md names each file's repository,
 * commit and licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { STEPS_CONFIG } from "../helpers/scripted-project";

const FIXTURES = fileURLToPath(new URL("./fixtures/survey-v/", import.meta.url));

beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

/** A project with the scripted model, `fixture`'s files copied in, and a HOME of its own. */
function project(fixture?: string) {
  const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG }, { linkUbiquity: true });
  if (fixture) cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  const home = join(dir, "home");
  mkdirSync(home);
  const log = join(dir, "model.log");
  writeFileSync(log, "");
  const env = { HOME: home, UBQ_SESSIONS: join(dir, "sessions"), UBQ_LOG: log };
  /** Each request's messages, as JSON text. */
  const requests = () => readFileSync(log, "utf8").split("\n").filter(Boolean);
  return { dir, home, env, requests };
}

/** Scripted turns: the parent calls the agent, which writes `file`, then both finish. */
const agentWrites = (agent: string, file: string) =>
  JSON.stringify([
    { toolCalls: [{ toolName: "Agent", input: { subagent_type: agent, description: "work", prompt: "do the task" } }] },
    { toolCalls: [{ toolName: "Write", input: { file_path: file, content: "x\n" } }] },
  ]);

describe("Codex custom agents (.codex/agents/<name>.toml): four of the round's repositories had them", () => {
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
