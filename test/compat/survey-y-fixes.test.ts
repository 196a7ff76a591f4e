/**
 * What the ninth compat survey (docs/guide/compat-survey.md, "Round y") found ubiquity misreading in
 * real Claude Code and Codex files, run through the built bin with a scripted model in a temp project
 * with its own HOME. Fixtures: test/compat/fixtures/survey-y/ (SOURCE.md names each file's repository,
 * commit and licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempProjects, requireDist, runCli } from "../helpers/project";
import { stepsProject } from "../helpers/scripted-project";

const FIXTURES = fileURLToPath(new URL("./fixtures/survey-y/", import.meta.url));

beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

/** The scripted model's turns: one tool call each. */
const calls = (...steps: [string, Record<string, unknown>][]) =>
  JSON.stringify(steps.map(([toolName, input]) => ({ toolCalls: [{ toolName, input }] })));

describe("Codex rules files with escaped strings (what Codex itself writes when a command is always allowed)", () => {
  // Codex appends `prefix_rule(pattern=[...], decision="allow")` to ~/.codex/rules/default.rules, each word
  // quoted as JSON: a word holding a quote or a backslash is written `\"`, `\\`. tamird/dotfiles (90 lines)
  // and NullSense/dotfiles (76) have such rules; ubiquity stopped the whole run on them ("a string with a \
  // escape is not read"), though Starlark and Codex read the file. The default.rules below is written as
  // Codex writes it (those repositories have no licence: not copied); 00-base.rules is tak848/dotfiles'.
  it("the file is read: its forbidden rules deny, its allow rules of plain words allow, the rest is named", async () => {
    const p = stepsProject();
    cpSync(join(FIXTURES, "tak848", ".codex"), join(p.home, ".codex"), { recursive: true });
    writeFileSync(
      join(p.home, ".codex", "rules", "default.rules"),
      [
        'prefix_rule(pattern=["uname", "-a"], decision="allow")',
        'prefix_rule(pattern=["/bin/zsh", "-lc", "pyright --pythonpath \\"$(which python)\\""], decision="allow")',
        'prefix_rule(pattern=["printf", "%s\\\\n"], decision="allow")',
        'prefix_rule(pattern=["rm", "-rf"], decision="forbidden", justification="say \\"why\\" first")',
        "",
      ].join("\n"),
    );
    const out = await runCli(["run", "--compat", "codex", "--permission-mode", "dontAsk", "-p", "go"], p.dir, {
      ...p.env,
      UBQ_STEPS: calls(
        ["Bash", { command: "git -C /tmp status" }],
        ["Bash", { command: "rm -rf build" }],
        ["Bash", { command: "uname -a" }],
      ),
    });
    expect(out.code, out.stderr).toBe(0);
    const results = p.requests().slice(1).join("\n");
    // tak848's `git -C` is forbidden; the escaped justification's rule still denies.
    expect(results).toContain("the rule Bash(git -C:*)");
    expect(results).toContain("the rule Bash(rm -rf:*)");
    // Allowed by the user's own rule (dontAsk would deny it otherwise).
    expect(p.requests()[3]).toMatch(/Linux/);
    // The shell-script rule is not plain words: named, not a reason to drop the file.
    expect(out.stderr).toContain(`Codex rules file ${join(p.home, ".codex", "rules", "default.rules")}: line 2`);
    expect(out.stderr).not.toContain("escape is not read");
  });

  it("an escape Starlark does not have still stops the run naming the file", async () => {
    const p = stepsProject();
    mkdirSync(join(p.home, ".codex", "rules"), { recursive: true });
    const file = join(p.home, ".codex", "rules", "bad.rules");
    writeFileSync(file, 'prefix_rule(pattern=["rm", "-\\q"], decision="forbidden")\n');
    const out = await runCli(["run", "--compat", "codex", "-p", "go"], p.dir, p.env);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(file);
    expect(out.stderr).toContain("is not an escape Starlark has");
  });
});

describe("Codex's [hooks.state] in config.toml: the hooks a user turned off in /hooks (NullSense/dotfiles)", () => {
  // Codex keeps `[hooks.state."<file>:<event>:<group>:<handler>"]` with `trusted_hash` and, for a hook the
  // user turned off, `enabled = false` (NullSense/dotfiles turns off three Stop hooks of its hooks.json). It
  // was read as an event named "state" (a warning) and the hooks turned off ran. The files below are written
  // after NullSense's (no licence: not copied), with marker commands for its zedra/plannotator ones.
  it("a handler turned off does not run, the others do, and `state` is no event", async () => {
    const p = stepsProject();
    const codex = join(p.home, ".codex");
    mkdirSync(codex, { recursive: true });
    const hooksJson = join(codex, "hooks.json");
    const stop = (marker: string) => ({ hooks: [{ type: "command", command: `touch ${marker}`, timeout: 10 }] });
    writeFileSync(
      hooksJson,
      JSON.stringify({ hooks: { Stop: [stop("stop-0.marker"), stop("stop-1.marker"), stop("stop-2.marker")] } }),
    );
    writeFileSync(
      join(codex, "config.toml"),
      [
        "[features]",
        "hooks = true",
        "",
        "[hooks.state]",
        "",
        `[hooks.state."${hooksJson}:stop:0:0"]`,
        'trusted_hash = "sha256:61130bff68b73e1edd6541b811eb6e6c297cff970fa56f293ea76d15fbcffa92"',
        "enabled = false",
        "",
        `[hooks.state."${hooksJson}:stop:2:0"]`,
        'trusted_hash = "sha256:da3f164aaa4522d4398f51e041ecd725d1827e53439c1fc1072f01a7f7ae34fb"',
        "enabled = false",
        "",
        `[hooks.state."${hooksJson}:stop:1:0"]`,
        'trusted_hash = "sha256:e34b01eb25803a4e4009f36753fa27807a6bb342484e4977d6e628bc7b476074"',
        "",
      ].join("\n"),
    );
    const out = await runCli(["run", "--compat", "codex", "-p", "hello"], p.dir, p.env);
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(join(p.dir, "stop-1.marker"))).toBe(true);
    expect(existsSync(join(p.dir, "stop-0.marker"))).toBe(false);
    expect(existsSync(join(p.dir, "stop-2.marker"))).toBe(false);
    expect(out.stderr).not.toContain('"state"');
  });
});

describe("a skill written as one file in a skills folder (NotMyself/claude-bun-win11-hooks' .claude/skills/docker-mcp-cli.md)", () => {
  // Claude Code reads a skill from <name>/SKILL.md only, so this file is no skill there either; it was
  // dropped in silence here too, so nothing told the author why /docker-mcp-cli did not exist.
  it("is named with its file and where it would be read; a README beside the skills is not", async () => {
    const p = stepsProject();
    cpSync(join(FIXTURES, "hall", ".claude"), join(p.dir, ".claude"), { recursive: true });
    writeFileSync(join(p.dir, ".claude", "skills", "README.md"), "# Skills\n\nOne folder per skill.\n");
    const out = await runCli(["run", "--compat", "claude", "-p", "hello"], p.dir, { ...p.env, UBIQUITY_TRUST: "1" });
    expect(out.code, out.stderr).toBe(0);
    const file = join(p.dir, ".claude", "skills", "docker-mcp-cli.md");
    expect(out.stderr).toContain(`${file}: a skill written as a single file is not read`);
    expect(out.stderr).toContain(join(p.dir, ".claude", "skills", "docker-mcp-cli", "SKILL.md"));
    expect(out.stderr).not.toContain("README.md");
  });
});

describe("[features] hooks = false: Codex's name for the switch since openai/codex#20522 (codex_hooks is its old alias)", () => {
  // NullSense's config.toml writes `[features] hooks = true`; Codex's hooks docs turn hooks off with
  // `[features] hooks = false`. Only `codex_hooks` was read, so with `hooks = false` the Codex hooks Codex
  // does not run ran here. The config below is the docs' example.
  it("turns the Codex hooks off, and says so with the key as written", async () => {
    const p = stepsProject();
    const codex = join(p.home, ".codex");
    mkdirSync(codex, { recursive: true });
    writeFileSync(
      join(codex, "hooks.json"),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "touch stop.marker" }] }] } }),
    );
    writeFileSync(join(codex, "config.toml"), "[features]\nhooks = false\n");
    const out = await runCli(["run", "--compat", "codex", "-p", "hello"], p.dir, p.env);
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(join(p.dir, "stop.marker"))).toBe(false);
    expect(out.stderr).toContain("[features] hooks = false, so the Codex hooks of ");
    // The switch is read, so `features` is not among the keys named as not read.
    expect(out.stderr).not.toContain("Codex keys ubiquity does not read");
  });
});

describe("a project's .codex/prompts (yxhpy/codex-project-governor keeps three), which Codex does not read", () => {
  // Codex reads custom prompts from ~/.codex/prompts only (openai/codex#4734, #7365), as ubiquity does;
  // `/prompts:memory-compact` went to the model as typed with "(it has none)", not naming the file that
  // looks like the command.
  it("the warning names the project's file and where Codex reads prompts", async () => {
    const p = stepsProject();
    cpSync(join(FIXTURES, "governor", ".codex"), join(p.dir, ".codex"), { recursive: true });
    const out = await runCli(["run", "--compat", "codex", "-p", "/prompts:memory-compact"], p.dir, p.env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain(
      `${join(p.dir, ".codex", "prompts", "memory-compact.md")} is a project's, and Codex reads its prompts from ~/.codex/prompts alone`,
    );
  });
});
