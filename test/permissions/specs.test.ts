/**
 * The program specs (issue 35): an option or sub-command a spec does not list leaves the command
 * unproven, for every spec'd program; a word only known at run time where an option could stand
 * does too; a program without a spec is covered only by a rule that names it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { decidePermission } from "ubiquity/plugins/permissions";
import { PROGRAM_SPECS } from "../../plugins/permissions/shell/specs";
import { analyzeShell, loadShellParser } from "../../plugins/permissions/shell/load";
import { tempDir } from "./helpers";

beforeAll(() => loadShellParser());

const cwd = tempDir();
const home = tempDir();
const bash = (command: string, allow: string[], mode: "default" | "acceptEdits" | "bypassPermissions" = "default", extra: { deny?: string[]; sandbox?: boolean } = {}) =>
  decidePermission({ toolName: "Bash", input: { command }, rules: { allow, ...(extra.deny ? { deny: extra.deny } : {}) }, mode, cwd, home, ...(extra.sandbox ? { sandbox: true } : {}) });

/** A command line that reaches `spec` (and the sub-command path to it), for planting options. */
function* programs(): Generator<[string, string]> {
  for (const [name, spec] of PROGRAM_SPECS) {
    if (spec.read) {
      yield [name, name];
      continue;
    }
    if (!spec.sub) {
      yield [name, name];
      continue;
    }
    for (const [sub, inner] of spec.sub) {
      if (!inner.sub) yield [name, `${name} ${sub}`];
      else for (const [deeper] of inner.sub) yield [name, `${name} ${sub} ${deeper}`];
    }
  }
}

describe("program specs", () => {
  const lines = [...programs()];

  it("cover the programs agents run most", () => {
    for (const p of ["git", "npm", "grep", "rg", "find", "sed", "awk", "ls", "cat", "head", "tail", "wc", "sort", "echo", "rm", "cp", "mv", "mkdir", "xargs", "env", "timeout", "make"]) expect(PROGRAM_SPECS.has(p), p).toBe(true);
    expect(lines.length).toBeGreaterThan(150);
  });

  it("an unknown option planted on every spec'd program (and sub-command) leaves it uncovered, even under a rule for the program", async () => {
    const loose: string[] = [];
    for (const [program, line] of lines) {
      // A long option no program has, and a rule naming the program: it must ask.
      const command = `${line} --zz-unknown-option`;
      const verdict = await bash(command, [`Bash(${program}:*)`]);
      if (verdict.behavior !== "ask") loose.push(`${command}: ${verdict.behavior}`);
      const analysis = analyzeShell(command);
      const first = analysis.candidates[0]!;
      if (!first.unproven && analysis.unsafe.length === 0) loose.push(`${command}: not marked unproven`);
    }
    expect(loose).toEqual([]);
  }, 60_000);

  it("an unknown short option too, where the program takes short options", async () => {
    for (const command of ["ls -Y", "grep -Y x f", "git log -Y", "cat -Y f", "head -Y f", "sort -Y f", "rm -Y f", "xargs -Y echo"]) {
      expect((await bash(command, [`Bash(${command.split(" ")[0]}:*)`])).behavior, command).toBe("ask");
    }
  });

  it("a rule whose literal text names the unknown word covers it (the user named it)", async () => {
    expect((await bash("git frobnicate", ["Bash(git:*)"])).behavior).toBe("ask");
    expect((await bash("git log --zz", ["Bash(git log:*)"])).behavior).toBe("ask");
    expect((await bash("git log --zz", ["Bash(git log --zz)"])).behavior).toBe("allow");
    expect((await bash("mytool build", ["Bash(mytool:*)"])).behavior).toBe("allow");
    expect((await bash("mytool build", ["Bash(*)"])).behavior).toBe("ask");
  });

  it("known options and sub-commands are allowed under a rule for the program", async () => {
    for (const [command, rule] of [
      ["git status", "Bash(git:*)"],
      ["git log --oneline -20 --format=%h", "Bash(git:*)"],
      ["git -C sub diff --stat HEAD~1", "Bash(git:*)"],
      ["git commit -m 'fix: it'", "Bash(git commit:*)"],
      ["grep -rn TODO src", "Bash(grep:*)"],
      ["ls -la src", "Bash(ls:*)"],
      ["head -n 5 README.md", "Bash(head:*)"],
      ["find . -name '*.ts' -type f", "Bash(find:*)"],
      ["npm test -- --coverage", "Bash(npm test:*)"],
      ["rm -rf build", "Bash(rm:*)"],
      ["mkdir -p out/a", "Bash(mkdir:*)"],
      ["timeout 30 make test", "Bash(make test:*)"],
    ]) {
      expect((await bash(command!, [rule!])).behavior, command).toBe("allow");
    }
  });

  it("a run-time word where an option could stand leaves a program with writing options unproven", async () => {
    expect((await bash('sort "$f"', ["Bash(sort:*)"])).behavior).toBe("ask");
    expect((await bash("git log $x", ["Bash(git:*)"])).behavior).toBe("ask");
    // cat has no option that writes or runs: a run-time word is a file it reads.
    expect((await bash('cat "$f"', ["Bash(cat:*)"])).behavior).toBe("allow");
    expect((await bash('cat "$f"', ["Bash(cat:*)"], "default", { deny: ["Read(.env)"] })).behavior).toBe("deny");
  });

  it("run-time write targets ask under an allow rule, and in bypassPermissions without the sandbox", async () => {
    expect((await bash("rm -rf $dir", ["Bash(rm:*)"])).behavior).toBe("ask");
    expect((await bash("echo x >> $HOME/.bashrc", [], "bypassPermissions")).behavior).toBe("ask");
    expect((await bash("touch ~$USER/x", [], "bypassPermissions")).behavior).toBe("ask");
    expect((await bash("mytool $x", [], "bypassPermissions")).behavior).toBe("ask");
    // With the sandbox on, its protected paths hold such a write: bypass runs it.
    expect((await bash("echo x >> $HOME/.bashrc", [], "bypassPermissions", { sandbox: true })).behavior).toBe("allow");
    expect((await bash("echo x >> notes.txt", [], "bypassPermissions")).behavior).toBe("allow");
  });
});
