/**
 * What a newcomer's trial (s, 2026-12-06: the packed package in an empty folder, the README and the
 * docs followed as written, the bin run on the offline model) met:
 * - the greeter of docs/plugins.md ("Options a plugin declares") declared its `options`, yet a
 *   config setting `greeting` was a tsc error ("'greeting' does not exist in type
 *   'UbiquityConfig'"): the `Ubiquity.PluginOptions` merge `defineConfig` reads was only in
 *   docs/plugins/local-development.md; the example now declares it;
 * - `ubiquity doctor` and `ubiquity config` (Claude Code's commands) were answered "unknown command
 *   … to run it as a prompt": they now name the commands that do their work here;
 * - `--add-dir` with a typo (a folder that does not exist, or a file) was taken without a word (as
 *   claude does: anthropics/claude-code#91197), and the user met only the refusals later: a
 *   warning now names the folder;
 * - a typo in `.ubiquity/settings.json` (`permisions`, `denny`) was dropped without a word, and
 *   the deny rules under it silently did not apply: every key nothing reads is now named, with the
 *   key it most likely meant, and a misspelt hook event (`PreToolUze`) says which one was meant;
 * - `ubiquity "hi" -p` (claude's `claude "hi" -p`: -p after the prompt) was "unknown command "hi"";
 *   it runs the prompt, while a near command's name with -p (`sesions -p`) is still an error;
 * - `--fallback-model` naming the main model was taken (it falls back to nothing); claude refuses it,
 *   and so does the runner now;
 * - `ubiquity sessions show` ended a one-turn run with "── done · 1 turns" (and `fleet logs` with
 *   "after 1 turns").
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatRecord } from "../../plugins/fleet/render";
import type { TranscriptRecord } from "../../plugins/sessions/index";
import { completeTsBlocks } from "../docs/blocks";
import { typeCheckBlocks, writeBlocks } from "../docs/typecheck";
import { removeTempProjects, repoRoot, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

describe("docs/plugins.md's plugin with options, used from a config", () => {
  it("types the config's keys: a right value checks, a wrong one is a tsc error", () => {
    const file = join(repoRoot, "docs", "plugins.md");
    const greeter = completeTsBlocks(file).find((b) => b.code.includes('"acme:greeter"'));
    expect(greeter, "the greeter block of docs/plugins.md").toBeDefined();
    const config = {
      file,
      line: 0,
      code: `import { defineConfig } from "ubiquity";
export const right = defineConfig({ greeting: "hi", formatGreeting: (text) => text.toUpperCase() });
// @ts-expect-error: greeting is a string
export const wrong = defineConfig({ greeting: 42 });
`,
    };
    const { fileOf, dispose } = writeBlocks([greeter!, config]);
    try {
      expect(typeCheckBlocks(fileOf)).toEqual([]);
    } finally {
      dispose();
    }
  }, 120_000);
});

describe.concurrent("Claude Code's commands that are not Ubiquity's", () => {
  it.each([
    ["doctor", ["ubiquity inspect", "ubiquity models", "ubiquity sandbox check"]],
    ["config", ["ubiquity.config.ts", "ubiquity init", ".ubiquity/settings.json"]],
  ])("ubiquity %s names what to run instead", async (command, named) => {
    const r = await runCli([command], tempProject({}));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`\`ubiquity ${command}\` is not a command:`);
    for (const text of named) expect(r.stderr).toContain(text);
    expect(r.stderr).not.toContain("to run it as a prompt");
  });
});

describe.concurrent("--add-dir given a folder that is not one", () => {
  it("warns, naming the missing folder and the file's own folder; a real folder is taken quietly", async () => {
    const dir = tempProject({ "notes.txt": "x", "docs/a.md": "a" });
    const r = await runCli(
      ["-p", "--model", "test", "--add-dir", join(dir, "nope"), "--add-dir", "notes.txt", "--add-dir", "docs", "hi"],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `the additional folder ${join(dir, "nope")} (--add-dir, additionalDirectories) does not exist`,
    );
    expect(r.stderr).toContain(
      `the additional folder ${join(dir, "notes.txt")} (--add-dir, additionalDirectories) is a file, not a folder (did you mean ${dir}?)`,
    );
    expect(r.stderr).not.toContain(join(dir, "docs"));
  });
});

describe.concurrent("ubiquity sessions show", () => {
  it("counts one turn as one turn", async () => {
    const dir = tempProject({});
    const env = { HOME: tempProject({}, { packageJson: false }) };
    const run = await runCli(["-p", "--model", "test", "hi"], dir, env);
    expect(run.code, run.stderr).toBe(0);
    const list = await runCli(["sessions", "list"], dir, env);
    const id = list.stdout.split(" ")[0]!;
    const show = await runCli(["sessions", "show", id], dir, env);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("── done · 1 turn · ");
  });
});

describe("ubiquity fleet logs", () => {
  it("counts one turn as one turn", () => {
    const record = {
      timestamp: "2026-12-06T10:00:00.000Z",
      message: { type: "result", subtype: "success", numTurns: 1, totalCostUsd: null, result: "ok" },
    } as unknown as TranscriptRecord;
    expect(formatRecord(record)).toBe("10:00:00 result success after 1 turn: ok\n");
  });
});

describe.concurrent("a settings file's keys nothing reads", () => {
  it("are named, with the key meant, and the file's other settings apply", async () => {
    const dir = tempProject({
      "secret.txt": "TOP SECRET",
      ".ubiquity/settings.json": JSON.stringify({
        $schema: "https://example.test/settings.json",
        permisions: { deny: ["Read(notes.txt)"] },
        permissions: { denny: ["Read(notes.txt)"], deny: ["Read(secret.txt)"] },
        statusLine: { type: "command", command: "true" },
        maxBudgetTokens: 100000,
      }),
    });
    const r = await runCli(["-p", "--model", "test", "read secret.txt"], dir);
    expect(r.code, r.stderr).toBe(0);
    const path = join(dir, ".ubiquity", "settings.json");
    expect(r.stderr).toContain(
      `${path}: ignored "permisions" (did you mean "permissions"?), "statusLine", "permissions.denny" (did you mean "deny"?): not settings ubiquity reads`,
    );
    expect(r.stderr).not.toContain('"$schema"');
    expect(r.stderr).not.toContain('"maxBudgetTokens"');
    // The rule spelt right still applies.
    expect(r.stdout).toContain("Permission denied: the rule Read(secret.txt)");
  });
});

describe.concurrent("a settings file's misspelt hook event", () => {
  it("names the event meant", async () => {
    const dir = tempProject({
      ".ubiquity/settings.json": JSON.stringify({
        hooks: { PreToolUze: [{ matcher: "Read", hooks: [{ type: "command", command: "exit 2" }] }] },
      }),
    });
    const r = await runCli(["-p", "--model", "test", "hi"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('the hook event "PreToolUze" (did you mean "PreToolUse"?) is not one ubiquity fires');
  });
});

describe.concurrent("-p after the prompt, as claude takes it", () => {
  it("runs the prompt; a command's near name is still an error", async () => {
    const dir = tempProject({});
    const r = await runCli(["what is here", "-p", "--model", "test"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('you said "what is here"');
    const near = await runCli(["sesions", "list", "-p"], dir);
    expect(near.code).toBe(2);
    expect(near.stderr).toContain('unknown command "sesions" (did you mean "sessions"?)');
    const quoted = await runCli(["fix", "--", "-p"], dir);
    expect(quoted.code).toBe(2);
    expect(quoted.stderr).toContain('unknown command "fix"');
  });
});

describe.concurrent("--fallback-model the main model", () => {
  it("is refused, naming the flag; another model is taken", async () => {
    const dir = tempProject({});
    const same = await runCli(["-p", "--model", "test", "--fallback-model", "test", "hi"], dir);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain("--fallback-model test is the main model");
    const before = await runCli(["-p", "--fallback-model", "test", "--model", "test", "hi"], dir);
    expect(before.code).toBe(2);
    const other = await runCli(["-p", "--model", "test", "--fallback-model", "openai:gpt-5", "hi"], dir);
    expect(other.code, other.stderr).toBe(0);
  });
});
