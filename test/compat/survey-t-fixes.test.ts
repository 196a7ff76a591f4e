/**
 * What the fourth compat survey (docs/guide/compat-survey.md, "Round t") found ubiquity misreading in
 * real Claude Code files, run through the built bin with a scripted model in a temp project with its
 * own HOME, and through the hooks plugin in process. Fixtures: test/fixtures/compat/survey-t/
 * (SOURCE.md names each file's repository, commit and licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readFileHooks } from "../../plugins/hooks/settings-hooks";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { STEPS_CONFIG } from "../helpers/scripted-project";

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
