/**
 * Flags and commands as git, claude and codex users write them, through the built bin:
 * - flags before a command's name (`ubiquity --cwd x sessions list`, git's `git -C x status`) are
 *   the command's when it takes them; a flag it does not take (`ubiquity --model x sessions list`)
 *   is a usage error naming the fix — the command's name is never sent to the model as a prompt;
 * - `--compat claude|codex` works on the commands that read a user's setup (`mcp list`,
 *   `inspect`), as on `run`: `ubiquity mcp list --compat codex` shows ~/.codex/config.toml's servers.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist, runCli, tempProject } from "../helpers/project";

afterAll(removeTempProjects);
beforeAll(requireDist);

const GHOST = "no-such-codex-server-7d1f";

describe.concurrent("flags before a command's name", () => {
  it("a flag the command does not take is a usage error naming the fix, not a prompt for the model", async () => {
    const dir = tempProject({});
    const { code, stdout, stderr } = await runCli(["--model", "test", "sessions", "list"], dir, {
      HOME: join(dir, "home"),
    });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      'error: "sessions" is a command, and --model is not one of its flags: a command\'s flags go after its name (`ubiquity sessions --help` lists them); to send "sessions list" to the model as the prompt, name run: `ubiquity run --model test \'sessions list\'`\n',
    );
    // claude -p's habit: -p before a command's name.
    const print = await runCli(["-p", "--model", "test", "mcp", "list"], dir, { HOME: join(dir, "home") });
    expect(print.code).toBe(2);
    expect(print.stderr).toContain('"mcp" is a command, and -p, --model are not its flags');
    expect(print.stdout).toBe("");
  });

  it("flags the command takes run it, as git -C does: --cwd before sessions list lists that folder's sessions", async () => {
    const dir = tempProject({});
    const env = { HOME: join(dir, "home") };
    const ran = await runCli(["run", "-p", "--model", "test", "hi"], dir, env);
    expect(ran.code, ran.stderr).toBe(0);
    const other = tempProject({});
    const before = await runCli(["--cwd", dir, "sessions", "list", "--json"], other, env);
    expect(before.code, before.stderr).toBe(0);
    const listed = JSON.parse(before.stdout) as { cwd: string }[];
    expect(listed).toHaveLength(1);
    expect(listed[0]!.cwd).toBe(dir);
    // The same command with the flag after the name prints the same.
    const after = await runCli(["sessions", "list", "--cwd", dir, "--json"], other, env);
    expect(after.stdout).toBe(before.stdout);
  });

  it("run's flags before `run` or `chat` are run's; after `--`, or with `run` named, a command's name is the prompt", async () => {
    const dir = tempProject({});
    const env = { HOME: join(dir, "home") };
    const named = await runCli(["--model", "test", "run", "-p", "--output-format", "json", "hi"], dir, env);
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ type: "result", isError: false });
    for (const args of [
      ["--model", "test", "--output-format", "json", "--", "sessions", "list"],
      ["run", "--model", "test", "--output-format", "json", "sessions", "list"],
    ]) {
      const prompt = await runCli(args, dir, env);
      expect(prompt.code, prompt.stderr).toBe(0);
      expect(JSON.parse(prompt.stdout)).toMatchObject({ type: "result", isError: false });
    }
  });
});

describe.concurrent("--compat on the commands that read a user's setup", () => {
  const codexUser = () => {
    const dir = tempProject({ "home/.codex/config.toml": `[mcp_servers.ghost]\ncommand = "${GHOST}"\n` });
    return { dir, env: { HOME: join(dir, "home") } };
  };

  it("mcp list --compat codex shows ~/.codex/config.toml's servers; without it they are not read", async () => {
    const { dir, env } = codexUser();
    const without = await runCli(["mcp", "list"], dir, env);
    expect(without.code, without.stderr).toBe(0);
    expect(without.stdout).not.toContain("ghost");
    const withCompat = await runCli(["mcp", "list", "--compat", "codex"], dir, env);
    expect(withCompat.code).toBe(1); // a server that fails to start is a failed health check
    expect(withCompat.stdout).toContain(`ghost (stdio: ${GHOST})`);
    // Before the command's name, as git's flags go.
    const before = await runCli(["--compat", "codex", "mcp", "list"], dir, env);
    expect(before.stdout).toBe(withCompat.stdout);
  });

  it("mcp list --help and inspect --help list it; a wrong tool is a usage error naming the right ones", async () => {
    const { dir, env } = codexUser();
    for (const command of ["mcp", "inspect"]) {
      const help = await runCli([command, "--help"], dir, env);
      expect(help.stdout).toMatch(/--compat <tools> +Read Claude Code's or Codex's files too/);
    }
    const bad = await runCli(["mcp", "list", "--compat", "cursor"], dir, env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--compat must name claude, codex (comma-separated), not "cursor"');
  });

  it("inspect --compat claude reports the run's compat", async () => {
    const { dir, env } = codexUser();
    const report = await runCli(["inspect", "--json", "--compat", "claude,codex"], dir, env);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('"compat"');
    expect(report.stdout).toMatch(/"compat": \[\s*"claude",\s*"codex"\s*\]/);
  });
});
