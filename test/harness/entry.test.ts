/**
 * `ubiquity/harness` is its own entry, and `@ai-sdk/harness` (an optional peer) is loaded by it
 * only on demand: the built package entry and every chunk it imports never name it, and the
 * harness entry names it only in `import()` (its error class, on the paths that throw it).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const dist = resolve(import.meta.dirname, "../../dist");

/** A built module and every module it imports statically, transitively (relative imports only). */
function closure(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const code = readFileSync(file, "utf8");
    seen.set(file, code);
    for (const [, spec] of code.matchAll(/^\s*(?:import|export)\b[^'"]*?['"](\.{1,2}\/[^'"]+)['"]/gm))
      visit(join(dirname(file), spec!));
  };
  visit(entry);
  return seen;
}

describe("the ubiquity/harness entry (built)", () => {
  it("the package entry never loads @ai-sdk/harness; the harness entry only imports it lazily", () => {
    expect(existsSync(join(dist, "harness/index.mjs"))).toBe(true);
    for (const [file, code] of closure(join(dist, "sdk/index.mjs"))) {
      expect(code.includes("@ai-sdk/harness"), file).toBe(false);
      expect(code.includes("harness/index"), file).toBe(false);
    }
    const harness = [...closure(join(dist, "harness/index.mjs")).values()].join("\n");
    expect(harness).toMatch(/import\(['"]@ai-sdk\/harness['"]\)/);
    expect(harness).not.toMatch(/from\s*['"]@ai-sdk\/harness/);
    expect(harness).not.toMatch(/^\s*import\s*['"]@ai-sdk\/harness/m);
  });

  it("package.json exports ./harness with its types", () => {
    const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../package.json"), "utf8")) as {
      exports: Record<string, unknown>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    expect(pkg.exports["./harness"]).toEqual({
      types: "./dist/types/harness/index.d.ts",
      import: "./dist/harness/index.mjs",
    });
    expect(pkg.peerDependenciesMeta["@ai-sdk/harness"]).toEqual({ optional: true });
  });
});
