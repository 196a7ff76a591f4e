/**
 * What the seventh compat survey (docs/guide/compat-survey.md, "Round w") found ubiquity misreading in
 * real Claude Code and Codex files, run through the built bin with a scripted model in a temp project
 * with its own HOME. Fixtures: test/compat/fixtures/survey-w/ (SOURCE.md names each file's repository,
 * commit and licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempProjects, requireDist, runCli } from "../helpers/project";
import { stepsProject } from "../helpers/scripted-project";

const FIXTURES = fileURLToPath(new URL("./fixtures/survey-w/", import.meta.url));

beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

/** Scripted turns: one tool call each, then "done". */
const calls = (...steps: [string, Record<string, unknown>][]) =>
  JSON.stringify(steps.map(([toolName, input]) => ({ toolCalls: [{ toolName, input }] })));

describe("Codex skills in ~/.codex/skills and a project's .codex/skills (85 indexed repositories have the folder)", () => {
  // Codex's first place for skills ($CODEX_HOME/skills; a repository's .codex/skills), still read next to
  // .agents/skills: ubiquity read only .agents/skills, so lalitkapoor/dotfiles' skills were not there,
  // and nothing said so.
  it("the user's are skills under --compat codex: listed, and the Skill tool runs one", async () => {
    const p = stepsProject();
    cpSync(join(FIXTURES, "ccsdd", ".codex"), join(p.home, ".codex"), { recursive: true });
    const out = await runCli(["run", "--compat", "codex", "-p", "go"], p.dir, {
      ...p.env,
      UBQ_STEPS: calls(["Skill", { skill: "cc-sdd-new-agent" }]),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(p.requests()[1]).toContain("CC-SDD New Agent Integration");
  });

  it("a project's are read in a trusted folder, and not under --compat claude", async () => {
    const p = stepsProject();
    cpSync(join(FIXTURES, "ccsdd", ".codex"), join(p.dir, ".codex"), { recursive: true });
    const steps = calls(["Skill", { skill: "cc-sdd-new-agent" }]);
    const codex = await runCli(["run", "--compat", "codex", "-p", "go"], p.dir, { ...p.env, UBQ_STEPS: steps });
    expect(codex.code, codex.stderr).toBe(0);
    expect(p.requests()[1]).toContain("CC-SDD New Agent Integration");
    writeFileSync(join(p.dir, "model.log"), "");
    const claude = await runCli(["run", "--compat", "claude", "-p", "go"], p.dir, { ...p.env, UBQ_STEPS: steps });
    expect(claude.code, claude.stderr).toBe(0);
    expect(p.requests()[1]).not.toContain("CC-SDD New Agent Integration");
  });
});

describe("Codex skills in a project that is not trusted for them", () => {
  // A skill's allowed-tools are granted when it runs: a project's .codex/skills applies only where its
  // other files do, as .agents/skills (the trust pins cover it, and `ubiquity trust .` lists it).
  it("one added after the folder was trusted is not read", async () => {
    const p = stepsProject();
    const untrusted = { ...p.env, UBIQUITY_TRUST: "" };
    const trust = await runCli(["trust", ".", "--compat", "codex"], p.dir, untrusted);
    expect(trust.code, trust.stderr).toBe(0);
    cpSync(join(FIXTURES, "ccsdd", ".codex"), join(p.dir, ".codex"), { recursive: true });
    const out = await runCli(["run", "--compat", "codex", "-p", "go"], p.dir, {
      ...untrusted,
      UBQ_STEPS: calls(["Skill", { skill: "cc-sdd-new-agent" }]),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(p.requests().join("\n")).not.toContain("CC-SDD New Agent Integration");
    // Trusting the folder again lists it among the files it approves.
    const again = await runCli(["trust", ".", "--compat", "codex"], p.dir, untrusted);
    expect(again.stdout).toContain(".codex/skills");
  });
});

describe("a plugin.json whose skills list names SKILL.md files (0xrdan/claude-router lists its eleven so)", () => {
  // Each entry was read as a folder of skills: "…/SKILL.md is not a folder" eleven times at every run,
  // though the skills loaded from skills/.
  it("each entry is its skill: loaded once, no warning about the paths", async () => {
    const p = stepsProject();
    const out = await runCli(
      ["run", "--compat", "claude", "--plugin-dir", join(FIXTURES, "router"), "-p", "go"],
      p.dir,
      {
        ...p.env,
        UBQ_STEPS: calls(["Skill", { skill: "claude-router:route" }]),
      },
    );
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).not.toContain("is not a folder");
    // orchestrate sets `context: fork`: said once, not once for skills/ and again for its own entry.
    expect(out.stderr.split("skills/orchestrate/SKILL.md: context").length - 1).toBe(1);
    expect(p.requests()[1]).toContain("Manual Model Router");
  });
});

describe("Codex command rules (~/.codex/rules/*.rules): 0maru/dotfiles forbids git reset --hard and force pushes", () => {
  // Codex applies prefix_rule(pattern, decision) to every command; ubiquity did not read the files, so a
  // run did what Codex refuses (and asked for what Codex allows), with nothing said.
  const gitProject = () => {
    const p = stepsProject();
    execGit(p.dir);
    return p;
  };
  const results = (p: ReturnType<typeof stepsProject>) => p.requests().slice(1).join("\n");

  it("the user's forbidden rules deny, its allow rules allow", async () => {
    const p = gitProject();
    cpSync(join(FIXTURES, "maru", ".codex"), join(p.home, ".codex"), { recursive: true });
    const out = await runCli(["run", "--compat", "codex", "-p", "go"], p.dir, {
      ...p.env,
      UBQ_STEPS: calls(
        ["Bash", { command: "git reset --hard" }],
        ["Bash", { command: "git push -f origin main" }],
        ["Bash", { command: "git status --short" }],
      ),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(results(p)).toContain("the rule Bash(git reset --hard:*)");
    // -f is --force to the engine: the first of the pattern's alternatives names it.
    expect(results(p)).toContain("forbids this (git push -f origin main");
    // Allowed by `prefix_rule(pattern = ["git", "status"], decision = "allow")`, not asked (and so denied) for.
    expect(results(p)).not.toContain("Bash needs approval");
    expect(results(p)).toContain("ubiquity.config.mjs");
  });

  it("a project's forbidden rules deny even untrusted; its allow rules are named as not applied", async () => {
    const p = gitProject();
    // Trusted before the rules came (the scripted config is one of its files): they are new, so untrusted.
    const untrusted = { ...p.env, UBIQUITY_TRUST: "" };
    const trust = await runCli(["trust", ".", "--compat", "codex"], p.dir, untrusted);
    expect(trust.code, trust.stderr).toBe(0);
    cpSync(join(FIXTURES, "maru", ".codex"), join(p.dir, ".codex"), { recursive: true });
    const out = await runCli(["run", "--compat", "codex", "-p", "go"], p.dir, {
      ...untrusted,
      UBQ_STEPS: calls(["Bash", { command: "git reset --hard" }]),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(results(p)).toContain("the rule Bash(git reset --hard:*)");
    expect(out.stderr).toContain(
      `Codex rules file ${join(p.dir, ".codex", "rules", "git.rules")}: its 14 allow rules are not applied`,
    );
  });

  it("a rules file that cannot be read stops the run naming it (its deny rules are never dropped)", async () => {
    const p = stepsProject();
    mkdirSync(join(p.home, ".codex", "rules"), { recursive: true });
    writeFileSync(
      join(p.home, ".codex", "rules", "bad.rules"),
      'prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden"\n',
    );
    const out = await runCli(["run", "--compat", "codex", "-p", "go"], p.dir, p.env);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(join(p.home, ".codex", "rules", "bad.rules"));
  });
});

describe("an agent file's allowed-tools (a skill and command field; agents name theirs with tools:)", () => {
  // Three of Chemaclass/laravel-claude-toolkit's agents (no licence: not copied; this file is written
  // after its explorer.md) limit a read-only agent with `allowed_tools:`, which Claude Code ignores in an
  // agent: the agent got every tool, and nothing said so.
  it("is named with the file, and the agent still loads", async () => {
    const p = stepsProject();
    const agents = join(p.dir, ".claude", "agents");
    mkdirSync(agents, { recursive: true });
    writeFileSync(
      join(agents, "explorer.md"),
      "---\nname: explorer\nmodel: haiku\ndescription: Fast read-only codebase exploration\nallowed_tools:\n  - Read\n  - Bash(find:*)\n---\n\nExplore the code base.\n",
    );
    const out = await runCli(["run", "--compat", "claude", "-p", "go"], p.dir, {
      ...p.env,
      UBQ_STEPS: calls(["Agent", { subagent_type: "explorer", description: "look", prompt: "look around" }]),
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain(
      `agent file ${join(agents, "explorer.md")}: allowed_tools is a field of skills and commands, not of agents`,
    );
    expect(p.requests()[1]).toContain("Explore the code base.");
  });
});

describe('a hook matcher written as a permission rule (Chemaclass\' PostToolUse "Bash(git commit*)")', () => {
  // A matcher selects tool names; read as a regular expression, `Bash(git commit*)` selects none, in Claude
  // Code too: the hook never ran, and nothing said so. (The settings below are written after Chemaclass/
  // laravel-claude-toolkit's, which has no licence.)
  it("is named with the file and the form that runs; the rule in `if` runs the hook", async () => {
    const p = stepsProject();
    execGit(p.dir);
    mkdirSync(join(p.dir, ".claude"));
    const settings = join(p.dir, ".claude", "settings.json");
    const hook = (file: string) => ({ type: "command", command: `echo ran > ${file}` });
    writeFileSync(
      settings,
      JSON.stringify({
        hooks: {
          PostToolUse: [
            { matcher: "Bash(git commit*)", hooks: [hook("as-matcher.txt")] },
            { matcher: "Bash", hooks: [{ ...hook("as-if.txt"), if: "Bash(git commit*)" }] },
          ],
        },
      }),
    );
    const out = await runCli(
      ["run", "--compat", "claude", "--permission-mode", "bypassPermissions", "-p", "go"],
      p.dir,
      {
        ...p.env,
        UBQ_STEPS: calls(["Bash", { command: "git commit -q --allow-empty -m second" }]),
      },
    );
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain(
      `${settings}: the PostToolUse matcher "Bash(git commit*)" is written as a permission rule, but a matcher selects tool names`,
    );
    expect(existsSync(join(p.dir, "as-matcher.txt"))).toBe(false);
    expect(existsSync(join(p.dir, "as-if.txt")), p.requests().at(-1)?.slice(-600)).toBe(true);
  });
});

/** A git repository with one commit, so git commands have something to act on. */
function execGit(dir: string) {
  const run = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    });
  run("init", "-q");
  run("config", "user.name", "t");
  run("config", "user.email", "t@t");
  run("commit", "-q", "--allow-empty", "-m", "init");
}
