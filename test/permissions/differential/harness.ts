/**
 * The differential harness: generate strings, run them in bash (oracle.ts), compare with the
 * engine (compare.ts), and shrink every string whose disagreement ended in `allow` to a minimal
 * reproducer that still does.
 */
import { loadShellParser } from "../../../plugins/permissions/shell/parser";
import { compare, type Disagreement } from "./compare";
import { generateMany } from "./generator";
import { makeFixture, observe, type Fixture } from "./oracle";

/** What a run found. */
export interface HarnessReport {
  strings: number;
  /** Strings where the engine missed something bash did (harmless when the verdict asked or denied). */
  disagreements: Disagreement[];
  /** The disagreements that produced `allow`, shrunk: each one a bug. */
  failures: Disagreement[];
  /** How many strings bash ran without being killed by the time limit. */
  completed: number;
  ms: number;
}

/** Compare many strings with the engine. */
export async function compareAll(
  strings: string[],
  fixture: Fixture,
): Promise<{ disagreements: Disagreement[]; completed: number }> {
  await loadShellParser();
  const observations = await observe(strings, fixture);
  const disagreements: Disagreement[] = [];
  let completed = 0;
  for (let i = 0; i < strings.length; i++) {
    if (observations[i]!.status !== 137) completed++;
    const d = await compare(strings[i]!, observations[i]!, { cwd: fixture.workspace, home: fixture.home });
    if (d) disagreements.push(d);
  }
  return { disagreements, completed };
}

/** Generate `count` strings from `seed`, compare them, shrink the failures. */
export async function runHarness(
  count: number,
  seed: number,
  options: {
    shrink?: boolean;
    chunk?: number;
    onProgress?: (done: number, disagreements: number, allowed: number, ms: number) => void;
  } = {},
): Promise<HarnessReport> {
  const started = Date.now();
  const fixture = makeFixture();
  try {
    const chunk = options.chunk ?? 5000;
    const disagreements: Disagreement[] = [];
    let completed = 0;
    for (let start = 0; start < count; start += chunk) {
      // Regenerate from the seed each chunk so memory stays flat for a long fuzz run.
      const strings = generateMany(Math.min(count, start + chunk), seed).slice(start);
      const found = await compareAll(strings, fixture);
      disagreements.push(...found.disagreements);
      completed += found.completed;
      options.onProgress?.(
        Math.min(count, start + chunk),
        disagreements.length,
        disagreements.filter((d) => d.allowed).length,
        Date.now() - started,
      );
    }
    const failing = disagreements.filter((d) => d.allowed);
    const failures: Disagreement[] = [];
    for (const f of failing) failures.push(options.shrink === false ? f : await shrink(f, fixture));
    return { strings: count, disagreements, failures, completed, ms: Date.now() - started };
  } finally {
    fixture.dispose();
  }
}

/**
 * Shrink a failing string: remove chunks of its pieces (then single characters) while the
 * engine still allows something bash shows it missed. Each round tries every removal at once,
 * in one sandbox batch, and keeps the shortest that still fails.
 */
export async function shrink(failure: Disagreement, fixture: Fixture, rounds = 40): Promise<Disagreement> {
  let best = failure;
  for (let round = 0; round < rounds; round++) {
    const tries = [...new Set(removals(best.source))].filter((s) => s.length < best.source.length && s.trim() !== "");
    if (tries.length === 0) break;
    const { disagreements } = await compareAll(tries, fixture);
    const smaller = disagreements.filter((d) => d.allowed).sort((a, b) => a.source.length - b.source.length)[0];
    if (!smaller) break;
    best = smaller;
  }
  return best;
}

/** Candidate reductions: drop runs of pieces (words, blanks, operators), then single characters for short strings. */
function removals(source: string): string[] {
  const pieces = source.match(/\s+|[;&|()<>{}]+|[^\s;&|()<>{}]+/g) ?? [source];
  const out: string[] = [];
  for (let size = Math.max(1, Math.floor(pieces.length / 2)); size >= 1; size = Math.floor(size / 2)) {
    for (let i = 0; i + size <= pieces.length; i++)
      out.push([...pieces.slice(0, i), ...pieces.slice(i + size)].join(""));
    if (size === 1) break;
  }
  if (source.length <= 80) for (let i = 0; i < source.length; i++) out.push(source.slice(0, i) + source.slice(i + 1));
  return out;
}

/** A disagreement as a reproducer a person can paste. */
export function formatDisagreement(d: Disagreement): string {
  const lines = [`reproducer: ${JSON.stringify(d.source)}`];
  if (d.unseenExecs.length > 0) lines.push(`  ran, but the engine did not see: ${d.unseenExecs.join(" | ")}`);
  if (d.unseenWrites.length > 0) lines.push(`  wrote, but the engine did not see: ${d.unseenWrites.join(", ")}`);
  for (const v of d.verdicts)
    lines.push(`  ${v.mode} with ${v.rules}: ${v.behavior}${v.behavior === "allow" ? "  <-- BUG" : ""}`);
  return lines.join("\n");
}
