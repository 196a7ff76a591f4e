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
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GlobTool } from "../../plugins/tool-glob/index";
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
