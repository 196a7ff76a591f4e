/**
 * Red team of 2026-12-06 (o): the day's four protections (Glob's own walk, MCP server packages,
 * hook script references, skills' shell lines), attacked by constructs their tests did not list.
 * Each finding's test failed before its fix (checked by reverting the fix).
 *
 * O1 FIXED  Glob held the event loop for minutes, no abort reaching it: `{a,b}` written 25 times
 *           (110 characters) was spelled out in full by the `..` check (33 million strings; 22
 *           times took 13 s), and `*a*a*a*a*ab` against one file named with 250 `a`s backtracked
 *           in picomatch's regex (each `*` a `[^/]*?`: over 10 s for one file; a Write makes it).
 *           A pattern whose matching cost has no small bound is refused now (brace expansions,
 *           `*` within names and `**` segments counted on an upper bound).
 * O2 FIXED  A hook script's references missed cheap static spellings: `source "$(dirname
 *           "$0")/lib.sh"` and `. "$DIR/tools/x.sh"` (the word's head is run-time: dropped, or
 *           `/lib.sh`), `require("./lib")` (lib/index.js, or its package.json main), `from helpers
 *           import ok` (helpers/__init__.py), `python -m tools.hooks.guard` (tools/__init__.py),
 *           `from ..shared import x`, and `. ./.env.hook` / `source config/vars` (no script's
 *           name or mode). Each, at the project's top, changed by a sandboxed command, ran on
 *           the host at the next start.
 * O3 FIXED  A hook's script with no script's name and no execute bit (`sh guard`, `python3
 *           check`) was not read for what it loads, during a run or in the trust digest.
 * O4 FIXED  An MCP server started through a wrapper (`env npx --offline -y PKG`, `sh -c "npx
 *           …"`) or by its path protected no node_modules: a sandboxed append to the package ran
 *           as the server at the next start (marker written; through the bin, real bwrap, npx).
 * O5 FIXED  A `Skill(deploy)` deny rule held only for a call without args: with `args: "now"`
 *           the denied skill loaded, its allowed-tools were granted and its `!`cmd`` lines ran.
 * O6 FIXED  Glob judged a folder's real place after the walk: a folder swapped for a link to one
 *           outside the roots for the read, and back before the judgement, listed the target
 *           (real race against a `mv` loop: 9 of 133 calls listed it; here timed by the walk's
 *           signal reads). Folders are read through their open descriptor and judged there.
 * O7 FIXED  `npx -y mcp-weather` (a bin's name, not the package's) runs node_modules/.bin/
 *           mcp-weather from whichever package installed it (`@acme/mcp-weather`: checked with
 *           npx offline, marker written); only `node_modules/mcp-weather` and `.bin` were
 *           protected, so a sandboxed append to @acme/mcp-weather's code (or an acceptEdits
 *           Write) ran as the server at the next start. The package the `.bin` entry of the
 *           name leads to is a configured package's place now, with its dependency closure.
 *
 * Run and held (17): Glob `\.\./*` (escaped static `..`: refused by the folder judgement),
 * `@(..)/*`, `+(..)/*`, `[.][.]/*`, `?(.)./*` (the walk reads no `..` entries: nothing found),
 * `{.,..}/*` and `sub/../../*` (refused), an absolute `<proj>/@(x|../../<parent>)/*` (nothing
 * found), a start folder that is a link to one outside, `path: "sub/../.."` (refused), a link
 * loop and a link to a file outside (neither entered nor listed), a FIFO as path (refused), a
 * tree deeper than PATH_MAX (walked, the rest skipped); Python `sitecustomize.py` beside a hook
 * script and in its cwd (not loaded: site runs before sys.path[0]); npx on a project whose
 * package.json is named as the package (runs the bin from the protected node_modules/.bin; real
 * npx, offline); a plain `cd lib` in a hook script (no longer pins lib/index.js's imports).
 * Read from the code and held (12): `require(path.join(__dirname, "lib"))` and
 * `importlib.import_module("tools.x")` (their words name the file); `npx --prefix`,
 * `--registry`, `-c`, `npm --yes exec` (count as every node_modules); workspace links (the
 * closure follows them); a relative PATH entry in a server's env (stripped after the server's
 * env is added); skills: `$ARGUMENTS` with `; touch x` inside a line and args holding a new
 * `!`touch x`` line (each a Bash call judged as the model's own, with the grants the model has
 * anyway once it loaded the skill), a line's output holding `!`…`` (not run again), a skill
 * changed on disk during the run (its body was read at start), plan mode (lines judged in plan
 * mode), disable-model-invocation (not offered, also in narrowed listings).
 * Left open: a server's own `env` naming a workspace folder (`npm_config_cache=./.npm`,
 * `NODE_PATH=vendor`) is not protected; pnpm 10's settings in pnpm-workspace.yaml (pnpm not
 * installed here: unverified); tsconfig `paths` and package.json `imports` (`#lib`) aliases in a
 * hook script; a relatively named folder's package.json is read for its main but not pinned; a
 * hook script that writes a file with a script's name counts as changed after its first run (as
 * before); O3 reads every file a hook names but one with a data format's name (`.json`, `.md`,
 * `.log`, …): a hook naming a file without one that names more than 64 code files counts as
 * changed (fail closed); O6 costs Glob about a third more time on a tree of 9,000 folders (one
 * open, one descriptor read and a readlink per folder holding results); `.gitignore` globs in
 * Grep's Node walk (no rg) are matched by micromatch too, and were not checked for O1's
 * backtracking.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GlobTool } from "../../plugins/tool-glob/index";
import { configuredPackagePlace, rememberConfiguredPackage, scriptReferences } from "../../loader/index";
import { digestProjectPath } from "../../loader/trust-pins";
import { changedHookScript, pinHookScripts } from "../../plugins/hooks/pins";
import { runnerPackages } from "../../plugins/mcp/server-packages";
import { sandboxAvailability } from "../../plugins/sandbox/availability";
import { attackBench, installMcpPackage, MCP_PACKAGE, MCP_SERVER } from "./attack-bench";
import { summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import skills from "../../plugins/skills/index";
import toolBash from "ubiquity/plugins/tool-bash";
import permissions from "ubiquity/plugins/permissions";
import { collect, ofType } from "../helpers/collect";
import { tempDir, toolContext } from "../tools/helpers";

const glob = new GlobTool();

describe("O1: a Glob pattern whose matching has no bound holds the event loop", () => {
  it("refuses a pattern with millions of brace expansions, and one whose wildcards backtrack without bound", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a".repeat(250)), "x");
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "app.test.ts"), "x");
    const braces = await glob.call({ pattern: "{a,b}".repeat(25) }, toolContext(dir));
    expect(braces.isError).toBe(true);
    expect(braces.content).toContain("too costly");
    const stars = await glob.call({ pattern: "*a*a*a*a*ab" }, toolContext(dir));
    expect(stars.isError).toBe(true);
    expect(stars.content).toContain("too costly");
    const ranges = await glob.call({ pattern: "{1..1000}{1..1000}{1..1000}" }, toolContext(dir));
    expect(ranges.isError).toBe(true);
    // Everyday patterns still run.
    for (const pattern of ["**/*.test.*", "src/**/*.{ts,tsx}", "**/*app*test*", "src/**/x/**/*.ts", "*{1..3}"])
      expect((await glob.call({ pattern }, toolContext(dir))).isError, pattern).toBeFalsy();
    expect((await glob.call({ pattern: "**/*app*test*" }, toolContext(dir))).content).toBe("src/app.test.ts");
  }, 60_000);
});

/** A project folder holding `files` (path → text). */
function projectWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "ubq-redteam-o-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe("O2: a hook script loads code by a cheap static spelling the scan missed", () => {
  it('`$(dirname "$0")/lib.sh` and `$DIR/lib.sh` from a script at the project\'s top', () => {
    const dir = projectWith({
      "guard.sh": 'source "$(dirname "$0")/lib.sh"\nDIR=$(cd "$(dirname "$0")" && pwd)\n. "$DIR/tools/more.sh"\n',
      "lib.sh": "true\n",
      "tools/more.sh": "true\n",
    });
    expect(scriptReferences(join(dir, "guard.sh"), dir)).toEqual([join(dir, "lib.sh"), join(dir, "tools/more.sh")]);
    // What `source` and `.` read is code whatever its name: `. ./.env.hook`, `source config/vars`.
    writeFileSync(join(dir, "env.sh"), ". ./.env.hook\nsource config/vars\necho done >> run.log\n");
    writeFileSync(join(dir, ".env.hook"), "X=1\n");
    mkdirSync(join(dir, "config"));
    writeFileSync(join(dir, "config", "vars"), "Y=2\n");
    writeFileSync(join(dir, "run.log"), "");
    expect(scriptReferences(join(dir, "env.sh"), dir)).toEqual([join(dir, ".env.hook"), join(dir, "config/vars")]);
  });

  it('a folder loaded by its name: `require("./lib")` (lib/index.js), a Python package (`__init__.py`)', () => {
    const dir = projectWith({
      "check.js": 'const lib = require("./lib");\n',
      "lib/index.js": "module.exports = 1;\n",
      "check.py": "from helpers import ok\n",
      "helpers/__init__.py": "ok = 1\n",
    });
    expect(scriptReferences(join(dir, "check.js"), dir)).toEqual([join(dir, "lib/index.js")]);
    expect(scriptReferences(join(dir, "check.py"), dir)).toEqual([join(dir, "helpers/__init__.py")]);
    // A folder's package.json names its entry.
    mkdirSync(join(dir, "pkg"));
    writeFileSync(join(dir, "pkg", "package.json"), JSON.stringify({ name: "pkg", main: "./impl" }));
    writeFileSync(join(dir, "pkg", "impl.js"), "module.exports = 2;\n");
    writeFileSync(join(dir, "main.js"), 'require("./pkg");\n');
    expect(scriptReferences(join(dir, "main.js"), dir)).toEqual([join(dir, "pkg/impl.js")]);
    // A folder a word names without `./` is no Node module: `cd lib` does not pin what lib/index.js loads.
    writeFileSync(join(dir, "cd.sh"), "cd lib && npm test\n");
    expect(scriptReferences(join(dir, "cd.sh"), dir)).toEqual([]);
  });

  it("`python -m tools.hooks.guard` runs each package's `__init__.py`; a relative import climbs (`from ..shared import x`)", () => {
    const dir = projectWith({
      "run.sh": "python3 -m tools.hooks.guard\n",
      "tools/__init__.py": "\n",
      "tools/hooks/__init__.py": "\n",
      "tools/hooks/guard.py": "from ..shared import check\nfrom .local import x\n",
      "tools/hooks/local.py": "x = 1\n",
      "tools/shared.py": "check = 1\n",
    });
    expect(scriptReferences(join(dir, "run.sh"), dir)).toEqual(
      [
        "tools/__init__.py",
        "tools/hooks/__init__.py",
        "tools/hooks/guard.py",
        "tools/hooks/local.py",
        "tools/shared.py",
      ].map((f) => join(dir, f)),
    );
  });
});

describe("O3: a hook's script with no script's name and no execute bit (`sh guard`) was not read for what it loads", () => {
  it("a change to what it sources counts as a change of the hook, and of the trusted settings file", () => {
    const dir = projectWith({
      guard: "#!/bin/sh\n. ./lib.sh\n",
      "lib.sh": "true\n",
      check: "import helper\n",
      "helper.py": "x = 1\n",
      ".ubiquity/settings.json": JSON.stringify({
        hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "sh guard >> hook.log" }] }] },
      }),
    });
    const hook = { type: "command" as const, command: "sh guard >> hook.log" };
    const python = { type: "command" as const, command: "python3 check" };
    pinHookScripts({ PreToolUse: [{ hooks: [hook, python] }] }, dir);
    const trusted = digestProjectPath(join(dir, ".ubiquity/settings.json"));
    expect(trusted).toBeDefined();
    writeFileSync(join(dir, "hook.log"), "guard ran\n");
    expect(changedHookScript(hook, dir)).toBeUndefined();
    writeFileSync(join(dir, "lib.sh"), "touch pwned\n");
    writeFileSync(join(dir, "helper.py"), "import os\n");
    expect(changedHookScript(hook, dir)).toBe(join(dir, "lib.sh"));
    expect(changedHookScript(python, dir)).toBe(join(dir, "helper.py"));
    expect(digestProjectPath(join(dir, ".ubiquity/settings.json"))).not.toBe(trusted);
  });

  it("a data file a hook names (`jq .version package.json`) is not read for what it loads: a build changes no hook", () => {
    const dir = projectWith({
      "package.json": JSON.stringify({ name: "app", main: "dist/index.js" }),
      "dist/index.js": "module.exports = 1;\n",
    });
    const hook = { type: "command" as const, command: "jq -r .version package.json" };
    pinHookScripts({ PreToolUse: [{ hooks: [hook] }] }, dir);
    writeFileSync(join(dir, "dist/index.js"), "module.exports = 2;\n");
    expect(changedHookScript(hook, dir)).toBeUndefined();
  });
});

const PKG = MCP_PACKAGE;
const SERVER = MCP_SERVER;
const PAYLOAD = `require("fs").writeFileSync("MARK", "ran")`;

const { attack, project } = attackBench<{ command: string; args: string[] }>({
  name: "redteamo",
  model: "openai:gpt-4.1",
  key: "sk-test-redteam-o",
  fill: ({ cwd }, { command, args }) => {
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { weather: { command, args } } }));
    installMcpPackage(cwd);
  },
});

describe("O4: an MCP server started through a wrapper or by its path ran what a sandboxed command planted", () => {
  it("a program that is no runner counts as loading every node_modules unless it is a bare name whose words name no runner", () => {
    expect(runnerPackages("env", ["npx", "-y", "@acme/mcp-weather"])).toBeUndefined();
    expect(runnerPackages("sh", ["-c", "npx -y @acme/mcp-weather"])).toBeUndefined();
    expect(runnerPackages("timeout", ["60", "node", "server.js"])).toBeUndefined();
    expect(runnerPackages("./node_modules/.bin/mcp-weather", [])).toBeUndefined();
    expect(runnerPackages("uvx", ["mcp-server-git"])).toEqual([]);
    expect(runnerPackages("docker", ["run", "-i", "--rm", "mcp/fetch"])).toEqual([]);
  });

  it.skipIf(!sandboxAvailability().ok)(
    "`env npx --offline -y PKG`: a sandboxed append to the package fails, and the next start does not run it",
    async () => {
      const p = project({ command: "env", args: ["npx", "--offline", "-y", "@acme/mcp-weather"] });
      const flags = ["--permission-mode", "bypassPermissions"];
      const { out } = await attack([`f=index.js; printf '%s\\n' '${PAYLOAD}' >> ${PKG}/$f; echo tried`], flags, p);
      expect(out[0]!.content).toMatch(/Read-only file system/);
      expect(readFileSync(join(p.cwd, PKG, "index.js"), "utf8")).toBe(SERVER);
      await attack([], flags, p);
      expect(existsSync(join(p.cwd, "MARK"))).toBe(false);
    },
  );
});

describe("O5: a `Skill(name)` deny rule held only for a call without args", () => {
  it("the model's Skill call with any args loaded the denied skill, granted its allowed-tools and ran its shell lines", async () => {
    const cwd = projectWith({
      "skills/deploy/SKILL.md":
        "---\ndescription: Deploy.\nallowed-tools: Bash(touch:*)\n---\nDeploying: !`touch DEPLOYED`\n",
    });
    const calls = [undefined, "now", "--prod  "];
    for (const [i, args] of calls.entries()) {
      let n = 0;
      const model = scriptedModel(() =>
        n++ === 0
          ? { toolCalls: [{ toolName: "Skill", input: { skill: "deploy", ...(args ? { args } : {}) }, id: "s1" }] }
          : "done",
      );
      const messages: Message[] = await collect(
        summon("go", {
          model,
          presets: [],
          cwd,
          plugins: [skills(), toolBash(), permissions()],
          skills: [join(cwd, "skills")],
          permissionMode: "bypassPermissions",
          disallowedTools: ["Skill(deploy)"],
        }),
      );
      const result = ofType(messages, "tool_result").find((r) => r.toolUseId === "s1")!;
      expect(existsSync(join(cwd, "DEPLOYED")), `call ${i}: the shell line ran`).toBe(false);
      expect(result.output.isError, `call ${i}: ${result.output.content}`).toBe(true);
      expect(result.output.content).toContain("Skill(deploy)");
    }
  });
});

describe("O6: a folder swapped for a link while Glob walks is read in one place and judged in another", () => {
  it("a background command's swap between the read and the judgement lists nothing from the link's target", async () => {
    const dir = projectWith({ "sub/own.txt": "x" });
    const away = projectWith({ id_ed25519: "key", "deeper/known_hosts": "h" });
    // The swap as a background command makes it, timed deterministically: the walk reads its signal
    // before each folder. Before `sub` is read it is a link to `away` (outside the roots); before
    // the next folder, a real folder again, as when the tool judges where `sub` is.
    let reads = 0;
    const swapping = {
      get aborted() {
        reads++;
        if (reads === 2) {
          renameSync(join(dir, "sub"), join(dir, "sub.real"));
          symlinkSync(away, join(dir, "sub"));
        } else if (reads === 3) {
          renameSync(join(dir, "sub"), join(dir, "sub.link"));
          renameSync(join(dir, "sub.real"), join(dir, "sub"));
        }
        return false;
      },
    } as AbortSignal;
    const out = await glob.call({ pattern: "**/*" }, toolContext(dir, { abortSignal: swapping }));
    expect(reads).toBeGreaterThanOrEqual(3);
    expect(out.content).not.toContain("id_ed25519");
    expect(out.isError).toBe(true);
  });
});

describe("O7: `npx -y mcp-weather` runs the `.bin` entry of that name, from whichever package installed it", () => {
  it("that package is a configured package's place for the engine", () => {
    const p = project({ command: "npx", args: ["-y", "mcp-weather"] });
    const code = join(realpathOf(p.cwd), PKG, "index.js");
    expect(configuredPackagePlace(code)).toBeUndefined();
    rememberConfiguredPackage("mcp-weather", p.cwd);
    expect(configuredPackagePlace(code)).toBe(join(realpathOf(p.cwd), PKG));
  });

  it.skipIf(!sandboxAvailability().ok)(
    "a sandboxed append to @acme/mcp-weather fails, and the next start does not run it",
    async () => {
      const p = project({ command: "npx", args: ["--offline", "-y", "mcp-weather"] });
      const flags = ["--permission-mode", "bypassPermissions"];
      const { out } = await attack([`f=index.js; printf '%s\\n' '${PAYLOAD}' >> ${PKG}/$f; echo tried`], flags, p);
      expect(out[0]!.content).toMatch(/Read-only file system/);
      expect(readFileSync(join(p.cwd, PKG, "index.js"), "utf8")).toBe(SERVER);
      await attack([], flags, p);
      expect(existsSync(join(p.cwd, "MARK"))).toBe(false);
    },
  );
});

function realpathOf(path: string): string {
  return realpathSync(path);
}
