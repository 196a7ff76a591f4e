/**
 * What the second compat survey (docs/guide/compat-survey.md, "Round r") found ubiquity misreading
 * in real Claude Code files, loaded through the real loaders and, where a user would see it, run
 * through the built bin with a scripted model in a temp project with its own HOME. Fixtures:
 * test/fixtures/compat/survey-r/ (SOURCE.md names each file's repository, commit and licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadCommands } from "../../plugins/commands/load";
import { readFileHooks } from "../../plugins/hooks/settings-hooks";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

const FIXTURES = fileURLToPath(new URL("../fixtures/compat/survey-r/", import.meta.url));

// A scripted model that answers every request "done" (plain JavaScript: no jiti Babel per project).
const CONFIG = `
import { scriptedModel } from "ubiquity/testing";
export default {
  sessionDir: process.env.UBQ_SESSIONS,
  todoDir: process.env.UBQ_SESSIONS + "-todos",
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(() => "done"),
};
`;

// The frontmatter of disler/claude-code-hooks-mastery's plan_w_team.md (a repository without a
// licence, so written here): a command with its own hooks, as Claude Code's commands may have.
const COMMAND_WITH_HOOKS = `---
description: Plan with a team
argument-hint: [user prompt]
model: opus
hooks:
  Stop:
    - hooks:
        - type: command
          command: echo validated
---
Plan this: $ARGUMENTS
`;

let dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "ubq-survey-r-"));
  dirs.push(dir);
  return dir;
};

beforeAll(() => requireDist());
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
  removeTempProjects();
});

describe("a command file's Claude Code fields ubiquity has no equivalent for", () => {
  it("are named in a warning, and the command still loads (they were dropped in silence)", async () => {
    const root = join(scratch(), ".claude", "commands");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "plan_w_team.md"), COMMAND_WITH_HOOKS);
    writeFileSync(join(root, "fork.md"), "---\ndescription: d\ncontext: fork\nagent: Explore\n---\nbody\n");
    const reports: string[] = [];
    const commands = await loadCommands([{ path: root, source: "project", claude: true }], (m) => reports.push(m));
    expect(commands.map((c) => c.name).sort()).toEqual(["fork", "plan_w_team"]);
    expect(reports).toHaveLength(2);
    expect(reports.find((r) => r.includes("plan_w_team.md"))).toMatch(
      /hooks \(hooks scoped to the command do not run\): Claude Code field ubiquity does not apply/,
    );
    expect(reports.find((r) => r.includes("fork.md"))).toMatch(/context \(.*\), agent \(.*\): Claude Code fields/);
  });

  it("a command without them is loaded without a word", async () => {
    const root = join(scratch(), "commands");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "plain.md"), "---\ndescription: d\nallowed-tools: Read\n---\nbody\n");
    const reports: string[] = [];
    await loadCommands([{ path: root, source: "project", claude: true }], (m) => reports.push(m));
    expect(reports).toEqual([]);
  });

  it("`ubiquity run --compat claude /plan_w_team …` warns that the command's hooks do not run, and runs it", async () => {
    const dir = tempProject(
      { "ubiquity.config.mjs": CONFIG, ".claude/commands/plan_w_team.md": COMMAND_WITH_HOOKS },
      { linkUbiquity: true },
    );
    const home = join(dir, "home");
    mkdirSync(home);
    const out = await runCli(["run", "--compat", "claude", "-p", "/plan_w_team a todo app"], dir, {
      HOME: home,
      UBQ_SESSIONS: join(dir, "sessions"),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("done");
    expect(out.stderr).toMatch(/plan_w_team\.md: hooks \(hooks scoped to the command do not run\)/);
  });
});

describe("claude-code-best-practice's settings.json: the MessageDisplay event", () => {
  const settings = join(FIXTURES, "claude-code-best-practice/.claude/settings.json");

  it("is noted as a Claude Code event ubiquity does not fire, not reported as an unknown name; the file's other hooks apply", () => {
    const data = JSON.parse(readFileSync(settings, "utf8")) as { hooks: Record<string, unknown> };
    const reports: string[] = [];
    const notes: [string, string][] = [];
    const hooks = readFileHooks(data.hooks, (m) => reports.push(m), "project", (e, m) => notes.push([e, m]));
    expect(reports.filter((r) => r.includes("MessageDisplay"))).toEqual([]);
    const note = notes.find(([event]) => event === "MessageDisplay");
    expect(note?.[1]).toMatch(/Claude Code hook event "MessageDisplay" is not fired by ubiquity \(.+\)/);
    expect(Object.keys(hooks)).toContain("PreToolUse");
  });

  it("a run with the file warns once, naming the event as Claude Code's", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": CONFIG }, { linkUbiquity: true });
    cpSync(join(FIXTURES, "claude-code-best-practice/.claude"), join(dir, ".claude"), { recursive: true });
    const home = join(dir, "home");
    mkdirSync(home);
    // The file's hooks call a script the fixture does not carry: they fail, which is beside the point here.
    const out = await runCli(["run", "--compat", "claude", "--no-sandbox", "-p", "hello"], dir, {
      HOME: home,
      UBQ_SESSIONS: join(dir, "sessions"),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/Claude Code hook event "MessageDisplay" is not fired by ubiquity/);
    expect(out.stderr).not.toMatch(/"MessageDisplay" is not one ubiquity fires/);
  });
});
