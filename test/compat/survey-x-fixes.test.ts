/**
 * What the eighth compat survey (docs/guide/compat-survey.md, "Round x") found ubiquity misreading in
 * real Claude Code files, run through the built bin with a scripted model in a temp project with its
 * own HOME. Fixtures: test/compat/fixtures/survey-x/ (SOURCE.md names each file's repository, commit
 * and licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempProjects, requireDist, runCli } from "../helpers/project";
import { stepsProject } from "../helpers/scripted-project";

const FIXTURES = fileURLToPath(new URL("./fixtures/survey-x/", import.meta.url));

beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

describe("allowed-tools with GitHub Copilot's server/* next to Claude Code's tools (dx-aem-flow: 37 of its skills)", () => {
  // easingthemes/dx-aem-flow writes its skills for Claude Code and Copilot CLI at once:
  // `allowed-tools: ["read", "edit", "search", "write", "agent", "ado/*"]`. In Claude Code `ado/*`
  // pre-approves nothing and the skill runs; here the whole `/dx-core:dx-help` was blocked ("is not a
  // permission rule"), though dropping the entry only grants less.
  it("the skill runs as a slash command, and the entry is named with its file as pre-approving nothing", async () => {
    const p = stepsProject();
    const out = await runCli(
      [
        "run",
        "--compat",
        "claude",
        "--plugin-dir",
        join(FIXTURES, "dxcore"),
        "-p",
        "/dx-core:dx-help how are components registered?",
      ],
      p.dir,
      p.env,
    );
    expect(out.code, out.stderr).toBe(0);
    expect(p.requests()[0]).toContain("You answer developer questions about the project");
    expect(p.requests()[0]).toContain("how are components registered?");
    expect(out.stderr).toMatch(/dx-help\/SKILL\.md\) allowed-tools: "ado\/\*" pre-approves nothing/);
    expect(out.stderr).toContain("an MCP server's tools are written mcp__<server>__*");
    // Copilot's lower-case names are rules that match no tool (names are case-sensitive): said, with the tool meant.
    expect(out.stderr).toMatch(
      /allowed-tools: "read" names no tool of this run, so it pre-approves nothing: did you mean "Read"\?/,
    );
    expect(out.stderr).toMatch(/allowed-tools: "edit" names no tool of this run.*did you mean "Edit"\?/);
  });

  it("the entries that are permission rules still pre-approve their calls", async () => {
    // A command written the same way (modelled on dx-aem-flow's, which pre-approve only Copilot's
    // lower-case names): its Bash(touch:*) runs without asking, where -p cannot ask.
    const p = stepsProject();
    mkdirSync(join(p.dir, ".claude", "commands"), { recursive: true });
    writeFileSync(
      join(p.dir, ".claude", "commands", "mark.md"),
      '---\ndescription: Mark the folder\nallowed-tools: ["Bash(touch:*)", "ado/*"]\n---\nMark the folder.\n',
    );
    const steps = [{ toolCalls: [{ toolName: "Bash", input: { command: "touch marked.txt" } }] }];
    const out = await runCli(["run", "--compat", "claude", "-p", "/mark"], p.dir, {
      ...p.env,
      UBQ_STEPS: JSON.stringify(steps),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain('allowed-tools: "ado/*" pre-approves nothing');
    expect(existsSync(join(p.dir, "marked.txt")), p.requests()[1]).toBe(true);
  });
});

describe("a command file and a skill of the same name in .claude (OnePromptClaudeCode: 67 pairs)", () => {
  // Claude Code: "if a skill and a command share the same name, the skill takes precedence"
  // (`.claude/commands/deploy.md` and `.claude/skills/deploy/SKILL.md`: `/deploy` runs the skill).
  // Edward-H26/OnePromptClaudeCode keeps a one-line command beside each skill; `/code-refactor` ran the
  // command here, and the skill's own text never reached the model.
  it("/name runs the skill", async () => {
    const p = stepsProject();
    cpSync(join(FIXTURES, "edward", ".claude"), join(p.dir, ".claude"), { recursive: true });
    const out = await runCli(["run", "--compat", "claude", "-p", "/code-refactor rename foo to bar"], p.dir, p.env);
    expect(out.code, out.stderr).toBe(0);
    const sent = p.requests()[0]!;
    expect(sent).toContain("Systematic code refactoring across files using Grep + Edit");
    expect(sent).toContain("rename foo to bar");
    expect(sent).not.toContain("Invoke the `code-refactor` skill");
  });
});

describe("a user's hook whose script is not there (FradSer/dotfiles: Stop runs $HOME/.claude/consolidate-memory.sh)", () => {
  // A hook naming a file of the home folder that does not exist failed with "No such file or
  // directory", and the warning blamed the sandbox ("shows of the home folder only toolchains and
  // caches: … add the folder to sandbox.filesystem.allowWrite, or run without the sandbox"): the
  // script is not there, sandbox or not.
  it("is named as failing, without sending the user to the sandbox's settings", async () => {
    const p = stepsProject();
    mkdirSync(join(p.home, ".claude"), { recursive: true });
    writeFileSync(
      join(p.home, ".claude", "settings.json"),
      JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: "command", command: "$HOME/.claude/consolidate-memory.sh" }] }] },
      }),
    );
    const out = await runCli(["run", "--compat", "claude", "-p", "hello"], p.dir, p.env);
    expect(out.code, out.stderr).toBe(0);
    const warning = out.stderr.split("\n").find((line) => line.includes("consolidate-memory.sh")) ?? "";
    expect(warning).toContain("Stop hook command");
    expect(warning).toContain("No such file or directory");
    expect(warning).not.toContain("OS sandbox");
  });
});
