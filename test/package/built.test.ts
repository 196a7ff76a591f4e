/**
 * What the build writes, read from dist/ (`npm test` builds it in pretest): every module is ASCII.
 * V8 keeps a module's source text while the module lives, one byte a character only when every
 * character fits in one; build.config.ts escapes the rest (issue 40: a "—" in a comment stored the
 * main chunk at twice its size).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, requireDist } from "../helpers/project";

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path.endsWith(join("dist", "types")) ? [] : modules(path);
    return entry.name.endsWith(".mjs") ? [path] : [];
  });
}

describe("the build", () => {
  it("writes every module in ASCII", () => {
    requireDist();
    const files = modules(join(repoRoot, "dist"));
    expect(files.length).toBeGreaterThan(20);
    const wide = files.flatMap((file) => {
      const at = readFileSync(file, "utf8").search(/[^\x00-\x7f]/);
      return at < 0 ? [] : [`${file.slice(repoRoot.length)} at ${at}`];
    });
    expect(wide).toEqual([]);
  });
});
