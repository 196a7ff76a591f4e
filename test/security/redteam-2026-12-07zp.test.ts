/**
 * Red team of 2026-12-07 (zp): everything but the Bash analysis, the newest code first (TypeScript
 * configs stripped by Node, provider credentials, the managed policy, event masking, MCP narrowing),
 * as a stranger — an untrusted clone, a teammate's commit to a trusted repository, the model sending
 * tool calls. Through the built bin against the scripted attacker (a fake provider on 127.0.0.1).
 * Each finding's test failed before its fix (checked by reverting it).
 *
 * ZP1 FIXED A module a trusted config loads, hidden from trust by a `/` read the wrong way. Trust
 *           pins the local modules a config loads, found by a tokenizer (loader/module-scan.ts) that
 *           guesses whether a `/` divides or starts a regular expression from the token before it:
 *           after TypeScript's non-null `!` (`n! / 2`), a postfix `++`/`--`, TypeScript's type
 *           arguments (`g<number> / 2`) it guessed "regular expression", and after an `if (…)` head
 *           or a block's `}` it guessed "divides" (`if (x) /"/.test(s)`): the rest of the line
 *           read as a literal, and `await import("./lib/helper.mjs")` on it was never seen. Through
 *           the bin, `ubiquity trust .` approved `ubiquity.config.ts` without its helper (the
 *           listing named only the config), then the helper was changed to write a marker, and the
 *           next run loaded the config and ran it without a word. Class: a scan that reads code
 *           as a literal (the pins cover what the scan sees, not what runs). Rule: a TypeScript
 *           module is scanned as the JavaScript Node's stripper makes of it (its types blanked in
 *           place); the tokenizer reads a postfix `!`/`++`/`--` as ending an operand and the `)`
 *           of `if`/`while`/`for`/`with` and a block's `}` as starting a statement; and, for the
 *           guesses left, every word of the source that names a file is pinned wherever it stands,
 *           and a load's words inside a literal (`import(` in a regular expression or a string) are
 *           a load that cannot be followed: the config does not apply under pins. The sandbox's list of the
 *           packages a config imports (kept read-only) reads a TypeScript config the same way.
 *
 * ZP2 FIXED A file made beside a trusted config's import, loaded in its place. An import without
 *           an extension (`import { who } from "./lib/helper"`, as TypeScript configs write them)
 *           is resolved by jiti trying `.js` before `.ts`, and by trust's graph (loader/config-
 *           graph.ts) trying `.ts` first: trust pinned `lib/helper.ts`, and a `lib/helper.js`
 *           made next to it was loaded instead, pinned by nothing. Through the bin, in a trusted
 *           project: the new `lib/helper.js` ran at the next start without a word; and with the
 *           folder trusted for the run (`UBIQUITY_TRUST=1`), the model's sandboxed
 *           `printf … > lib/helper.js` was allowed (nothing protected the name) and its code ran at
 *           the next start, outside the sandbox. Class: a loader's resolution order that is not
 *           the pinning's (the pins covered the file one order finds). Rule: every file a path
 *           import could load (each extension, each `index` file) that exists is pinned and
 *           followed with the config; each that does not is a name a sandboxed command may not
 *           make (watched: removed after the command) and a write the engine treats as a write to
 *           the config's code.
 *
 * ZP3 FIXED A trusted config's import of the project's own package, pinned under another
 *           condition than the one that loads it. A config may import the project by its name
 *           (`import p from "myproj/plugin"`, a package naming itself, or a workspace linked into
 *           node_modules); trust's graph resolved that with Node's `require` (conditions
 *           `require`, `node`), while Node's `import` — the loader of every ES module config —
 *           takes the `import` entry of the package's `exports`. Through the bin, with
 *           `"exports": {"./plugin": {"import": "./lib/evil.mjs", "require": "./lib/good.cjs"}}`,
 *           `ubiquity trust .` approved `lib/good.cjs`, then the changed `lib/evil.mjs` ran at the
 *           next start without a word (and one with only an `import` entry read as installed
 *           code, pinned by nothing). Class: the same as ZP2, one level up (the pins followed one
 *           loader's resolution). Rule: a package whose files are the project's own pins every
 *           file its `exports` (or `main`) give the name under any condition, as the `imports`
 *           map's targets already were.
 *
 * ZP4 FIXED A relative import read as a path by trust and as a URL by Node. Node's `import` reads
 *           `./%78.mjs` as `./x.mjs` (percent-decoded), `./lib\helper.mjs` as `./lib/helper.mjs`,
 *           and cuts `?…` and `#…`; trust's graph read each as the path it spells. Through the bin,
 *           a clone holding a harmless `%78.mjs` and an `x.mjs`: `ubiquity trust .` approved
 *           `%78.mjs`, and the changed `x.mjs` ran at the next start. Class: ZP2's, for the
 *           specifier's own syntax. Rule: a relative or absolute import pins both the file its path
 *           names and the one its URL names; one whose URL names no file (an encoded `/`) cannot
 *           be followed.
 *
 * ZP5 FIXED Installed code a config loads by its path, writable by a sandboxed command. The
 *           sandbox keeps the packages a config imports by name read-only (they run at the next
 *           start, outside it), but a config that loads one by path
 *           (`import { x } from "./node_modules/foo/index.mjs"`) reached code the graph counted as
 *           installed and nothing kept: through the bin, with the folder trusted for the run, the
 *           model's sandboxed `python3 -c "open('node_modules/foo/index.mjs', 'w')…"` rewrote it,
 *           and the next start ran it outside the sandbox. Class: K4's (the config's code, made
 *           writable), for installed code reached by path. Rule: the package folder of each file
 *           under node_modules a config's path import reaches is read-only in the sandbox and a
 *           write to it asks, as for a package imported by name (it stays unpinned, as installed
 *           code is).
 *
 * Tally: about 42 constructs tried — 17 through the bin (a hidden import behind `n!`, `g<T>`, `i++`,
 * `if (…)` and by hand twice; a new `helper.js` beside `./lib/helper` under pins, a sandboxed
 * `python3` and a named `printf >` making it; an `exports` import/require pair and an import-only
 * entry; `./%78.mjs` and `./lib\helper.mjs`; a sandboxed rewrite of `./node_modules/foo/index.mjs`;
 * a folder import whose package.json `main` differs from its index), 11 in-process (the scan's
 * misreads and what it keeps; a hook script's URL spellings; a plugin's `session.end` result), the
 * rest by reading the code; 14 got through, in 5 findings, all fixed (all in what trust pins and
 * the sandbox keeps of a config's code: one class, the pins following another reading of the code
 * than the loader's). Held: a folder import (jiti takes `index.js`, as the graph does, not
 * package.json's `main`); an import with a `?query` or an encoded `/` (cannot be followed: the
 * config does not apply under pins); a stripped module under node_modules (untagged, jiti's);
 * the strip cache (~/.cache/ubiquity/jiti: outside the project, and read-only to the sandbox when a
 * writable folder holds it); an untrusted file's `enableAllProjectMcpServers` (not among the keys
 * an untrusted file applies); a project's `[[skills.config]]` (read from the user's file alone);
 * provider keys (a subagent's model comes from its definition, never the model's call; another
 * provider gets them only behind the same baseURL); the apiKeyHelper's output and stderr (never
 * shown); hook inputs and telemetry (masked); WebFetch's address judgement (mapped, NAT64 and
 * 6to4 forms); the terminal's model text and approvals (controls and invisible characters shown);
 * an OAuth authorization URL (printed as `URL.href`, controls encoded); ACP session ids; a rewind's
 * writes through planted links.
 * Left open: `session.end` taps get the run's result unmasked (the kernel's `run.emit` returns the
 * message as made; every built-in tap masks it, a third party's plugin need not; returning the
 * masked message is a kernel change for the lead); package.json's `exports` is not part of its
 * digest (a changed map leading to another approved file applies); a config that `eval`s a data
 * file, or spawns a shell on one, depends on a file nothing pins (trusting the config trusts it);
 * the scan is a tokenizer — a parser (none ships today) would end the guessing ZP1's backstops
 * cover.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configGraph } from "../../loader/config-graph";
import { configPackagePlaces } from "../../loader/installed-code";
import { scanModuleSource } from "../../loader/module-scan";
import { scriptReferences } from "../../loader/script-references";
import { attackBench, trustNow } from "./attack-bench";

const KEY = "sk-test-redteam7zp";

const { project, trustedAttack, attack } = attackBench({
  name: "rt7zp",
  model: "openai:gpt-5",
  key: KEY,
  fill: () => {},
});

describe("ZP1: a module a trusted config loads cannot hide from trust behind a misread `/`", () => {
  const configs: [string, string, string][] = [
    [
      "TypeScript's non-null assertion before a division",
      "ubiquity.config.ts",
      'const n: number | undefined = 4;\nconst half = n! / 2; await import("./lib/helper.mjs"); const two = 4 / 2;\nexport default { maxTurns: 4 + half + two };\n',
    ],
    [
      "TypeScript's type arguments before a division",
      "ubiquity.config.ts",
      'const g = (x: number) => x;\nconst h = g<number> / 2; await import("./lib/helper.mjs"); const two = 4 / 2;\nexport default { maxTurns: 4 + two };\n',
    ],
    [
      "a postfix ++ before a division",
      "ubiquity.config.mjs",
      'let i = 4;\nconst half = i++ / 2; await import("./lib/helper.mjs"); const two = 4 / 2;\nexport default { maxTurns: 4 + half + two };\n',
    ],
    [
      "a regular expression after an if head",
      "ubiquity.config.mjs",
      'const s = "a";\nif (s) /"/.test(s); await import("./lib/helper.mjs"); "";\nexport default { maxTurns: 4 };\n',
    ],
  ];
  for (const [what, name, source] of configs) {
    it(`${what}: trust lists the helper, and a changed helper keeps the config out (${name})`, async () => {
      const p = project();
      mkdirSync(join(p.cwd, ".git"));
      mkdirSync(join(p.cwd, "lib"));
      writeFileSync(join(p.cwd, name), source);
      writeFileSync(join(p.cwd, "lib", "helper.mjs"), "export const helper = 1;\n");
      await trustNow(p);
      // The clone's next commit: the helper the user never saw approved now writes a marker.
      const marker = join(p.cwd, "helper-ran");
      writeFileSync(
        join(p.cwd, "lib", "helper.mjs"),
        `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport const helper = 1;\n`,
      );
      const { run } = await trustedAttack([], [], p, false);
      expect(existsSync(marker)).toBe(false);
      expect(run.stderr).toContain("lib/helper.mjs (changed)");
      expect(configGraph(join(p.cwd, name)).modules).toContain(join(p.cwd, "lib", "helper.mjs"));
    });
  }

  it("the sandbox's list of the config's packages reads a TypeScript config as Node strips it", () => {
    const p = project();
    mkdirSync(join(p.cwd, "node_modules", "foo-pkg"), { recursive: true });
    writeFileSync(join(p.cwd, "node_modules", "foo-pkg", "package.json"), JSON.stringify({ name: "foo-pkg" }));
    writeFileSync(join(p.cwd, "node_modules", "foo-pkg", "index.js"), "module.exports = 1;\n");
    writeFileSync(
      join(p.cwd, "ubiquity.config.ts"),
      'const g = (x: number) => x;\nconst h = g<number> / 2; await import("foo-pkg"); const z = 1 / 1;\nexport default {};\n',
    );
    expect(configPackagePlaces(join(p.cwd, "ubiquity.config.ts"), [p.cwd]).installed).toEqual([
      join(p.cwd, "node_modules", "foo-pkg"),
    ]);
  });

  it("the scan: each misread that hid a load, and what it keeps reading as before", () => {
    const hidden = [
      'const n = a! / 2; import("./e.mjs"); const k = 4 / 2;',
      'const n = i-- / 2; import("./e.mjs"); const k = 4 / 2;',
      'while (x) /"/.test(s); import("./e.mjs"); "";',
      'function f() {}\n/"/.test("a"); import("./e.mjs");',
      '() => {}\n/"/.test("a"); import("./e.mjs");',
    ];
    for (const source of hidden) expect(scanModuleSource(source).imports, source).toEqual(["./e.mjs"]);
    // A guess left wrong (a TypeScript type argument, scanned raw): the file's name is still pinned, and the load is refused.
    const raw = scanModuleSource('const h = g<string> / 2; import(name); const z = 1 / 1; "./e.mjs";');
    expect(raw.computed.length).toBeGreaterThan(0);
    // A guess left wrong (a block after a label read as an object): a load's words before a hidden specifier are refused,
    // and a file's name in the source is pinned, a file: URL's too.
    const label = scanModuleSource('lbl: {}\n/"/.test("a"); import /**/ ("#helper"); "";');
    expect(label.computed.length).toBeGreaterThan(0);
    expect(scanModuleSource('lbl: {}\n/"/.test("a"); import y from "file:///x/e.mjs"; "";').paths).toContain(
      "file:///x/e.mjs",
    );
    // Prose is no load: a prompt in a config that says "import" stays a string.
    expect(
      scanModuleSource(
        'const p = "Never import untrusted code"; const q = `copied from ${x}`; const r = `import ${y}`; const a = ["--import", "tsx"];',
      ).computed,
    ).toEqual([]);
    // As before: a regular expression after `!`, `(` or a return; a division after a call or an object.
    for (const source of [
      'if (!/^x$/.test(s)) import("./e.mjs");',
      'const o = { a: 1 }\nconst q = o.a / 2; import("./e.mjs");',
      'const q = f(1) / 2; import("./e.mjs");',
      'function t() { return /"/.test(s); }\nimport("./e.mjs");',
    ])
      expect(scanModuleSource(source), source).toEqual({ imports: ["./e.mjs"], paths: ["./e.mjs"], computed: [] });
  });
});

describe("ZP2: a file made beside an import without an extension is not loaded in its place", () => {
  const withHelper = () => {
    const p = project();
    mkdirSync(join(p.cwd, ".git"));
    mkdirSync(join(p.cwd, "lib"));
    writeFileSync(
      join(p.cwd, "ubiquity.config.ts"),
      'import { who } from "./lib/helper";\nexport default { maxTurns: who.length + 3 };\n',
    );
    writeFileSync(join(p.cwd, "lib", "helper.ts"), 'export const who = "ts";\n');
    return p;
  };
  const planted = (marker: string) =>
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport const who = "js";\n`;

  it("in a trusted folder, a new lib/helper.js keeps the config out and is named", async () => {
    const p = withHelper();
    await trustNow(p);
    const marker = join(p.cwd, "planted-ran");
    writeFileSync(join(p.cwd, "lib", "helper.js"), planted(marker));
    const { run } = await trustedAttack([], [], p, false);
    expect(existsSync(marker)).toBe(false);
    expect(run.stderr).toContain("lib/helper.js (new)");
  });

  it("the model's sandboxed command cannot make lib/helper.js for the next start to run", async () => {
    const p = withHelper();
    const marker = join(p.cwd, "planted-ran");
    const source = planted(marker);
    // A write the engine cannot name (a program's own): the sandbox is what holds it.
    const b64 = Buffer.from(source).toString("base64");
    const { out } = await attack(
      [
        `python3 -c "import base64; open('lib/' + 'helper.js', 'w').write(base64.b64decode('${b64}').decode())"; echo made`,
      ],
      ["--sandbox", "--permission-mode", "bypassPermissions"],
      p,
      { UBIQUITY_TRUST: "1" },
    );
    expect(out[0]!.content).toContain("made");
    expect(existsSync(join(p.cwd, "lib", "helper.js"))).toBe(false);
    // The next start, trusted for the run as the first: the config loads its own helper.
    await attack([], [], p, { UBIQUITY_TRUST: "1" });
    expect(existsSync(marker)).toBe(false);
  });
});

describe("ZP3: the project's own package is pinned under every condition of its exports", () => {
  for (const [what, exports] of [
    ["import and require entries", { "./plugin": { import: "./lib/evil.mjs", require: "./lib/good.cjs" } }],
    ["an import entry alone", { "./plugin": { import: "./lib/evil.mjs" } }],
  ] as const) {
    it(`${what}: a changed import target keeps the config out`, async () => {
      const p = project();
      mkdirSync(join(p.cwd, ".git"));
      mkdirSync(join(p.cwd, "lib"));
      writeFileSync(join(p.cwd, "package.json"), JSON.stringify({ name: "myproj", type: "module", exports }));
      writeFileSync(join(p.cwd, "lib", "evil.mjs"), "export default {};\n");
      writeFileSync(join(p.cwd, "lib", "good.cjs"), "module.exports = {};\n");
      writeFileSync(
        join(p.cwd, "ubiquity.config.ts"),
        'import plugin from "myproj/plugin";\nexport default { maxTurns: plugin ? 3 : 4 };\n',
      );
      await trustNow(p);
      const marker = join(p.cwd, "evil-ran");
      writeFileSync(
        join(p.cwd, "lib", "evil.mjs"),
        `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport default {};\n`,
      );
      const { run } = await trustedAttack([], [], p, false);
      expect(existsSync(marker)).toBe(false);
      expect(run.stderr).toContain("lib/evil.mjs (changed)");
    });
  }
});

describe("ZP4: a relative import pins the file its URL names as well as its path", () => {
  it("a hook's script: the files its imports name as URLs are pinned with it", () => {
    const p = project();
    mkdirSync(join(p.cwd, "hooks", "lib"), { recursive: true });
    writeFileSync(join(p.cwd, "hooks", "check.mjs"), 'import "./%78.mjs";\nimport "./lib\\\\helper.mjs";\n');
    writeFileSync(join(p.cwd, "hooks", "x.mjs"), "export {};\n");
    writeFileSync(join(p.cwd, "hooks", "lib", "helper.mjs"), "export {};\n");
    expect(scriptReferences(join(p.cwd, "hooks", "check.mjs"), p.cwd)).toEqual([
      join(p.cwd, "hooks", "lib", "helper.mjs"),
      join(p.cwd, "hooks", "x.mjs"),
    ]);
  });

  for (const [what, specifier, literal, loaded] of [
    ["a percent-encoded name", "./%78.mjs", "%78.mjs", "x.mjs"],
    ["a backslash", "./lib\\helper.mjs", "lib\\helper.mjs", join("lib", "helper.mjs")],
  ] as const) {
    it(`${what}: the file Node loads is pinned, and its change keeps the config out`, async () => {
      const p = project();
      mkdirSync(join(p.cwd, ".git"));
      mkdirSync(join(p.cwd, "lib"));
      writeFileSync(join(p.cwd, literal), "export const who = 1;\n");
      writeFileSync(join(p.cwd, loaded), "export const who = 2;\n");
      writeFileSync(
        join(p.cwd, "ubiquity.config.mjs"),
        `import { who } from ${JSON.stringify(specifier)};\nexport default { maxTurns: who + 3 };\n`,
      );
      await trustNow(p);
      const marker = join(p.cwd, "url-ran");
      writeFileSync(
        join(p.cwd, loaded),
        `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport const who = 2;\n`,
      );
      const { run } = await trustedAttack([], [], p, false);
      expect(existsSync(marker)).toBe(false);
      expect(run.stderr).toContain(`${loaded} (changed)`);
    });
  }
});

describe("ZP5: installed code a config loads by its path stays read-only in the sandbox", () => {
  it("the model's sandboxed command cannot rewrite ./node_modules/foo/index.mjs for the next start", async () => {
    const p = project();
    mkdirSync(join(p.cwd, ".git"));
    mkdirSync(join(p.cwd, "node_modules", "foo"), { recursive: true });
    writeFileSync(join(p.cwd, "node_modules", "foo", "index.mjs"), "export const x = 1;\n");
    writeFileSync(
      join(p.cwd, "ubiquity.config.mjs"),
      'import { x } from "./node_modules/foo/index.mjs";\nexport default { maxTurns: x + 3 };\n',
    );
    const marker = join(p.cwd, "installed-ran");
    const source = `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport const x = 1;\n`;
    const b64 = Buffer.from(source).toString("base64");
    await attack(
      [
        `python3 -c "import base64; open('node_modules/foo/' + 'index.mjs', 'w').write(base64.b64decode('${b64}').decode())"`,
      ],
      ["--sandbox", "--permission-mode", "bypassPermissions"],
      p,
      { UBIQUITY_TRUST: "1" },
    );
    await attack([], [], p, { UBIQUITY_TRUST: "1" });
    expect(existsSync(marker)).toBe(false);
  });
});
