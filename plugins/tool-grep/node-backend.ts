/**
 * The pure-Node search backend, used when no ripgrep binary runs. It selects the files ripgrep
 * would (see node-walk.ts) and reports lines and counts the way ripgrep does.
 */
import { readFile } from "node:fs/promises";
import { dirname, sep } from "node:path";
import { ToolFailure } from "../_kits/file-tools/index";
import { toPosix, walkFiles } from "./node-walk";
import type { FileHits, SearchLine, SearchQuery, SearchResult } from "./search";

/** Files searched at once. */
const PARALLEL_READS = 32;

/** Search with JavaScript regular expressions over a Node file walk. */
export async function searchWithNode(query: SearchQuery, signal?: AbortSignal): Promise<SearchResult> {
  const matcher = compilePattern(query);
  const root = query.targetIsFile ? dirname(query.target) : query.target;
  const files = query.targetIsFile
    ? [query.target]
    : await walkFiles(query.target, { glob: query.glob, type: query.type, signal });
  // Hits carry paths relative to the root, as ripgrep prints them.
  const strip = root.endsWith(sep) ? root.length : root.length + 1;
  const hits: FileHits[] = [];
  let next = 0;
  const worker = async () => {
    while (next < files.length && !signal?.aborted) {
      const path = files[next++]!;
      const bytes = await readFile(path).catch(() => undefined);
      // ripgrep skips files with a NUL byte when it finds them by walking.
      if (!bytes || bytes.includes(0)) continue;
      const found = searchText(toPosix(path.slice(strip)), decode(bytes), matcher, query);
      if (found) hits.push(found);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, files.length) }, worker));
  if (signal?.aborted) throw new ToolFailure("The search was aborted.");
  return { root, files: hits };
}

function decode(bytes: Buffer): string {
  const text = bytes.toString("utf8");
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

/** Compiled forms of the pattern. */
interface Matcher {
  /** Tests one line (no `m` flag: `$` must not match before a "\r", as in ripgrep). */
  line: RegExp;
  /** Scans a whole text (multiline mode; also a cheap pre-check in line mode). */
  global: RegExp;
  /** Whether `global` finding nothing proves no line matches. */
  precheck: boolean;
}

/** Compile the pattern, with the `u` flag when it allows it; a bad pattern is a clear error. */
export function compilePattern(query: Pick<SearchQuery, "pattern" | "ignoreCase" | "multiline">): Matcher {
  const flags = query.ignoreCase ? "i" : "";
  const build = (extra: string) => {
    try {
      return new RegExp(query.pattern, `${flags + extra}u`);
    } catch {
      return new RegExp(query.pattern, flags + extra);
    }
  };
  try {
    return {
      line: build(""),
      global: build(query.multiline ? "gms" : "gm"),
      // Look-around can see the "\n" a line does not have; only plain patterns can be pre-checked.
      precheck: !query.pattern.includes("(?"),
    };
  } catch (error) {
    throw new ToolFailure(invalidPatternMessage(query.pattern, (error as Error).message));
  }
}

/** The message for a pattern that does not compile (shared by both backends). */
export function invalidPatternMessage(pattern: string, reason: string): string {
  return (
    `Invalid regular expression ${JSON.stringify(pattern)}: ${reason}. ` +
    "Escape characters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally."
  );
}

/** Line numbers (1-based) of every line start, for offset → line lookups. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Search one file's text; undefined when nothing matches. */
function searchText(path: string, text: string, matcher: Matcher, query: SearchQuery): FileHits | undefined {
  if (matcher.precheck || query.multiline) {
    matcher.global.lastIndex = 0;
    if (!matcher.global.test(text)) return undefined;
  }
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  // Matching regions as [first, last] line ranges; ranges sharing a line merge (ripgrep counts them once).
  const ranges: [number, number][] = [];
  const add = (first: number, last: number) => {
    const prev = ranges[ranges.length - 1];
    if (prev && first <= prev[1]) prev[1] = Math.max(prev[1], last);
    else ranges.push([first, last]);
  };
  if (query.multiline) {
    const starts = lineStarts(text);
    const re = matcher.global;
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const first = lineOf(starts, m.index);
      const last = m[0].length > 0 ? lineOf(starts, m.index + m[0].length - 1) : first;
      if (first <= lines.length) add(first, Math.min(last, lines.length));
      if (m[0].length === 0) re.lastIndex++;
    }
  } else {
    for (let i = 0; i < lines.length; i++) if (matcher.line.test(lines[i]!)) add(i + 1, i + 1);
  }
  if (ranges.length === 0) return undefined;
  return { path, count: ranges.length, lines: query.mode === "content" ? withContext(lines, ranges, query) : [] };
}

/** The matching lines plus their context, in line order. */
function withContext(lines: readonly string[], ranges: readonly [number, number][], query: SearchQuery): SearchLine[] {
  const matching = new Set<number>();
  for (const [first, last] of ranges) for (let n = first; n <= last; n++) matching.add(n);
  const shown = new Set<number>();
  for (const n of matching) {
    for (let c = Math.max(1, n - query.before); c <= Math.min(lines.length, n + query.after); c++) shown.add(c);
  }
  return [...shown].sort((a, b) => a - b).map((n) => ({ number: n, text: lines[n - 1]!, match: matching.has(n) }));
}
