/**
 * What a newcomer's and a Claude Code switcher's trial (2026-12-06: the packed package in an empty
 * folder, the README and getting-started followed step by step, then real Claude Code files run as
 * `claude -p` runs them) met, through the built bin and temp dirs:
 * - `ubiquity init` in a folder that already has a tsconfig.json (`tsc --init` first, as many do)
 *   kept it without a word, and the scaffold's own `npm run typecheck` failed (TS5097 on its `.ts`
 *   imports, "Cannot find name 'node:test'"): it now says which compilerOptions the scaffold needs;
 * - Claude Code's `disableSkillShellExecution: true` (a settings file's, or `--settings`' inline
 *   JSON) was reported as an ignored key while every `!` shell line of the commands ran: the lines
 *   now stand replaced by Claude Code's placeholder and none runs, from an untrusted project's file
 *   too (it only takes power away);
 * - Anthropic's `/commit` (commit-commands, as published) stops under `-p`: its `git diff HEAD`,
 *   `git branch --show-current` and `git log` lines need approval here (Claude Code runs read-only
 *   commands without asking), and the user met them one refusal a retry. The refusal stays (a
 *   shell line is judged as the model's own call); its message now names every line's rule at once;
 * - `/hello world` with the project's `.claude/commands/hello.md` but no `--compat claude`, or
 *   `/commit` for the plugin's `/commit-commands:commit`, went to the model as typed without a word
 *   (as Claude Code sends a name it has no command for): a warning now says so, with the flag or
 *   the command meant.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

describe.concurrent("ubiquity init next to the folder's own tsconfig.json", () => {
  it("keeps it and names the compilerOptions the scaffold needs; a tsconfig that has them gets no advice", async () => {
    // What `tsc --init` (TypeScript 7) writes, comments left out: "types": [] and no .ts imports.
    const dir = tempProject({
      "tsconfig.json": JSON.stringify({
        compilerOptions: { module: "nodenext", target: "esnext", types: [], strict: true, skipLibCheck: true },
      }),
    });
    const before = readFileSync(join(dir, "tsconfig.json"), "utf8");
    const r = await runCli(["init"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("wrote tsconfig.json");
    expect(r.stdout).toContain("kept tsconfig.json (the folder's own)");
    expect(r.stdout).toContain('"allowImportingTsExtensions": true (with "noEmit": true)');
    expect(r.stdout).toContain('"types": ["node"]');
    expect(readFileSync(join(dir, "tsconfig.json"), "utf8")).toBe(before);

    const ready = tempProject({
      "tsconfig.json": JSON.stringify({
        compilerOptions: { noEmit: true, allowImportingTsExtensions: true, types: ["node"] },
      }),
    });
    const quiet = await runCli(["init"], ready);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toContain("kept tsconfig.json (the folder's own)\n");
    expect(quiet.stdout).not.toContain("allowImportingTsExtensions");
  });
});

describe.concurrent("Claude Code's disableSkillShellExecution", () => {
  // The user's own command (it applies in an untrusted folder): one inline line and one ```! block.
  const COMMAND =
    "---\ndescription: Context\n---\nStatus: !`touch inline-ran`\n\n```!\ntouch block-ran\n```\n\nSummarize.\n";
  const setup = (settings?: object) => {
    const dir = tempProject({
      "home/.claude/commands/ctx.md": COMMAND,
      ...(settings && { ".claude/settings.json": JSON.stringify(settings) }),
    });
    return dir;
  };
  const run = (dir: string, extra: string[] = []) =>
    runCli(
      [
        "-p",
        "--compat",
        "claude",
        "--model",
        "test",
        "--output-format",
        "stream-json",
        "--allowedTools",
        "Bash(touch:*)",
        ...extra,
        "/ctx",
      ],
      dir,
      // An untrusted folder: the project's settings file applies only in what takes power away.
      { HOME: join(dir, "home"), UBIQUITY_TRUST: "" },
    );
  const bashCalls = (stdout: string) =>
    stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; toolName?: string })
      .filter((m) => m.type === "tool_use" && m.toolName === "Bash");

  it("without it the lines run (the control)", async () => {
    const dir = setup();
    const r = await run(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(bashCalls(r.stdout)).toHaveLength(2);
    expect(existsSync(join(dir, "inline-ran"))).toBe(true);
    expect(existsSync(join(dir, "block-ran"))).toBe(true);
  });

  it("an untrusted project's .claude/settings.json saying true: nothing runs, the placeholder takes each line's place", async () => {
    const dir = setup({ disableSkillShellExecution: true });
    const r = await run(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('"disableSkillShellExecution"');
    expect(bashCalls(r.stdout)).toEqual([]);
    expect(r.stdout).toContain("Status: [shell command execution disabled by policy]");
    expect(existsSync(join(dir, "inline-ran"))).toBe(false);
    expect(existsSync(join(dir, "block-ran"))).toBe(false);
  });

  it("--settings' inline JSON, as scripts pass it to claude -p", async () => {
    const dir = setup();
    const r = await run(dir, ["--settings", '{"disableSkillShellExecution": true}']);
    expect(r.code, r.stderr).toBe(0);
    expect(bashCalls(r.stdout)).toEqual([]);
    expect(existsSync(join(dir, "inline-ran"))).toBe(false);
    expect(existsSync(join(dir, "block-ran"))).toBe(false);
  });
});

describe.concurrent("Anthropic's /commit under -p", () => {
  it("the refusal names the rule of every shell line, and with those rules the command runs", async () => {
    const dir = tempProject({ "a.txt": "one\n" });
    cpSync(
      fileURLToPath(new URL("../fixtures/compat/plugins/commit-commands/", import.meta.url)),
      join(dir, "plugin"),
      {
        recursive: true,
      },
    );
    const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
    git("init", "-q", "-b", "main");
    git("-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "--allow-empty", "-m", "first");
    const args = ["-p", "--model", "test", "--output-format", "stream-json", "--plugin-dir", join(dir, "plugin")];
    const env = { HOME: join(dir, "home") };

    const refused = await runCli([...args, "/commit-commands:commit"], dir, env);
    expect(refused.code).toBe(1);
    const result = JSON.parse(refused.stdout.trim().split("\n").at(-1)!) as { type: string; result: string };
    expect(result.type).toBe("result");
    expect(result.result).toContain("the shell line `git diff HEAD` was not run");
    expect(result.result).toContain("Claude Code runs read-only commands (git diff, git log, ls) without asking");
    const flag = `--allowedTools 'Bash(git status)' 'Bash(git diff HEAD)' 'Bash(git branch --show-current)' 'Bash(git log --oneline -10)'`;
    expect(result.result).toContain(flag);

    // The rules as the message writes them (a shell would unquote them the same way).
    const rules = [...flag.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
    const ran = await runCli([...args, "--allowedTools", ...rules, "/commit-commands:commit"], dir, env);
    expect(ran.code, ran.stderr).toBe(0);
    const bash = ran.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; toolName?: string; toolInput?: { command: string } })
      .filter((m) => m.type === "tool_use" && m.toolName === "Bash")
      .map((m) => m.toolInput!.command);
    expect(bash).toEqual(["git status", "git diff HEAD", "git branch --show-current", "git log --oneline -10"]);
  });
});

describe.concurrent("a /name the run has no command for", () => {
  it("a Claude Code command file read without --compat claude: the warning names it and the flag", async () => {
    const dir = tempProject({ ".claude/commands/hello.md": "---\ndescription: Say hi\n---\nSay hi to $ARGUMENTS\n" });
    const env = { HOME: join(dir, "home") };
    const r = await runCli(["-p", "--model", "test", "/hello world"], dir, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `/hello is not a command of this run, so the prompt went to the model as written: ${join(dir, ".claude/commands/hello.md")} is Claude Code's, read with --compat claude`,
    );
    // Untrusted, the folder's warning says the file needs the flag too (trust alone read nothing).
    const untrusted = await runCli(["-p", "--model", "test", "/hello world"], dir, { ...env, UBIQUITY_TRUST: "" });
    expect(untrusted.stderr).toContain("its own files were not applied");
    expect(untrusted.stderr).toContain(".claude/commands (read with --compat claude)");
    // With the flag the command runs, and nothing is said.
    const read = await runCli(["-p", "--compat", "claude", "--model", "test", "/hello world"], dir, env);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stderr).not.toContain("is not a command of this run");
  });

  it("a plugin's command named without its plugin: the warning names the command meant", async () => {
    const dir = tempProject({});
    cpSync(
      fileURLToPath(new URL("../fixtures/compat/plugins/commit-commands/", import.meta.url)),
      join(dir, "plugin"),
      {
        recursive: true,
      },
    );
    const r = await runCli(["-p", "--model", "test", "--plugin-dir", join(dir, "plugin"), "/commit"], dir, {
      HOME: join(dir, "home"),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "/commit is not a command of this run, so the prompt went to the model as written (did you mean /commit-commands:commit?)",
    );
  });
});
