/**
 * Plan and apply a rewind: the current state of the checkpoint's folders is committed first (so
 * nothing a rewind replaces is lost: it stays in the store under `refs/ubiquity/<session>/rewound-…`,
 * which retention never prunes),
 * then diffed against the checkpoint. A file the checkpoint lacks was created after it (removed),
 * one only the checkpoint has was deleted after it (recreated), one that differs is restored.
 * Files either side did not hold (ignored, too large, binary, nested repositories) are left alone
 * and listed as not covered.
 */
import { lstatSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { sandboxReason } from "../permissions/api";
import { activeRuns } from "./lock";
import { ActiveRunError } from "./errors";
import { safeParent, safeRemove, safeWrite, UnsafePathError } from "./safe-fs";
import { backupRefOf, ShadowStore, type NotCovered, type StoredCheckpoint } from "./store";

/** What a rewind does to one file. */
export type FileAction = "restored" | "removed" | "recreated";

/** One file a rewind changes (or would change, in a dry run). */
export interface FileChange {
  /** Absolute path. */
  path: string;
  action: FileAction;
}

/** A change a rewind refused (a symlink out of the folder on the way, a folder in the way). */
export interface RefusedChange extends FileChange {
  reason: string;
}

/** What `rewindFiles` did or would do. */
export interface RewindResult {
  /** The checkpoint rewound to; null when no checkpoint follows the message (the agent changed nothing after it). */
  checkpoint: StoredCheckpoint | null;
  dryRun: boolean;
  /** The files changed (or, in a dry run, that would change), in path order. */
  changes: FileChange[];
  /** Changes refused for safety; the files stay as they are. */
  refused: RefusedChange[];
  /** Files neither side of the rewind holds: left alone. */
  notCovered: NotCovered[];
  /** The commit in the store holding the state the rewind replaced (undefined in a dry run). */
  backup?: string;
}

export { ActiveRunError };

function refuseIfActive(store: string, roots: readonly string[]): void {
  const live = activeRuns(store);
  if (live.length === 0) return;
  const who = live.map((l) => `pid ${l.pid} on ${l.host}, session ${l.sessionId}, since ${l.since}`).join("; ");
  throw new ActiveRunError(
    `a run is active in ${roots.join(", ")} (${who}): rewinding now would race its writes; wait for it to end, or stop it, then rewind`,
  );
}

/**
 * The folders were recorded as real paths: one that resolves elsewhere now (replaced by a symlink,
 * or a folder on its path was) would carry the snapshot's reads and the rewind's writes and
 * removals to wherever it points, so the rewind refuses before touching anything.
 */
function refuseIfMoved(roots: readonly string[]): void {
  for (const root of roots) {
    let real: string;
    try {
      real = realpathSync.native(root);
    } catch {
      continue; // gone: refused per file below
    }
    if (real !== root)
      throw new UnsafePathError(
        `${root} now resolves to ${real}: the checkpoint's folder was replaced by a symlink (or a folder above it was); refused, nothing changed`,
      );
  }
}

/** True when `rel` exists in the folder, looked at without following a symlink out of it. */
function onDisk(realRoot: string, rel: string): boolean {
  const parent = safeParent(realRoot, rel, false);
  return (
    parent !== undefined &&
    lstatSync(join(parent, rel.slice(rel.lastIndexOf("/") + 1)), { throwIfNoEntry: false }) !== undefined
  );
}

/**
 * Why a file that runs code later (the sandbox's protected set: .npmrc, .envrc, hooks, the
 * config) is not written back. A snapshot is taken before the turn's first writing call, when a
 * background shell's file may not have been swept yet: the store can hold what a sandboxed
 * command made and the sandbox then took out of the workspace, and the rewind, outside the
 * sandbox, would put it back for the user's next `npm test` (red team q, Q3). Fail closed: such a
 * file is left as it is, and the reason says where its bytes are.
 */
function writesCode(why: string, store: string, commit: string, root: number, rel: string): string {
  return `${why}: a rewind does not write back a file that runs code later (a sandboxed command may have made what the checkpoint holds); check it and restore it by hand: git --git-dir ${store} show ${commit}:${root}/${rel}`;
}

interface Planned extends FileChange {
  root: string;
  realRoot: string;
  rel: string;
  blob?: string;
  mode?: string;
}

/** Rewind the checkpoint's folders to it (or, with `dryRun`, say what that would change). */
export async function rewindTo(checkpoint: StoredCheckpoint, dryRun: boolean): Promise<RewindResult> {
  const shadow = new ShadowStore(checkpoint.store);
  refuseIfActive(shadow.dir, checkpoint.roots);
  return shadow.exclusive(async () => {
    refuseIfMoved(checkpoint.roots);
    const now = new Date().toISOString();
    const current = await shadow.commitState(
      checkpoint.roots,
      { maxBytes: checkpoint.maxBytes, exclude: checkpoint.exclude ?? [] },
      { sessionId: checkpoint.sessionId, messageUuid: "rewound", createdAt: now },
    );
    const skippedBefore = new Set(checkpoint.notCovered.map((n) => n.path));
    const skippedNow = new Set(current.meta.notCovered.map((n) => n.path));
    const notCovered = new Map<string, NotCovered>();
    for (const n of [...checkpoint.notCovered, ...current.meta.notCovered]) notCovered.set(n.path, n);
    const planned: Planned[] = [];
    const refused: RefusedChange[] = [];
    const keepDirs: Set<string>[] = [];
    for (const [i, root] of checkpoint.roots.entries()) {
      for (const path of await shadow.ignored(root).catch(() => []))
        if (!notCovered.has(path)) notCovered.set(path, { path, reason: "ignored" });
      keepDirs[i] = await shadow.folders(checkpoint.commit, i);
      let realRoot: string;
      try {
        realRoot = realpathSync.native(root);
      } catch {
        refused.push({ path: root, action: "restored", reason: `${root} no longer exists` });
        continue;
      }
      const diff = await shadow.diff(checkpoint.commit, current.commit, i);
      // Paths the rewind removes: a symlink among them goes before anything is restored beneath it.
      const removed = new Set(diff.filter((d) => d.status === "A").map((d) => d.path));
      const underRemoved = (rel: string) =>
        rel
          .split("/")
          .slice(0, -1)
          .some((_, k, parts) => removed.has(parts.slice(0, k + 1).join("/")));
      for (const d of diff) {
        const path = join(root, d.path);
        if (d.mode === "160000") continue; // a nested repository's pointer: never ours to write
        const runsCode = d.status === "A" ? undefined : sandboxReason(d.path);
        if (runsCode) {
          refused.push({
            path,
            action: d.status === "D" ? "recreated" : "restored",
            reason: writesCode(runsCode, shadow.dir, checkpoint.commit, i, d.path),
          });
          continue;
        }
        if (d.status === "A") {
          // Not in the checkpoint: created after it, unless the checkpoint skipped it (too large then).
          if (!skippedBefore.has(path)) planned.push({ path, action: "removed", root, realRoot, rel: d.path });
        } else if (d.status === "D") {
          let there: boolean;
          try {
            there = !underRemoved(d.path) && onDisk(realRoot, d.path);
          } catch (error) {
            refused.push({ path, action: "recreated", reason: (error as Error).message });
            continue;
          }
          // Only in the checkpoint. Still on disk means it is now skipped (too large, ignored): not backed up, so left alone.
          if (skippedNow.has(path) || there) {
            if (!notCovered.has(path)) notCovered.set(path, { path, reason: "ignored" });
          } else planned.push({ path, action: "recreated", root, realRoot, rel: d.path, blob: d.blob, mode: d.mode });
        } else planned.push({ path, action: "restored", root, realRoot, rel: d.path, blob: d.blob, mode: d.mode });
      }
    }
    planned.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const result: RewindResult = {
      checkpoint,
      dryRun,
      changes: [],
      refused,
      notCovered: [...notCovered.values()].sort((a, b) => (a.path < b.path ? -1 : 1)),
    };
    if (dryRun) {
      result.changes = planned.map(({ path, action }) => ({ path, action }));
      return result;
    }
    refuseIfActive(shadow.dir, checkpoint.roots);
    refuseIfMoved(checkpoint.roots);
    await shadow.keep(backupRefOf(checkpoint.sessionId, now), current.commit);
    result.backup = current.commit;
    const blobs = await shadow.blobs(planned.flatMap((p) => (p.blob ? [p.blob] : [])));
    // Removals first, deepest first: a file may come back where a folder created later stood.
    const removals = planned.filter((p) => p.action === "removed").reverse();
    for (const p of [...removals, ...planned.filter((p) => p.action !== "removed")]) {
      try {
        if (p.action === "removed")
          safeRemove(p.realRoot, p.rel, (dir) => keepDirs[checkpoint.roots.indexOf(p.root)]!.has(dir));
        else safeWrite(p.realRoot, p.rel, blobs.get(p.blob!)!, p.mode!);
        result.changes.push({ path: p.path, action: p.action });
      } catch (error) {
        const reason = error instanceof UnsafePathError ? error.message : `${(error as Error).message}`;
        refused.push({ path: p.path, action: p.action, reason });
      }
    }
    result.changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return result;
  });
}
