/**
 * Turning search hits into what the model reads: a stable order (files by newest first, or
 * by path), rg-style lines, and a cap on result lines with a note saying what was left out.
 */
import { statSync } from "node:fs";
import { displayPath } from "../_kits/file-tools/index";
import type { FileHits, SearchQuery, SearchResult } from "./search";

/** Grep's output limits (its description states the same numbers). */
export const GREP_LIMITS = Object.freeze({
  /** Result lines returned at most (head_limit can only lower it). */
  maxResultLines: 200,
  /** Longer matching lines are cut with a marker. */
  lineChars: 500,
});

/** How to present a result. */
export interface PresentOptions {
  cwd: string;
  lineNumbers: boolean;
  headLimit?: number;
}

/** All result lines for a search, before the cap. */
export function resultLines(result: SearchResult, query: SearchQuery, options: PresentOptions): string[] {
  // One relative() for the root, then string concatenation per file: results can number thousands.
  const where = displayPath(options.cwd, result.root);
  const prefix = where === "." ? "" : `${where}/`;
  const shown = (f: FileHits) => prefix + f.path;
  if (query.mode === "files_with_matches") {
    // Synchronous stats: a few microseconds each, where thousands of async ones queue on the thread pool.
    const times = result.files.map(
      (f) => statSync(`${result.root}/${f.path}`, { throwIfNoEntry: false })?.mtimeMs ?? 0,
    );
    const order = result.files.map((f, i) => ({ name: shown(f), time: times[i]! }));
    order.sort((a, b) => b.time - a.time || compare(a.name, b.name));
    return order.map((o) => o.name);
  }
  const files = result.files.map((f) => ({ name: shown(f), hits: f })).sort((a, b) => compare(a.name, b.name));
  if (query.mode === "count") return files.map((f) => `${f.name}:${f.hits.count}`);

  const context = query.before > 0 || query.after > 0;
  const out: string[] = [];
  for (const { name, hits } of files) {
    let previous: number | undefined;
    for (const line of hits.lines) {
      // ripgrep's "--" between groups that do not touch, and between files, when context is on.
      if (context && out.length > 0 && (previous === undefined || line.number > previous + 1)) out.push("--");
      const sep = line.match ? ":" : "-";
      const number = options.lineNumbers ? `${line.number}${sep}` : "";
      out.push(`${name}${sep}${number}${cutLine(line.text)}`);
      previous = line.number;
    }
  }
  return out;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function cutLine(text: string): string {
  const line = text.endsWith("\r") ? text.slice(0, -1) : text;
  if (line.length <= GREP_LIMITS.lineChars) return line;
  return `${line.slice(0, GREP_LIMITS.lineChars)}… [line cut: ${line.length} characters]`;
}

/** The content of a Grep result: the lines up to the cap, and notes on what is missing. */
export function capLines(
  lines: readonly string[],
  result: SearchResult,
  query: SearchQuery,
  headLimit: number | undefined,
): string {
  const limit = Math.min(headLimit ?? GREP_LIMITS.maxResultLines, GREP_LIMITS.maxResultLines);
  const kept = lines.slice(0, limit);
  const notes: string[] = [];
  if (lines.length > limit) {
    const what = query.mode === "files_with_matches" ? "files" : "result lines";
    notes.push(
      `[Showing ${limit} of ${lines.length} ${what}. Narrow the search with path, glob, type or a more specific pattern to see the rest.]`,
    );
  }
  if (result.incomplete) {
    const where = result.stoppedIn ? ` in ${result.stoppedIn}` : "";
    notes.push(
      `[The search stopped early${where} because the output was too large; results are incomplete. Narrow the search${result.stoppedIn ? ` (or leave out ${result.stoppedIn})` : ""}.]`,
    );
  }
  if (query.mode === "count") {
    const total = result.files.reduce((n, f) => n + f.count, 0);
    notes.push(`[${total} matching lines in ${result.files.length} files]`);
  }
  return [kept.join("\n"), ...notes].join("\n\n");
}
