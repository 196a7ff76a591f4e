/**
 * What the fourth compat survey (docs/guide/compat-survey.md, "Round t") found ubiquity misreading in
 * real Claude Code files, run through the built bin with a scripted model in a temp project with its
 * own HOME, and through the hooks plugin in process. Fixtures: test/fixtures/compat/survey-t/
 * (SOURCE.md names each file's repository, commit and licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readFileHooks } from "../../plugins/hooks/settings-hooks";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { STEPS_CONFIG } from "../helpers/scripted-project";
import { inTerminal } from "../helpers/terminal";

const FIXTURES = fileURLToPath(new URL("../fixtures/compat/survey-t/", import.meta.url));

beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

function notesOf(hooks: unknown) {
  const reports: string[] = [];
  const notes: [string, string][] = [];
  const read = readFileHooks(
    hooks,
    (m) => reports.push(m),
    "project",
    (e, m) => notes.push([e, m]),
  );
  return { read, reports, notes };
}
const hooksOf = (fixture: string) =>
  (JSON.parse(readFileSync(join(FIXTURES, fixture, "hooks/hooks.json"), "utf8")) as { hooks: unknown }).hooks;

describe("hooks whose matcher names only Claude Code's plan-mode tools (plannotator, prompt-improver)", () => {
  // Claude Code's model leaves plan mode by calling ExitPlanMode (and enters it by EnterPlanMode);
  // ubiquity's plan mode is a permission mode with no such tool, so these hooks never ran, without a word.
  it("plannotator: its PermissionRequest hook for ExitPlanMode is noted as never running", () => {
    const { read, reports, notes } = notesOf(hooksOf("plannotator"));
    expect(reports).toEqual([]);
    expect(notes).toHaveLength(1);
    expect(notes[0]![1]).toMatch(
      /PermissionRequest hooks for "ExitPlanMode" never run: ubiquity has no ExitPlanMode tool/,
    );
    // Still loaded as written: nothing else changes.
    expect(read.PermissionRequest?.map((g) => g.matcher)).toEqual(["ExitPlanMode"]);
  });

  it("prompt-improver: its EnterPlanMode group is noted; its UserPromptSubmit hook is not", () => {
    const { read, notes } = notesOf(hooksOf("prompt-improver"));
    expect(notes.map(([, m]) => m)).toEqual([expect.stringMatching(/PreToolUse hooks for "EnterPlanMode" never run/)]);
    expect(Object.keys(read).sort()).toEqual(["PreToolUse", "UserPromptSubmit"]);
  });

  it("a matcher that also names a tool ubiquity has, or is a pattern, is not noted", () => {
    for (const matcher of ["ExitPlanMode|Bash", "Exit.*", "", "*", "Edit|Write"])
      expect(notesOf({ PreToolUse: [{ matcher, hooks: [{ type: "command", command: "true" }] }] }).notes).toEqual([]);
    // Not a tool event: a matcher there is no tool name.
    expect(
      notesOf({ SessionStart: [{ matcher: "ExitPlanMode", hooks: [{ type: "command", command: "true" }] }] }).notes,
    ).toEqual([]);
  });

  it("a run with plannotator's plugin (--plugin-dir) says so once, and runs", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG }, { linkUbiquity: true });
    const home = join(dir, "home");
    mkdirSync(home);
    const out = await runCli(
      ["run", "--compat", "claude", "--plugin-dir", join(FIXTURES, "plannotator"), "-p", "plan it"],
      dir,
      { HOME: home, UBQ_SESSIONS: join(dir, "sessions") },
    );
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr.match(/"ExitPlanMode" never run: ubiquity has no ExitPlanMode tool/g)).toHaveLength(1);
  });
});

describe("a hook that reads the project's .env in the sandbox (disler's hooks: `load_dotenv()` first)", () => {
  // The sandbox keeps .env files unreadable to the commands it runs, hooks included; Claude Code runs
  // hooks unsandboxed. disler's five Python hooks each failed with only a traceback ending in
  // "PermissionError: … Permission denied: '<project>/.env'", which named nothing ubiquity did.
  // (disler's repository has no licence: the hook here is written to do what its scripts do first.)
  const HOOK = `python3 -c "open('.env').read()"`;
  function project(config = STEPS_CONFIG) {
    const dir = tempProject({ "ubiquity.config.mjs": config }, { linkUbiquity: true });
    mkdirSync(join(dir, ".claude"));
    writeFileSync(
      join(dir, ".claude", "settings.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: HOOK }] }] } }),
    );
    writeFileSync(join(dir, ".env"), "API_KEY=plum-4417\n");
    mkdirSync(join(dir, "home"));
    return dir;
  }
  const run = (dir: string) =>
    runCli(["run", "--compat", "claude", "-p", "hello"], dir, {
      HOME: join(dir, "home"),
      UBQ_SESSIONS: join(dir, "sessions"),
    });

  it("its failure names the sandbox, the file it keeps unreadable and the way to let hooks read it", async () => {
    const dir = project();
    const out = await run(dir);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain("UserPromptSubmit hook command");
    expect(out.stderr).toContain(`the hook ran in the OS sandbox, which keeps ${join(dir, ".env")} unreadable`);
    expect(out.stderr).toContain(`sandbox.filesystem.allowRead (["${join(dir, ".env")}"])`);
    // The secret itself is never printed.
    expect(out.stderr).not.toContain("plum-4417");
  });

  it("the way named works: with the file in sandbox.filesystem.allowRead the hook reads it and nothing fails", async () => {
    const dir = project();
    writeFileSync(
      join(dir, "ubiquity.config.mjs"),
      STEPS_CONFIG.replace(
        "maxRetries: 0,",
        `maxRetries: 0, sandbox: { filesystem: { allowRead: [${JSON.stringify(join(dir, ".env"))}] } },`,
      ),
    );
    const out = await run(dir);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).not.toContain("UserPromptSubmit hook command");
  });
});

describe('Claude Code allow rules that are no rules (diet103\'s `"Bash:*"`, `"Edit:*"`)', () => {
  // Claude Code skips such a rule (older versions matched nothing with it) and loads the rest of the
  // file; ubiquity stopped the run on the first one, so none of the file's hooks, rules or mode applied.
  const steps = [
    { toolCalls: [{ toolName: "Bash", input: { command: "ls" } }] },
    { toolCalls: [{ toolName: "Write", input: { file_path: "a.txt", content: "x" } }] },
  ];
  function project(settings: string) {
    const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG }, { linkUbiquity: true });
    mkdirSync(join(dir, ".claude"));
    writeFileSync(join(dir, ".claude", "settings.json"), settings);
    mkdirSync(join(dir, "home"));
    return dir;
  }
  const run = (dir: string) =>
    runCli(["run", "--compat", "claude", "-p", "list and write"], dir, {
      HOME: join(dir, "home"),
      UBQ_SESSIONS: join(dir, "sessions"),
      UBQ_STEPS: JSON.stringify(steps),
      UBQ_LOG: join(dir, "log.jsonl"),
    });

  it("diet103: the five are skipped, each named; the file's defaultMode (acceptEdits) applies and `Bash:*` allows nothing", async () => {
    const dir = project(readFileSync(join(FIXTURES, "diet103/.claude/settings.json"), "utf8"));
    const out = await run(dir);
    expect(out.code, out.stderr).toBe(0);
    for (const rule of ["Edit:*", "Write:*", "MultiEdit:*", "NotebookEdit:*", "Bash:*"])
      expect(out.stderr).toContain(`permissions.allow "${rule}" (not a permission rule, so it allows nothing`);
    // `Bash:*` allowed nothing: the `ls` was refused for want of an allow rule (-p cannot ask).
    const requests = readFileSync(join(dir, "log.jsonl"), "utf8").split("\n").filter(Boolean);
    expect(requests[1]).toContain("Bash needs approval: it is not pre-approved (permission mode acceptEdits)");
    // acceptEdits from the same file: the Write ran without asking.
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("x");
    // Its hooks are read too (their scripts are committed without the executable bit, as in Claude Code they fail).
    expect(out.stderr).toContain("Stop hook command");
  });

  it("fail closed: a deny rule that is no rule still stops the run, naming the file and the rule", async () => {
    const dir = project(JSON.stringify({ permissions: { deny: ["Bash:*"] } }));
    const out = await run(dir);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('"Bash:*" is not a permission rule');
    expect(out.stderr).toContain("fix the rule or remove it");
  });
});

describe("a hook's systemMessage with escape sequences, to a terminal (claude-never-forgets: `\\033[1;97m🧠 …\\033[0m`)", () => {
  // What the model or a program writes reaches a terminal with its control characters shown; a
  // warning carrying a hook's systemMessage (or its stderr) went to stderr as written, so a plugin's
  // hook could set the clipboard (OSC 52) or retitle the window. Under a real pseudo-terminal.
  it("its escapes are shown, none is sent", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG }, { linkUbiquity: true });
    mkdirSync(join(dir, ".claude"));
    // A hand-written hook beside the real plugin: a systemMessage that would set the clipboard.
    writeFileSync(
      join(dir, ".claude", "settings.json"),
      JSON.stringify({
        hooks: {
          SessionStart: [
            {
              hooks: [
                { type: "command", command: `printf '{"systemMessage":"copy\\\\u001b]52;c;ZXZpbA==\\\\u0007 me"}'` },
              ],
            },
          ],
        },
      }),
    );
    mkdirSync(join(dir, "home"));
    const { code, screen } = await inTerminal(
      dir,
      ["run", "--compat", "claude", "--plugin-dir", join(FIXTURES, "claude-never-forgets"), "-p", "hello"],
      { HOME: join(dir, "home"), UBQ_SESSIONS: join(dir, "sessions") },
      [],
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain("SessionStart hook: \\x1b[1;97m🧠 Claude Never Forgets: Ready to learn.\\x1b[0m");
    expect(screen).toContain("SessionStart hook: copy\\x1b]52;c;ZXZpbA==\\x07 me");
    expect(screen).not.toContain("\u001b]52");
    expect(screen).not.toContain("\u001b[1;97m");
  });

  it("to a pipe: the warning as the hook wrote it (a program reading it decides)", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG }, { linkUbiquity: true });
    mkdirSync(join(dir, "home"));
    const out = await runCli(
      ["run", "--compat", "claude", "--plugin-dir", join(FIXTURES, "claude-never-forgets"), "-p", "hello"],
      dir,
      { HOME: join(dir, "home"), UBQ_SESSIONS: join(dir, "sessions") },
    );
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain("\u001b[1;97m🧠 Claude Never Forgets: Ready to learn.");
  });
});
