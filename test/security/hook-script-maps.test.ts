/**
 * A hook's script that loads its code through a map a loader reads — a package's `imports`
 * (`import "#hooklib/decide"`, Node's own) or a tsconfig's `paths` (`import "@hooks/decide"` under
 * tsx) — loaded a file no word of it names, so that file was neither pinned (a change ran at the
 * next call and the next start) nor asked about when the model wrote it (red team p's report left
 * it open). The maps are read the way the loader reads them, the files they name pinned with the
 * script, and the maps themselves too (changed, the same name loads another file).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptReferences } from "../../loader/script-references";
import { changedHookScript, pinHookScripts } from "../../plugins/hooks/pins";
import { attackBench, trustNow } from "./attack-bench";

const { temp, project, trustedAttack } = attackBench({
  name: "hookmaps",
  model: "openai:gpt-4.1",
  key: "sk-test-hookmaps",
  fill: ({ cwd }) => writeFileSync(join(cwd, "a.txt"), "hello\n"),
});

const write = (dir: string, file: string, text: string) => {
  mkdirSync(join(dir, file, ".."), { recursive: true });
  writeFileSync(join(dir, file), text);
};

/** A project whose hook script imports `#hooklib/decide` through package.json's `imports`. */
function importsProject(dir: string): void {
  write(
    dir,
    "package.json",
    JSON.stringify({ name: "p", type: "module", imports: { "#hooklib/*": "./src/hooklib/*.mjs" } }),
  );
  write(dir, ".claude/hooks/guard.mjs", 'import { decide } from "#hooklib/decide";\nprocess.exit(decide());\n');
  write(dir, "src/hooklib/decide.mjs", "export const decide = () => 0;\n");
  write(dir, "src/other.mjs", "export const x = 1;\n");
}

/** A bench project whose trusted settings run that script as a PreToolUse hook for every tool. */
function hookedImportsProject() {
  const p = project();
  importsProject(p.cwd);
  write(
    p.cwd,
    ".ubiquity/settings.json",
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "node .claude/hooks/guard.mjs" }] }] },
    }),
  );
  return p;
}

/** The mapped module rewritten to leave `marker` when the hook loads it. */
const markingModule = (marker: string) =>
  `import { writeFileSync } from "node:fs";\nexport const decide = () => (writeFileSync(${JSON.stringify(marker)}, "x"), 0);\n`;

/** A project whose hook script imports `@hooks/decide` through tsconfig paths (in a config it extends). */
function pathsProject(dir: string): void {
  write(
    dir,
    "tsconfig.base.json",
    '{\n  // shared\n  "compilerOptions": { "paths": { "@hooks/*": ["./lib/hooks/*"], }, },\n}\n',
  );
  write(dir, "tsconfig.json", '{ "extends": "./tsconfig.base.json", "compilerOptions": { "strict": true } }');
  write(dir, ".claude/hooks/guard.ts", 'import { decide } from "@hooks/decide";\nprocess.exit(decide());\n');
  write(dir, "lib/hooks/decide.ts", "export const decide = () => 0;\n");
}

describe("a hook's script loading code through a map", () => {
  it("package.json imports: the mapped file and the map are what the script loads", () => {
    const dir = temp("ubq-hookmaps-");
    importsProject(dir);
    const loads = scriptReferences(join(dir, ".claude/hooks/guard.mjs"), dir)!;
    expect(loads.map((f) => f.slice(dir.length + 1))).toEqual(["package.json", "src/hooklib/decide.mjs"]);
  });

  it("tsconfig paths, through extends, a comment and trailing commas; a .js name finds its TypeScript source", () => {
    const dir = temp("ubq-hookmaps-");
    pathsProject(dir);
    const loads = scriptReferences(join(dir, ".claude/hooks/guard.ts"), dir)!;
    expect(loads.map((f) => f.slice(dir.length + 1))).toEqual([
      "lib/hooks/decide.ts",
      "tsconfig.base.json",
      "tsconfig.json",
    ]);
    write(dir, ".claude/hooks/guard.ts", 'import { decide } from "@hooks/decide.js";\nprocess.exit(decide());\n');
    expect(scriptReferences(join(dir, ".claude/hooks/guard.ts"), dir)).toContain(join(dir, "lib/hooks/decide.ts"));
  });

  it("during a run: a change of the mapped file or of the map is a change of the hook; another file is not", () => {
    for (const [setup, command, changes] of [
      [importsProject, "node .claude/hooks/guard.mjs", ["src/hooklib/decide.mjs", "package.json"]],
      [pathsProject, "npx tsx .claude/hooks/guard.ts", ["lib/hooks/decide.ts", "tsconfig.base.json"]],
    ] as const) {
      for (const changed of changes) {
        const dir = temp("ubq-hookmaps-");
        setup(dir);
        const hook = { type: "command" as const, command };
        pinHookScripts({ PreToolUse: [{ hooks: [hook] }] }, dir);
        write(dir, "src/other.mjs", "export const x = 2;\n");
        expect(changedHookScript(hook, dir), `${command}: an unrelated file`).toBeUndefined();
        const before = readFileSync(join(dir, changed), "utf8");
        // The module's code, or the map pointed elsewhere.
        write(
          dir,
          changed,
          before
            .replace("=> 0", "=> 1")
            .replace("./lib/hooks/*", "./elsewhere/*")
            .replace("./src/hooklib/*", "./elsewhere/*"),
        );
        expect(readFileSync(join(dir, changed), "utf8"), changed).not.toBe(before);
        expect(changedHookScript(hook, dir), `${command}: ${changed}`).toBeDefined();
      }
    }
  });

  it("through the bin (acceptEdits, no sandbox): the model's rewrite of the mapped module asks, and nothing runs at the next call", async () => {
    const p = hookedImportsProject();
    const marker = join(p.home, "pwned");
    const evil = markingModule(marker);
    const { out } = await trustedAttack(
      [
        { name: "Read", input: { file_path: "src/hooklib/decide.mjs" } },
        { name: "Write", input: { file_path: "src/hooklib/decide.mjs", content: evil } },
        { name: "Read", input: { file_path: "a.txt" } },
      ],
      ["--permission-mode", "acceptEdits", "--no-sandbox"],
      p,
    );
    // The hook ran (the guard allows): the first call went ahead.
    expect(out[0]!.isError, out[0]!.content).toBe(false);
    // The module the hook's script loads is code the settings name: the write asks (headless: denied).
    expect(out[1]!.isError, out[1]!.content).toBe(true);
    expect(out[1]!.content).toContain("code one names");
    expect(readFileSync(join(p.cwd, "src/hooklib/decide.mjs"), "utf8")).not.toContain("pwned");
    expect(existsSync(marker)).toBe(false);
    expect(out[2]!.isError, out[2]!.content).toBe(false);
  });

  it("the next start: a mapped module changed after trust keeps the settings' hooks out", async () => {
    const p = hookedImportsProject();
    const marker = join(p.home, "pwned");
    await trustNow(p);
    // Changed after trust (a pull, another tool, anyone): the trusted hook must not run it.
    write(p.cwd, "src/hooklib/decide.mjs", markingModule(marker));
    const { out } = await trustedAttack([{ name: "Read", input: { file_path: "a.txt" } }], ["--no-sandbox"], p, false);
    expect(out[0]!.isError, out[0]!.content).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("a hook's script named after an expansion the shell fills when it runs", () => {
  const forms = [
    'bash "$(git rev-parse --show-toplevel)/.claude/hooks/guard.sh"',
    "bash `git rev-parse --show-toplevel`/.claude/hooks/guard.sh",
    'bash "$PWD/.claude/hooks/guard.sh"',
    "bash $(pwd)/.claude/hooks/guard.sh",
    "bash ${CLAUDE_PROJECT_DIR:-.}/.claude/hooks/guard.sh",
    'bash "${CLAUDE_PROJECT_DIR:?}/.claude/hooks/guard.sh"',
  ];

  it.each(forms)("during a run: %s is pinned", (command) => {
    const dir = temp("ubq-hooktails-");
    write(dir, ".claude/hooks/guard.sh", "exit 0\n");
    const hook = { type: "command" as const, command };
    pinHookScripts({ PreToolUse: [{ hooks: [hook] }] }, dir);
    expect(changedHookScript(hook, dir)).toBeUndefined();
    write(dir, ".claude/hooks/guard.sh", "touch pwned\n");
    expect(changedHookScript(hook, dir)).toBe(join(dir, ".claude/hooks/guard.sh"));
  });

  it("a log the command appends to after an expansion is no change of the hook", () => {
    const dir = temp("ubq-hooktails-");
    write(dir, ".claude/hooks/guard.sh", "exit 0\n");
    write(dir, ".claude/hooks.log", "");
    const hook = {
      type: "command" as const,
      command: 'bash "$PWD/.claude/hooks/guard.sh" >> "$PWD/.claude/hooks.log"',
    };
    pinHookScripts({ PreToolUse: [{ hooks: [hook] }] }, dir);
    write(dir, ".claude/hooks.log", "a line\n");
    expect(changedHookScript(hook, dir)).toBeUndefined();
  });

  it("the next start: the script changed after trust keeps the settings' hooks out", async () => {
    const p = project();
    const marker = join(p.home, "pwned");
    write(p.cwd, ".claude/hooks/guard.sh", "#!/bin/sh\nexit 0\n");
    write(
      p.cwd,
      ".ubiquity/settings.json",
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: 'bash "$PWD/.claude/hooks/guard.sh"' }] }],
        },
      }),
    );
    await trustNow(p);
    write(p.cwd, ".claude/hooks/guard.sh", `#!/bin/sh\ntouch '${marker}'\n`);
    const { out } = await trustedAttack([{ name: "Read", input: { file_path: "a.txt" } }], ["--no-sandbox"], p, false);
    expect(out[0]!.isError, out[0]!.content).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });
});
