/**
 * Issue 45: no function of the shipped code is over 100 code lines (formatted by Biome at 120
 * columns; blank and comment lines not counted). A long function is split into named steps.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { functionLengths, longFunctions } from "../../scripts/long-functions";

const ROOT = join(import.meta.dirname, "..", "..");
const LIMIT = 100;

describe("function length", () => {
  const long = longFunctions(ROOT, LIMIT);
  it(`no function is over ${LIMIT} code lines`, () => {
    const over = long.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines})`);
    expect(over, "split these into named steps (npx jiti scripts/long-functions.ts lists them)").toEqual([]);
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
