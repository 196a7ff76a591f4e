/**
 * Longest test files first. vitest orders by the durations in its cache, which a clean clone (CI)
 * does not have; it then falls back to file size, which put a 68 s file last and left two of three
 * workers idle for a minute. The committed durations (scripts/test-durations.ts writes them) come
 * first, then the cache's, then size; the isolated project before the shared one, as vitest does.
 */
import { readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const ROOT = join(import.meta.dirname, "..", "..");
const committed = JSON.parse(readFileSync(join(import.meta.dirname, "durations.json"), "utf8")) as Record<
  string,
  number
>;

/** A file's expected seconds: committed, else the cache's, else its size as a small tie-breaker. */
function expected(spec: TestSpecification, cached: number | undefined): number {
  const known = committed[relative(ROOT, spec.moduleId)];
  if (known !== undefined) return known;
  if (cached !== undefined) return cached / 1000;
  try {
    return statSync(spec.moduleId).size / 1e6;
  } catch {
    return 0;
  }
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = new Map(
      files.map((spec) => [spec, expected(spec, this.ctx.cache.getTestSpecificationResult(spec)?.duration)]),
    );
    return [...files].sort((a, b) => {
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      return seconds.get(b)! - seconds.get(a)!;
    });
  }
}
