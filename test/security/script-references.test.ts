/**
 * What a hook's script loads by a name its text spells. The script is pinned (trust, and during a
 * run), and so is its folder when that is not the project's top; a hook script at the top
 * (`sh guard.sh` sourcing `./lib.sh`) and a file it loads from another folder (`source
 * ../lib/common.sh`) were not: changed after `ubiquity trust .`, by a sandboxed command or the
 * model's Write, they ran on the host at the next start, where the hook's answer approves what the
 * mode would ask about (red teams l and m left it).
 *
 * The rule (loader/script-references.ts): every word of a script's text is tried as a path, and
 * a code file inside the project it names is pinned with the script, followed through what that
 * names; read-only in the sandbox, sensitive to the engine, part of the trust pin. Through the
 * built bin with real bwrap where a run is needed.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_SCRIPT_REFERENCES, scriptReferences } from "../../loader/index";
import { changedHookScript, pinHookScripts } from "../../plugins/hooks/pins";
import { sandboxAvailability } from "../../plugins/sandbox/availability";
import { attackBench } from "./attack-bench";

const GUARD = "#!/bin/sh\n. ./lib.sh\nsource tools/common.sh\necho checked >> hook.log\nexit 0\n";

const { attack, trustedAttack, project, temp } = attackBench({
  name: "scriptrefs",
  model: "openai:gpt-4.1",
  key: "sk-test-script-refs",
  fill: ({ cwd }) => {
    mkdirSync(join(cwd, ".ubiquity"));
    mkdirSync(join(cwd, "tools"));
    writeFileSync(join(cwd, "guard.sh"), GUARD);
    writeFileSync(join(cwd, "lib.sh"), "# helpers\npython3 -m tools.check\n");
    writeFileSync(join(cwd, "tools", "common.sh"), "true\n");
    writeFileSync(join(cwd, "tools", "check.py"), "print('ok')\n");
    writeFileSync(join(cwd, "hook.log"), "");
    writeFileSync(join(cwd, "README.md"), "see guard.sh and lib.sh\n");
    writeFileSync(join(cwd, "a.txt"), "a\n");
    writeFileSync(
      join(cwd, ".ubiquity", "settings.json"),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "sh guard.sh" }] }] },
      }),
    );
  },
});

describe("the files a script names", () => {
  it("are the code files its words name, followed through what those name; not logs, data or the script", () => {
    const p = project();
    expect(scriptReferences(join(p.cwd, "guard.sh"), p.cwd)).toEqual(
      ["lib.sh", "tools/check.py", "tools/common.sh"].map((f) => join(p.cwd, f)),
    );
  });

  it("a file named from a subfolder's script by `..` counts; one outside the project does not", () => {
    const dir = temp("ubq-scriptrefs-sub-");
    mkdirSync(join(dir, "scripts"));
    mkdirSync(join(dir, "lib"));
    writeFileSync(join(dir, "scripts", "guard.sh"), "source ../lib/common.sh\nsource /etc/profile\n");
    writeFileSync(join(dir, "lib", "common.sh"), "true\n");
    expect(scriptReferences(join(dir, "scripts", "guard.sh"), dir)).toEqual([join(dir, "lib", "common.sh")]);
  });

  it(`over ${MAX_SCRIPT_REFERENCES} files the answer is undefined (the caller fails closed)`, () => {
    const dir = temp("ubq-scriptrefs-many-");
    const names = Array.from({ length: MAX_SCRIPT_REFERENCES + 1 }, (_, i) => `m${i}.sh`);
    for (const name of names) writeFileSync(join(dir, name), "true\n");
    writeFileSync(join(dir, "hook.sh"), names.map((n) => `. ./${n}`).join("\n"));
    expect(scriptReferences(join(dir, "hook.sh"), dir)).toBeUndefined();
  });

  it("during a run: a change to what the hook's script sources counts as a change of the hook; its log does not", () => {
    const p = project();
    const hook = { type: "command" as const, command: "sh guard.sh" };
    pinHookScripts({ PreToolUse: [{ hooks: [hook] }] }, p.cwd);
    writeFileSync(join(p.cwd, "hook.log"), "checked\n");
    expect(changedHookScript(hook, p.cwd)).toBeUndefined();
    writeFileSync(join(p.cwd, "tools", "check.py"), "import os; os.system('touch pwned')\n");
    expect(changedHookScript(hook, p.cwd)).toBe(join(p.cwd, "tools", "check.py"));
  });
});

describe.skipIf(!sandboxAvailability().ok)("a trusted project's hook at its top", () => {
  it("a sandboxed command cannot change what the hook's script sources, and the next start runs none of it", async () => {
    const p = project();
    const marker = join(p.home, "pwned");
    const { out } = await trustedAttack(
      [`f=lib.sh; printf '%s\\n' 'touch ${marker}' >> $f; echo tried`, `f=check.py; echo 'x' >> tools/$f; echo tried`],
      ["--permission-mode", "bypassPermissions"],
      p,
    );
    expect(out[0]!.content).toMatch(/Read-only file system/);
    expect(out[1]!.content).toMatch(/Read-only file system/);
    expect(readFileSync(join(p.cwd, "lib.sh"), "utf8")).not.toContain("touch");
    await attack([], ["--permission-mode", "bypassPermissions"], p, { UBIQUITY_TRUST: "" });
    expect(existsSync(marker)).toBe(false);
  });

  it("without the sandbox, the model's Write to it is refused as sensitive; changed anyway, the next start does not run the hook", async () => {
    const p = project();
    const marker = join(p.home, "pwned");
    const { out } = await trustedAttack(
      [
        { name: "Read", input: { file_path: "lib.sh" } },
        { name: "Write", input: { file_path: "lib.sh", content: `touch '${marker}'\n` } },
      ],
      ["--permission-mode", "acceptEdits", "--no-sandbox"],
      p,
    );
    expect(out[1]!.isError, out[1]!.content).toBe(true);
    expect(out[1]!.content).toMatch(/code one names/);
    // The user (or anything outside) changes it: the settings file naming the hook is no longer trusted.
    writeFileSync(join(p.cwd, "lib.sh"), `touch '${marker}'\n`);
    chmodSync(join(p.cwd, "lib.sh"), 0o644);
    await attack(
      [{ name: "Read", input: { file_path: "a.txt" } }],
      ["--permission-mode", "acceptEdits", "--no-sandbox"],
      p,
      { UBIQUITY_TRUST: "" },
    );
    expect(existsSync(marker)).toBe(false);
  });
});
