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
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GlobTool } from "../../plugins/tool-glob/index";
import { scriptReferences } from "../../loader/index";
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
  it("`$(dirname \"$0\")/lib.sh` and `$DIR/lib.sh` from a script at the project's top", () => {
    const dir = projectWith({
      "guard.sh": 'source "$(dirname "$0")/lib.sh"\nDIR=$(cd "$(dirname "$0")" && pwd)\n. "$DIR/tools/more.sh"\n',
      "lib.sh": "true\n",
      "tools/more.sh": "true\n",
    });
    expect(scriptReferences(join(dir, "guard.sh"), dir)).toEqual([join(dir, "lib.sh"), join(dir, "tools/more.sh")]);
  });

  it("a folder loaded by its name: `require(\"./lib\")` (lib/index.js), a Python package (`__init__.py`)", () => {
    const dir = projectWith({
      "check.js": 'const lib = require("./lib");\n',
      "lib/index.js": "module.exports = 1;\n",
      "check.py": "from helpers import ok\n",
      "helpers/__init__.py": "ok = 1\n",
    });
    expect(scriptReferences(join(dir, "check.js"), dir)).toEqual([join(dir, "lib/index.js")]);
    expect(scriptReferences(join(dir, "check.py"), dir)).toEqual([join(dir, "helpers/__init__.py")]);
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
      ["tools/__init__.py", "tools/hooks/__init__.py", "tools/hooks/guard.py", "tools/hooks/local.py", "tools/shared.py"].map(
        (f) => join(dir, f),
      ),
    );
  });
});
