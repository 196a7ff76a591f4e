/**
 * What the thirteenth compat survey (docs/guide/compat-survey.md, "Round zc") found ubiquity doing
 * wrong with real Claude Code and Codex files, run through the built bin with a scripted model in a
 * temp project with its own HOME. Fixtures: test/compat/fixtures/survey-zc/SOURCE.md.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { STEPS_CONFIG } from "../helpers/scripted-project";

const fixtures = join(import.meta.dirname, "fixtures", "survey-zc");
const scratch: string[] = [];

beforeAll(() => requireDist());
afterAll(() => {
  removeTempProjects();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/**
 * A scripted model that runs `true` in Bash twice; before asking for the second call it writes
 * $UBQ_OTHER (in the host process, not the sandbox): another program's file appearing in the
 * shared folder while the run goes on.
 */
const CONFIG = `
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { scriptedModel } from "ubiquity/testing";
const bash = { toolCalls: [{ toolName: "Bash", input: { command: "true" } }] };
let next = 0;
export default {
  sessionDir: process.env.UBQ_SESSIONS,
  todoDir: process.env.UBQ_SESSIONS + "-todos",
  marketPricing: false,
  maxRetries: 0,
  model: scriptedModel(() => {
    next++;
    if (next === 2) {
      mkdirSync(dirname(process.env.UBQ_OTHER), { recursive: true });
      writeFileSync(process.env.UBQ_OTHER, "SECRET=1\\n");
    }
    return next <= 2 ? bash : "done";
  }),
};
`;

describe("a project's additionalDirectories naming /tmp (0xGosu/herdr-auto-pilot's .claude/settings.json)", () => {
  // Its settings grant `/tmp/` (and `~/.claude/`). The sandbox made the folder writable and its
  // workspace guard swept it, so a `.env` any other program wrote in /tmp during the run (another
  // user's test workspace, here) was taken for the sandbox's and moved into ~/.ubiquity/sandbox-removed.
  it("another program's new file in the shared folder stays where it is; the warning names the folder", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": CONFIG }, { linkUbiquity: true });
    // A sticky folder every user writes, in /tmp's place: the test never touches the machine's /tmp.
    const shared = mkdtempSync(join(tmpdir(), "ubq-zc-shared-"));
    scratch.push(shared);
    chmodSync(shared, 0o1777);
    const settings = readFileSync(join(fixtures, "herdr-auto-pilot", "settings.json"), "utf8");
    expect(settings).toContain('"/tmp/"');
    mkdirSync(join(dir, ".claude"));
    writeFileSync(join(dir, ".claude", "settings.json"), settings.replace('"/tmp/"', JSON.stringify(`${shared}/`)));
    const home = join(dir, "home");
    mkdirSync(join(home, ".claude"), { recursive: true });
    const other = join(shared, "other-workspace", ".env");
    const args = [
      "run",
      "--compat",
      "claude",
      "--permission-mode",
      "bypassPermissions",
      "--output-format",
      "stream-json",
    ];
    const { code, stderr, stdout } = await runCli([...args, "-p", "x"], dir, {
      HOME: home,
      UBQ_SESSIONS: join(dir, "sessions"),
      UBQ_OTHER: other,
    });
    expect(code, stderr).toBe(0);
    // Both Bash calls were sandboxed spawns, so the guard swept before and after each.
    const results = stdout.split("\n").filter((l) => l.includes('"type":"tool_result"'));
    expect(results, stdout).toHaveLength(2);
    expect(existsSync(other), results[1]).toBe(true);
    expect(readFileSync(other, "utf8")).toBe("SECRET=1\n");
    expect(existsSync(join(home, ".ubiquity", "sandbox-removed"))).toBe(false);
    for (const r of results) expect(JSON.parse(r).output.isError, r).toBe(false);
    const warning = stderr.split("\nwarning: ").find((w) => w.includes(`the additional folder ${shared}`));
    expect(warning, stderr).toContain("a scratch folder every program on the machine writes");
    expect(warning).toContain("name a folder of your own inside it");
  });
});

describe("a PreToolUse hook that asks, with a reason (nguyenvinhky/claude-code-power-commands' Bash guard)", () => {
  // Its guard answers `permissionDecision: "ask"` with `permissionDecisionReason: "Potentially destructive
  // command detected — please confirm"` for `DROP TABLE`, `git reset --hard`, …: Claude Code shows the
  // reason where it asks. Here the ask said only "A PreToolUse hook asks for approval of Bash.", the
  // reason dropped. The repository publishes no licence: the hook is written in its shape.
  it("the approval asked for (denied in -p) names the hook's reason, and the command does not run", async () => {
    const answer = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: "Potentially destructive command detected — please confirm",
      },
    });
    const guard = `grep -q 'DROP' && printf '%s' '${answer}' || printf '{}'`;
    const settings = { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }] } };
    const dir = tempProject(
      { "ubiquity.config.mjs": STEPS_CONFIG, ".claude/settings.json": JSON.stringify(settings) },
      { linkUbiquity: true },
    );
    const home = join(dir, "home");
    mkdirSync(home);
    const steps = [{ toolCalls: [{ toolName: "Bash", input: { command: "echo DROP TABLE users > dropped.txt" } }] }];
    const args = [
      "run",
      "--compat",
      "claude",
      "--permission-mode",
      "bypassPermissions",
      "--output-format",
      "stream-json",
    ];
    const { code, stderr, stdout } = await runCli([...args, "-p", "x"], dir, {
      HOME: home,
      UBQ_SESSIONS: join(dir, "sessions"),
      UBQ_STEPS: JSON.stringify(steps),
    });
    expect(code, stderr).toBe(0);
    const result = stdout.split("\n").find((l) => l.includes('"type":"tool_result"'));
    const output = (JSON.parse(result ?? "{}") as { output?: { content: string; isError: boolean } }).output;
    expect(output?.isError, result).toBe(true);
    expect(output?.content).toContain(
      'A PreToolUse hook asks for approval of Bash: "Potentially destructive command detected — please confirm".',
    );
    expect(existsSync(join(dir, "dropped.txt"))).toBe(false);
  });
});
