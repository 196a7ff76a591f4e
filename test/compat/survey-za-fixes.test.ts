/**
 * What the eleventh compat survey (docs/guide/compat-survey.md, "Round za") found ubiquity misreading
 * in real Codex files, run through the built bin with a scripted model in a temp project with its own
 * HOME. Fixtures: test/compat/fixtures/survey-za/SOURCE.md (decider/claude-hooks' hooks, MIT; the skills
 * are round z's MIT fixtures of openai/openai-agents-js; the Codex config and rules files are written here
 * in the shape the surveyed ones have, since those repositories publish no licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { STEPS_CONFIG } from "../helpers/scripted-project";

const SKILLS = fileURLToPath(new URL("./fixtures/survey-z/openai-agents-js/.agents/skills/", import.meta.url));
const FIXTURES = fileURLToPath(new URL("./fixtures/survey-za/", import.meta.url));

beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

/** The scripted model's turns: one tool call each. */
const calls = (...steps: [string, Record<string, unknown>][]) =>
  JSON.stringify(steps.map(([toolName, input]) => ({ toolCalls: [{ toolName, input }] })));

describe("Codex's [[skills.config]] and rules a run cannot read (one run)", () => {
  // GLaDO8/dotfiles' ~/.codex/config.toml turns 101 skills off with [[skills.config]] path = …, enabled = false;
  // the `skills` key was named as ignored and every one of them was offered to the model.
  // FanaHOVA/dot-files, Dbochman/dotfiles and nakatanakatana/dotfiles keep approvals Codex recorded as
  // prefix_rule(pattern = ["/bin/zsh", "-lc", "<a whole script>"]); the warning said only "not read".
  let run: Promise<{ code: number; stderr: string; lines: Record<string, unknown>[] }> | undefined;
  const shared = () => {
    run ??= (async () => {
      const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG }, { linkUbiquity: true });
      const home = join(dir, "home");
      const skills = join(home, ".agents", "skills");
      mkdirSync(skills, { recursive: true });
      cpSync(SKILLS, skills, { recursive: true });
      mkdirSync(join(home, ".codex", "rules"), { recursive: true });
      writeFileSync(
        join(home, ".codex", "config.toml"),
        [
          // By its SKILL.md's path (GLaDO8's form): off.
          "[[skills.config]]",
          `path = "${join(skills, "pr-draft-summary", "SKILL.md")}"`,
          "enabled = false",
          "",
          // By name, then on again by its folder: the later entry wins.
          "[[skills.config]]",
          'name = "implementation-kickoff"',
          "enabled = false",
          "",
          "[[skills.config]]",
          'path = "~/.agents/skills/implementation-kickoff"',
          "enabled = true",
          "",
        ].join("\n"),
      );
      writeFileSync(
        join(home, ".codex", "rules", "default.rules"),
        [
          'prefix_rule(pattern=["git", "add"], decision="allow")',
          'prefix_rule(pattern=["/bin/zsh", "-lc", "npm run build | tee build.log"], decision="allow")',
          "",
        ].join("\n"),
      );
      // A project's entries: Codex reads [[skills.config]] from the user's file alone.
      mkdirSync(join(dir, ".codex"));
      writeFileSync(
        join(dir, ".codex", "config.toml"),
        '[[skills.config]]\nname = "implementation-kickoff"\nenabled = false\n',
      );
      const log = join(dir, "model.log");
      writeFileSync(log, "");
      const out = await runCli(["run", "--compat", "codex", "--output-format", "stream-json", "-p", "draft"], dir, {
        HOME: home,
        UBQ_SESSIONS: join(dir, "sessions"),
        UBQ_LOG: log,
        UBQ_STEPS: calls(["Skill", { skill: "pr-draft-summary" }]),
      });
      const lines = out.stdout
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      return { code: out.code, stderr: out.stderr, lines };
    })();
    return run;
  };

  it("a skill [[skills.config]] turns off is not offered (not listed, not loadable); a later entry turns one on again", async () => {
    const { code, stderr, lines } = await shared();
    expect(code, stderr).toBe(0);
    const init = lines.find((l) => l.type === "system" && l.subtype === "init") as { extra: { skills: string[] } };
    expect(init.extra.skills).toContain("implementation-kickoff");
    expect(init.extra.skills).not.toContain("pr-draft-summary");
    const result = lines.find((l) => l.type === "tool_result" && l.toolName === "Skill") as {
      output: { content: string; isError: boolean };
    };
    expect(result.output.isError).toBe(true);
    expect(result.output.content).toContain('there is no skill named "pr-draft-summary"');
    // The table is read, so it is no longer among the keys named as ignored.
    expect(stderr).not.toContain("Codex keys ubiquity does not read were ignored: skills");
  });

  it("a project's [[skills.config]] is named as not applied (Codex reads the user's file alone)", async () => {
    const { stderr } = await shared();
    expect(stderr).toContain(
      ".codex/config.toml: its [[skills.config]] entries are not applied: Codex reads them from the user's ~/.codex/config.toml alone",
    );
  });

  it("a rule whose pattern word is a whole `zsh -lc` script is named with why it is not read", async () => {
    const { stderr } = await shared();
    expect(stderr).toContain(
      'default.rules: line 2 (a pattern word is not a plain word ("npm run build | tee build.log": it has spaces, quotes or shell characters',
    );
  });
});

describe("a Python hook in the project's hooks/ importing a module beside it (decider/claude-hooks)", () => {
  // Its .claude/settings.json runs `python3 hooks/universal-pre-tool.py`, which imports config_loader from
  // hooks/: Claude Code runs the script with its folder on Python's path; ubiquity's PYTHONSAFEPATH=1 leaves
  // that folder out (a sandboxed command could plant a module there), and the warning said only Python's
  // "No module named 'config_loader'", so the guard stopped guarding with nothing saying why or what to do.
  it("the failure names the folder left off the import path, why, and where to move the scripts", async () => {
    const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG }, { linkUbiquity: true });
    cpSync(join(FIXTURES, "claude-hooks"), dir, { recursive: true });
    const home = join(dir, "home");
    mkdirSync(home);
    const out = await runCli(["run", "--compat", "claude", "--permission-mode", "acceptEdits", "-p", "write"], dir, {
      HOME: home,
      UBQ_SESSIONS: join(dir, "sessions"),
      UBQ_STEPS: calls(["Write", { file_path: join(dir, "ok.py"), content: "x = 1\n" }]),
    });
    expect(out.code, out.stderr).toBe(0);
    const warning = out.stderr
      .split("\nwarning: ")
      .find((w) => w.includes('"python3 hooks/universal-pre-tool.py" failed'));
    expect(warning).toContain("No module named 'config_loader'");
    expect(warning).toContain(
      `config_loader is beside the hook's script, in ${join(dir, "hooks")}, but that folder is not on the hook's import path`,
    );
    expect(warning).toContain("Move the hook's scripts and their modules under .claude/hooks");
  });
});
