/**
 * Issue 45: no function of the shipped code is over 100 code lines (formatted by Biome at 120
 * columns; blank and comment lines not counted). A long function is split into named steps.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { functionLengths, longFunctions } from "../../scripts/long-functions";

const ROOT = join(import.meta.dirname, "..", "..");
const LIMIT = 100;

/**
 * Functions still over the limit while the plugin form is replaced (issue 45 point 1: each built-in
 * plugin's factory and `apply` in plugins/<name>/index.ts) and the kernel is cut to 2,000 lines
 * (src/). Those changes split them; an entry is removed when its function is split (the last test
 * fails on an entry that is no longer over the limit).
 */
const NOT_YET_SPLIT = new Set([
  "plugins/hooks/index.ts apply",
  "plugins/sessions/index.ts apply",
  "plugins/telemetry/index.ts apply",
]);

describe("function length", () => {
  const long = longFunctions(ROOT, LIMIT);
  const key = (f: { file: string; name: string }) => `${f.file} ${f.name}`;

  it(`no function is over ${LIMIT} code lines`, () => {
    const over = long
      .filter((f) => !NOT_YET_SPLIT.has(key(f)))
      .map((f) => `${f.file}:${f.line} ${f.name} (${f.lines})`);
    expect(over, "split these into named steps (npx jiti scripts/long-functions.ts lists them)").toEqual([]);
  });

  it("lists only functions that are still over the limit as not yet split", () => {
    const stillLong = new Set(long.map(key));
    expect(
      [...NOT_YET_SPLIT].filter((entry) => !stillLong.has(entry)),
      "remove these from NOT_YET_SPLIT",
    ).toEqual([]);
  });

  it("counts code lines of functions, arrows and methods, named by what holds them", () => {
    const text = [
      "export function outer() {",
      "  // a comment is not code",
      "",
      "  const inner = () => {",
      "    return 1;",
      "  };",
      "  return inner();",
      "}",
      "class Box {",
      "  open() {",
      "    return 2;",
      "  }",
      "}",
      "const TABLE = { read: (x: number) => x };",
      "[1].map((n) => {",
      "  return n;",
      "});",
    ].join("\n");
    expect(functionLengths("a.ts", text).map((f) => [f.name, f.line, f.lines])).toEqual([
      ["outer", 1, 6],
      ["inner", 4, 3],
      ["Box.open", 10, 3],
      ["TABLE.read", 14, 1],
      ["(callback of [1].map)", 15, 3],
    ]);
  });
});
