/**
 * Temp files left by a crash between writing and renaming (`writeFileAtomic` names them
 * `.<name>.<pid>.<random>.tmp`). Only old ones are removed: a young one may belong to a writer
 * in another process that is about to rename it.
 */
import { readdir, stat, unlink } from "node:fs/promises";
import { basename, join } from "node:path";
import type { Kernel } from "../../../src/index";
import { isProcessAlive } from "../process/index";

const TEMP = /^\..+\.tmp$/;
/** Exactly the names `writeFileAtomic` gives: `.<name>.<pid>.<8 hex>.tmp`. */
const ATOMIC_TEMP = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** A ripgrep/gitignore glob excluding those names (as close as globs get: no repetition). */
export const ATOMIC_TEMP_EXCLUDE = `!.*.[0-9]*.${"[0-9a-f]".repeat(8)}.tmp`;

/** Age after which a temp file is certainly orphaned: no write takes this long. */
export const STALE_TEMP_MS = 60_000;

/** True for a name `writeFileAtomic` gives its temp files. */
export function isTempName(name: string): boolean {
  return TEMP.test(name);
}

/** True for the temp file of an atomic write in progress or left by a crash (never shown by Glob or Grep). */
export function isAtomicTempName(name: string): boolean {
  return name.endsWith(".tmp") && ATOMIC_TEMP.test(basename(name)); // the suffix first: Glob asks for every file
}

function writerGone(name: string): boolean {
  const pid = Number(ATOMIC_TEMP.exec(basename(name))?.[1]);
  if (!Number.isInteger(pid) || pid <= 0) return true;
  if (pid === process.pid) return false;
  return !isProcessAlive(pid);
}

// Project folders swept in this process (once each: the sweep walks the tree).
const swept = new Set<string>();

/** How many folder entries one sweep reads at most: a run started in a huge tree (a home folder) pays ~0.1 s, not a full walk. */
export const SWEEP_ENTRY_BUDGET = 20_000;

/** Entries a sweep still reads after its session ended: a small project's sweep finishes, a huge tree's stops. */
export const HURRIED_ENTRIES = 2000;

/**
 * Sweep a project for temp files of atomic writes (Write, Edit) that a crash left behind: those
 * whose writing process is gone, or older than `maxAgeMs`. Walks breadth-first, at most `deep`
 * folders down and `budget` entries in all (the nearest folders first), skipping .git and
 * node_modules and never following links; once per folder per process. Never throws.
 */
export async function sweepProjectTemps(
  root: string,
  maxAgeMs = STALE_TEMP_MS,
  deep = 12,
  budget = SWEEP_ENTRY_BUDGET,
  signal?: AbortSignal,
): Promise<number> {
  if (swept.has(root)) return 0;
  swept.add(root);
  // Once `signal` is aborted (the session ended) a walk that has read more than a small
  // folder's worth stops; a later run may sweep the folder again.
  let read = 0;
  const stopped = () => {
    if (!signal?.aborted || read <= HURRIED_ENTRIES) return false;
    swept.delete(root);
    return true;
  };
  let removed = 0;
  const found: string[] = [];
  let level = [root];
  for (let depth = 0; depth <= deep && level.length > 0 && budget > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      if (budget <= 0 || stopped()) return 0;
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      budget -= entries.length;
      read += entries.length;
      for (const entry of entries) {
        if (entry.isDirectory() && entry.name !== "node_modules" && entry.name !== ".git")
          next.push(join(dir, entry.name));
        else if (entry.isFile() && isAtomicTempName(entry.name)) found.push(join(dir, entry.name));
      }
    }
    level = next;
  }
  const now = Date.now();
  for (const path of found) {
    if (stopped()) return removed;
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    if (!writerGone(path) && now - info.mtimeMs < maxAgeMs) continue;
    if (
      await unlink(path).then(
        () => true,
        () => false,
      )
    )
      removed++;
  }
  return removed;
}

/** Remove temp files in `dir` older than `maxAgeMs`; returns how many went. Never throws. */
export async function removeStaleTemps(dir: string, maxAgeMs = STALE_TEMP_MS, now = Date.now()): Promise<number> {
  let removed = 0;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!isTempName(name)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile() || now - info.mtimeMs < maxAgeMs) continue;
    if (
      await unlink(path).then(
        () => true,
        () => false,
      )
    )
      removed++;
  }
  return removed;
}

/**
 * Sweep the run's folder for orphaned atomic-write temp files when a session starts, in the
 * background (the walk never delays the run; the Glob and Grep tools hide such files anyway).
 * When the session ends, a walk past a small project's size stops, so it never holds the
 * program open long after its result.
 */
export function sweepTempsAtStart(kernel: Kernel, name: string): void {
  const walks = new WeakMap<object, AbortController>();
  kernel.hooks.session.start.tap(name, (run) => {
    if (run.agent) return;
    const stop = new AbortController();
    walks.set(run, stop);
    void sweepProjectTemps(run.cwd, STALE_TEMP_MS, 12, SWEEP_ENTRY_BUDGET, stop.signal).then((removed) => {
      if (removed > 0)
        run.logger.debug(
          `[${name}] removed ${removed} temp file${removed === 1 ? "" : "s"} of interrupted writes under ${run.cwd}`,
        );
    });
  });
  kernel.hooks.session.end.tap(name, (run) => walks.get(run)?.abort());
}
