/**
 * What the twelfth compat survey (docs/guide/compat-survey.md, "Round zb") found ubiquity misreading
 * in real Claude Code and Codex files, run through the built bin with a scripted model in a temp
 * project with its own HOME. Fixtures: test/compat/fixtures/survey-zb/SOURCE.md (the files this test
 * writes are in the shape of the surveyed ones, whose repositories publish no permissive licence).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";
import { STEPS_CONFIG } from "../helpers/scripted-project";

beforeAll(() => requireDist());
afterAll(() => removeTempProjects());

/** The scripted model's turns: one tool call each. */
const calls = (...steps: [string, Record<string, unknown>][]) =>
  JSON.stringify(steps.map(([toolName, input]) => ({ toolCalls: [{ toolName, input }] })));

/** The tool results of a stream-json run, in order. */
const toolResults = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { type: string; output?: { content: string; isError: boolean } })
    .filter((l) => l.type === "tool_result");

describe("a write to git's config refused by the sandbox (5throck/abap_vibe_coding_plugin's SessionStart hook)", () => {
  // Its .codex/hooks.json runs `git config core.hooksPath .githooks` at SessionStart. The sandbox keeps
  // .git/config read-only (a mount of its own), and git, which replaces the file by renaming
  // .git/config.lock over it, fails with "Device or resource busy": the warning (and a Bash call's
  // result) said only that, never that the sandbox was why. Keeping the file read-only is unchanged.
  let run: Promise<{ code: number; stderr: string; stdout: string; dir: string }> | undefined;
  const shared = () => {
    run ??= (async () => {
      const dir = tempProject({ "ubiquity.config.mjs": STEPS_CONFIG }, { linkUbiquity: true });
      // 5throck/abap_vibe_coding_plugin's .codex/hooks.json (AGPL-3.0: its shape, not its text).
      mkdirSync(join(dir, ".codex"));
      writeFileSync(
        join(dir, ".codex", "hooks.json"),
        JSON.stringify({
          hooks: {
            SessionStart: [
              {
                matcher: "",
                hooks: [
                  {
                    type: "command",
                    command: "git config core.hooksPath .githooks",
                    statusMessage: "Configuring git hooks...",
                  },
                ],
              },
            ],
          },
        }),
      );
      execFileSync("git", ["init", "-q"], { cwd: dir });
      const home = join(dir, "home");
      mkdirSync(home);
      const out = await runCli(
        [
          "run",
          "--compat",
          "codex",
          "--permission-mode",
          "bypassPermissions",
          "--output-format",
          "stream-json",
          "-p",
          "x",
        ],
        dir,
        {
          HOME: home,
          UBQ_SESSIONS: join(dir, "sessions"),
          UBQ_STEPS: calls(["Bash", { command: "git config user.name someone" }]),
        },
      );
      return { ...out, dir };
    })();
    return run;
  };

  it("the hook's warning says the sandbox kept .git/config read-only", async () => {
    const { code, stderr, dir } = await shared();
    expect(code, stderr).toBe(0);
    const warning = stderr.split("\nwarning: ").find((w) => w.includes('"git config core.hooksPath .githooks" failed'));
    expect(warning).toContain("Device or resource busy");
    expect(warning).toContain("the hook ran in the OS sandbox");
    expect(warning).toContain(".git/config");
    // Still refused: the project's hook did not point git at its own hooks.
    expect(readFileSync(join(dir, ".git", "config"), "utf8")).not.toContain("hooksPath");
  });

  it("a Bash call's result names the sandbox, so the model does not take it for a fault of git", async () => {
    const { stdout, dir } = await shared();
    const bash = toolResults(stdout)[0];
    expect(bash?.output?.content).toContain("Device or resource busy");
    expect(bash?.output?.content).toContain("[blocked by the sandbox:");
    expect(bash?.output?.content).toContain("is read-only in the sandbox");
    expect(readFileSync(join(dir, ".git", "config"), "utf8")).not.toContain("someone");
  });
});
