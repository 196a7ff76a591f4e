/**
 * Glob's walk: the files under a folder that a pattern matches, found the way tinyglobby finds them
 * with `{ onlyFiles: true, dot: true, followSymbolicLinks: false }` (the same picomatch matching,
 * the same pattern normalisation, the same folders entered), minus the skipped folders. tinyglobby
 * was the walker until issue 40 measured it: its asynchronous walk (one callback and one formatted
 * path per entry, every path tried against the whole pattern set) took 2–4x a synchronous walk, and
 * the tool's target is its speed with the stats newest-first needs added. The walk stays
 * synchronous in slices of a few milliseconds and yields between them, so a walk of a large tree
 * neither holds the event loop nor outlives the call's abort. test/tools/glob-walk.test.ts keeps
 * tinyglobby as the oracle: the same files for a grid of patterns and trees.
 */
import { closeSync, constants, type Dirent, openSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { posix } from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { picomatch } from "../_kits/lazy/index";

/** How long one synchronous slice of the walk may hold the event loop, in milliseconds. */
const SLICE_MS = 8;

/** Matching options: tinyglobby's for the tool's settings (dot files in, case kept, `/` only). */
const MATCH = { dot: true, posix: true } as const;

/** A pattern as tinyglobby reads it: a trailing `/` dropped, a folder's name meaning what is under it, `./` and `a/../` folded. */
function normalize(pattern: string): string {
  let out = pattern.endsWith("/") ? pattern.slice(0, -1) : pattern;
  if (!out.endsWith("*")) out += "/**";
  return posix.normalize(out);
}

/** The pattern's segments (a brace holding a `/` stays whole), as picomatch splits them. */
function segments(pattern: string): string[] {
  const parts = picomatch().scan(pattern, { parts: true }).parts;
  return parts?.length ? parts : [pattern];
}

const isDynamic = (segment: string) => {
  const scan = picomatch().scan(segment);
  return scan.isGlob || scan.negated;
};

/**
 * The leading segments that name one folder each (the walk starts there); a `**` ending the
 * pattern keeps its folder out, since `src/**` also matches a file named `src`.
 */
function staticPrefix(parts: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === "**" && !parts[i + 1]) {
      out.pop();
      break;
    }
    if (i === parts.length - 1 || isDynamic(part)) break;
    out.push(part);
  }
  return out;
}

/** Can anything under the folder `path` (relative) match? Each of its segments against the pattern's, a `**` ending the question. */
function enterable(parts: readonly string[]): (path: string) => boolean {
  const matchers = parts.map((part) => picomatch()(part, MATCH));
  return (path) => {
    const names = path.split("/");
    const shared = Math.min(names.length, parts.length);
    let i = 0;
    for (; i < shared; i++) {
      const part = parts[i]!;
      if (part.includes("/")) return true;
      if (!matchers[i]!(names[i]!)) break;
      if (part === "**") return true;
    }
    return i === names.length;
  };
}

/** What a walk found, and the folders it found them in. */
export interface Found {
  /** Paths relative to the searched folder, `/`-separated. */
  files: string[];
  /**
   * Each folder a file was found in, absolute as walked, once. The walk enters no link below its
   * start, but a folder can be swapped for one while it runs: where these really are is where the
   * files were read from.
   */
  folders: string[];
  /**
   * Where each folder of `folders` really was when its names were read (same order), and where
   * each file of `files` really was (its folder's real path and its name): the folder is opened
   * and read through the open descriptor, so a folder swapped for a link between the read and
   * the tool's judgement cannot show one place's names and be judged at another (red team o, O6).
   * An empty string where that could not be told (the caller fails closed).
   */
  real: string[];
  realFiles: string[];
}

/**
 * The folder at `path` opened, its entries read through the open descriptor, and `where()` its
 * real path then (asked only of a folder holding results); undefined when it cannot be read.
 */
function openFolder(path: string): { entries: Dirent[]; where: () => string; close: () => void } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return undefined; // gone, unreadable, or not a folder: nothing under it
  }
  const close = () => closeSync(fd);
  const opened = `/proc/self/fd/${fd}`;
  try {
    // Linux: the open folder itself, by its descriptor: what is listed is what is located.
    const entries = readdirSync(opened, { withFileTypes: true });
    return { entries, close, where: () => readlinkOr(opened) };
  } catch {
    // No /proc (macOS): its real path before and after the read must agree, else it moved.
    try {
      const before = realpathSync(path);
      const entries = readdirSync(path, { withFileTypes: true });
      return { entries, close, where: () => (realpathOr(path) === before ? before : "") };
    } catch {
      close();
      return undefined;
    }
  }
}

function readlinkOr(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return "";
  }
}

/**
 * The files that `pattern` (relative, no `..`) matches under `dir`: regular files only, symbolic
 * links neither listed nor entered below the walk's start, folders named in `skipped` not entered,
 * unreadable folders passed over. A walk aborted by `signal` stops and returns what it found, as
 * tinyglobby's did.
 */
export async function findFiles(
  dir: string,
  pattern: string,
  skipped: ReadonlySet<string>,
  signal?: AbortSignal,
): Promise<Found> {
  const normalized = normalize(pattern);
  const parts = segments(normalized);
  const matches = picomatch()(normalized, MATCH);
  const enter = enterable(parts);
  // A literal name's escapes (`brackets\[1\]`) are dropped to name the folder, as tinyglobby does.
  const start = staticPrefix(parts).join("/").replace(/\\/g, "");
  const found: string[] = [];
  const foundReal: string[] = [];
  const holding: string[] = [];
  const holdingReal: string[] = [];
  const folders = [start];
  let sliceStart = performance.now();
  while (folders.length > 0) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
    if (signal?.aborted) break;
    const folder = folders.pop()!;
    const read = openFolder(folder ? `${dir}/${folder}` : dir);
    if (!read) continue;
    const before = found.length;
    try {
      for (const entry of read.entries) {
        const path = folder ? `${folder}/${entry.name}` : entry.name;
        if (entry.isFile()) {
          if (matches(path)) found.push(path);
        } else if (entry.isDirectory() && !skipped.has(entry.name) && enter(path)) folders.push(path);
      }
      if (found.length > before) {
        const real = read.where();
        holding.push(folder ? `${dir}/${folder}` : dir);
        holdingReal.push(real);
        for (let i = before; i < found.length; i++)
          foundReal.push(real && `${real === "/" ? "" : real}/${found[i]!.slice(folder ? folder.length + 1 : 0)}`);
      }
    } finally {
      read.close();
    }
  }
  return { files: found, folders: holding, real: holdingReal, realFiles: foundReal };
}
