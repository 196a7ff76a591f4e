/**
 * The pure-Node search backend, used when no ripgrep binary runs (ripgrep's binary is downloaded
 * when the package installs, which fails where only the npm registry is reachable). It selects
 * the files ripgrep would (see node-walk.ts) and reports lines and counts the way ripgrep does.
 *
 * The pattern is the model's, and JavaScript's engine backtracks where ripgrep's does not:
 * `(a|a)*$` over a line of 40 a's runs for hours. The files are walked and read here, and matched
 * in a worker thread, which is terminated when the call is aborted or the search passes its time
 * limit: on this thread such a pattern froze the whole process (every session, every timer, the
 * call's own abort) for as long as it ran (red team x, left open).
 */
import { readFile } from "node:fs/promises";
import { dirname, sep } from "node:path";
import { ToolFailure } from "../_kits/file-tools/index";
import { lazyRequire } from "../_kits/lazy/index";
import { onDiskUnder, toPosix, walkFiles } from "./node-walk";
import type { FileHits, SearchLine, SearchQuery, SearchResult } from "./search";

/** Files searched at once. */
const PARALLEL_READS = 32;
/** Files read and not yet matched, at most (the worker may be slower than the reads). */
const IN_FLIGHT = 64;
/** The longest a search may take to match (a pattern that backtracks), in milliseconds. */
export const MATCH_TIME_MS = 60_000;

const workerThreads = lazyRequire<typeof import("node:worker_threads")>("node:worker_threads");

/** The matching worker: this module's own matching functions, by their source, over the files it is sent. */
const matchWorker = () => `const { parentPort, workerData: w } = require("node:worker_threads");
${lineStarts}
${lineOf}
${withContext}
${searchText}
const matcher = { line: new RegExp(w.line[0], w.line[1]), global: new RegExp(w.global[0], w.global[1]), precheck: w.precheck };
parentPort.on("message", (file) => parentPort.postMessage(${searchText.name}(file.path, file.text, matcher, w.query) ?? null));`;

/** Search with JavaScript regular expressions over a Node file walk. */
export async function searchWithNode(
  query: SearchQuery,
  signal?: AbortSignal,
  limitMs = MATCH_TIME_MS,
): Promise<SearchResult> {
  const matcher = compilePattern(query);
  const root = query.targetIsFile ? dirname(query.target) : query.target;
  // The folder is read through the one the tool holds (its name may lead elsewhere by now).
  const through = query.targetIsFile ? undefined : query.at?.folder;
  const files = query.targetIsFile
    ? [query.target]
    : await walkFiles(root, { glob: query.glob, type: query.type, signal, through });
  if (signal?.aborted) throw new ToolFailure("The search was aborted.");
  // Hits carry paths relative to the root, as ripgrep prints them.
  const strip = root.endsWith(sep) ? root.length : root.length + 1;
  const onDisk = onDiskUnder(root, through);
  const hits = files.length === 0 ? [] : await matchInWorker(files, strip, matcher, query, signal, limitMs, onDisk);
  return { root, files: hits };
}

/** `files` read here and matched in a worker, stopped by `signal` or after `limitMs`. */
function matchInWorker(
  files: readonly string[],
  strip: number,
  matcher: Matcher,
  query: SearchQuery,
  signal: AbortSignal | undefined,
  limitMs: number,
  onDisk: (path: string) => string,
): Promise<FileHits[]> {
  const worker = new (workerThreads().Worker)(matchWorker(), {
    eval: true,
    workerData: {
      line: [matcher.line.source, matcher.line.flags],
      global: [matcher.global.source, matcher.global.flags],
      precheck: matcher.precheck,
      // Without `at`: an open file handle is not the worker's (nor clonable).
      query: { ...query, at: undefined },
    },
  });
  return new Promise<FileHits[]>((resolve, reject) => {
    const hits: FileHits[] = [];
    let sent = 0;
    let answered = 0;
    let reading = true;
    let ended = false;
    // Readers waiting for the worker to catch up.
    const waiting: (() => void)[] = [];
    const wake = () => {
      for (const w of waiting.splice(0)) w();
    };
    const end = (outcome: () => void) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", aborted);
      void worker.terminate();
      wake();
      outcome();
    };
    const aborted = () => end(() => reject(new ToolFailure("The search was aborted.")));
    const timer = setTimeout(
      () =>
        end(() =>
          reject(
            new ToolFailure(
              `The search ran for more than ${limitMs / 1000} s and was given up: the regular expression backtracks (JavaScript's engine, used here without ripgrep, tries a pattern such as (a|a)* every way), or the folder is very large. Use a simpler pattern, or a narrower path or glob.`,
            ),
          ),
        ),
      limitMs,
    );
    signal?.addEventListener("abort", aborted, { once: true });
    worker.on("message", (found: FileHits | null) => {
      answered++;
      if (found) hits.push(found);
      wake();
      if (!reading && answered === sent) end(() => resolve(hits));
    });
    worker.once("error", (error) => end(() => reject(new ToolFailure(`The search failed: ${error.message}`))));
    let next = 0;
    const reader = async () => {
      while (next < files.length && !ended) {
        while (sent - answered >= IN_FLIGHT && !ended) await new Promise<void>((r) => waiting.push(r));
        const path = files[next++]!;
        // A file the tool opened is read through its handle, a folder's files through the held folder.
        const opened = query.targetIsFile ? query.at?.file : undefined;
        const bytes = await readFile(opened ?? onDisk(path)).catch(() => undefined);
        // ripgrep skips files with a NUL byte when it finds them by walking.
        if (!bytes || bytes.includes(0) || ended) continue;
        sent++;
        worker.postMessage({ path: toPosix(path.slice(strip)), text: decode(bytes) });
      }
    };
    void Promise.all(Array.from({ length: Math.min(PARALLEL_READS, files.length) }, reader)).then(() => {
      reading = false;
      if (answered === sent) end(() => resolve(hits));
    });
  });
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
