/** `ubiquity permissions check`: the verdict, the deciding rule, the candidates, and exit codes by verdict. */
import { describe, expect, it } from "vitest";
import { permissionsCheck } from "../../plugins/permissions/command";
import { tempDir } from "./helpers";
import { tempHome, writeTree } from "../helpers/temp-home";

async function check(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await permissionsCheck(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}

describe("ubiquity permissions check", () => {
  it("shows an ask, and every command the line was split into", async () => {
    const out = await check("check", "--allow", "Bash(git:*)", "--cwd", tempDir(), "git status && rm -rf /");
    expect(out.code).toBe(2);
    expect(out.stdout).toBe(
      'ask: Bash needs approval: "git status && rm -rf /" cannot be proven safe (it writes to /, outside the permitted folders), so no allow rule covers it.\ncommands:\n  git status\n  rm -rf /\ncannot be proven safe:\n  - it writes to /, outside the permitted folders\n',
    );
  });

  it("shows a deny with its rule (rules repeat), and an allow", async () => {
    const cwd = tempDir();
    const deny = await check("check", "--deny", "Bash(curl:*)", "--deny", "Bash(rm:*)", "--cwd", cwd, "sudo rm -rf /");
    expect(deny.code).toBe(3);
    expect(deny.stdout).toContain(
      "deny: Permission denied: the rule Bash(rm:*) in --deny forbids this (rm -rf /).\nrule: Bash(rm:*)\n",
    );
    const allow = await check("check", "--allow", "Bash(npm test)", "--mode", "acceptEdits", "--cwd", cwd, "npm test");
    expect(allow.code).toBe(0);
    expect(allow.stdout).toContain("allow: Allowed by Bash(npm test).");
  });

  it("explains what cannot be proven safe, and prints JSON on request", async () => {
    const out = await check(
      "check",
      "--allow",
      "Bash(git:*)",
      "--json",
      "--cwd",
      tempDir(),
      "git -c core.pager=sh log",
    );
    expect(out.code).toBe(2);
    const report = JSON.parse(out.stdout);
    expect(report).toMatchObject({
      behavior: "ask",
      step: "mode",
      candidates: [{ command: "git -c core.pager=sh log", required: true }],
    });
    expect(report.unsafe[0]).toContain("git -c");
  });

  it("checks paths with --tool", async () => {
    const out = await check("check", "--tool", "Read", "--deny", "Read(.env)", "--cwd", tempDir(), "config/.env");
    expect(out.code).toBe(3);
    expect(out.stdout).toMatch(/^deny: .*config\/\.env\)\.\nrule: Read\(\.env\)\npath: /);
  });

  it("usage errors exit 1 and say what to do; --help exits 0", async () => {
    expect(await check("check")).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('expected `ubiquity permissions check "<command>"`'),
    });
    // A mistyped subcommand is named as one, not read as a missing argument.
    expect(await check("chek", "ls")).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('unknown subcommand "chek" (did you mean "check"?)'),
    });
    expect(await check("check", "--mode", "yolo", "ls")).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("--mode must be one of default, acceptEdits"),
    });
    expect(await check("check", "--allow", "Bash(oops", "ls")).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('"Bash(oops" is not a permission rule'),
    });
    expect(await check("--help")).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("Exit code: 0 allow, 2 ask, 3 deny"),
    });
  });
});

describe("in the runner's command table", () => {
  it("`ubiquity permissions check` runs through main() and is listed in the help", async () => {
    const { main } = await import("../../runner/cli");
    let stdout = "";
    const io = { stdout: (t: string) => void (stdout += t), stderr: () => {} };
    expect(
      await main(["permissions", "check", "--allow", "Bash(git:*)", "--cwd", tempDir(), "git status\nrm -rf /"], io),
    ).toBe(2);
    expect(stdout).toContain("it writes to /, outside the permitted folders");
    stdout = "";
    expect(await main(["--help"], io)).toBe(0);
    expect(stdout).toMatch(/permissions\s+Test permission rules against a command/);
  });
});

describe("on the project's setup (a run's rules, mode, folders and sandbox)", () => {
  const home = tempHome();

  async function run(...argv: string[]) {
    const { main } = await import("../../runner/cli");
    let stdout = "";
    let stderr = "";
    const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
    const code = await main(["permissions", "check", ...argv], io);
    return { code, stdout, stderr };
  }

  /** A project whose Claude Code settings deny curl, allow `npm test` and set acceptEdits. */
  function project(): string {
    const cwd = tempDir();
    writeTree(cwd, {
      ".claude/settings.json": JSON.stringify({
        permissions: {
          deny: ["Bash(curl:*)"],
          allow: ["Bash(npm test)"],
          defaultMode: "acceptEdits",
          disableBypassPermissionsMode: "disable",
        },
      }),
    });
    return cwd;
  }

  it("judges with the settings files a run reads: a deny there is the verdict, named with its file", async () => {
    const cwd = project();
    const out = await run("--compat", "claude", "--cwd", cwd, "curl https://example.com");
    expect(out.code).toBe(3);
    expect(out.stdout).toContain(`the rule Bash(curl:*) in settings (project: ${cwd}/.claude/settings.json)`);
    expect(out.stdout).toContain("judged with the project's setup: mode default");
    // The same command line with --rules-only: the flags' rules alone, as before.
    const alone = await run("--rules-only", "--compat", "claude", "--cwd", cwd, "curl https://example.com");
    expect(alone.code).toBe(2);
    expect(alone.stdout).not.toContain("judged with the project's setup");
  });

  it("applies an untrusted project's allow rules and mode only once the folder is trusted, as a run does", async () => {
    const cwd = project();
    const untrusted = await run("--compat", "claude", "--cwd", cwd, "npm test");
    expect(untrusted.code).toBe(2);
    const trusted = await run("--compat", "claude", "--trust", "--cwd", cwd, "npm test");
    expect(trusted).toMatchObject({ code: 0, stdout: expect.stringContaining("allow: Allowed by Bash(npm test).") });
    // The settings' defaultMode is the mode judged in: acceptEdits approves touch in the project.
    const touch = await run("--compat", "claude", "--trust", "--cwd", cwd, "--json", "touch notes.txt");
    expect(touch.code).toBe(0);
    expect(JSON.parse(touch.stdout).setup).toMatchObject({
      mode: "acceptEdits",
      rules: [`settings (project: ${cwd}/.claude/settings.json)`],
    });
  });

  it("refuses a mode the setup refuses, naming the file", async () => {
    const cwd = project();
    const out = await run("--compat", "claude", "--trust", "--cwd", cwd, "--mode", "bypassPermissions", "ls");
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      `--mode bypassPermissions: this project's setup refuses it (${cwd}/.claude/settings.json`,
    );
  });

  it("judges with the user's own settings too, and adds the command line's rules to the setup's", async () => {
    writeTree(home(), { ".ubiquity/settings.json": JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }) });
    const cwd = tempDir();
    const out = await run("--cwd", cwd, "--allow", "Bash(rm:*)", "rm -f old.log");
    expect(out.code).toBe(3);
    expect(out.stdout).toContain(`the rule Bash(rm:*) in settings (user: ${home()}/.ubiquity/settings.json)`);
    const allowed = await run("--cwd", cwd, "--allow", "Bash(ls:*)", "ls -la");
    expect(allowed).toMatchObject({ code: 0, stdout: expect.stringContaining("Allowed by Bash(ls:*)") });
  });
});
