/**
 * "A run is active in this folder": while a run with checkpoints on is going, it holds a file
 * `<store>/active/<pid>-<id>.json`. A rewind refuses while one is held by a live process (it
 * would race the agent's own writes). A file left by a dead pid (a crash, SIGKILL) is stale:
 * ignored, and removed.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { isProcessAlive } from "../_kits/process/index";

/** Who holds an active-run lock. */
export interface RunLock {
  pid: number;
  host: string;
  sessionId: string;
  /** ISO 8601. */
  since: string;
}

// Lock files this process holds: a file naming our own pid counts only while held.
const held = new Set<string>();
let exitHook = false;

/** Take an active-run lock in `store`; returns its path (release it with `releaseRunLock`). */
export function holdRunLock(store: string, sessionId: string): string {
  const dir = join(store, "active");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${process.pid}-${randomBytes(4).toString("hex")}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      pid: process.pid,
      host: hostname(),
      sessionId,
      since: new Date().toISOString(),
    } satisfies RunLock),
  );
  held.add(path);
  if (!exitHook) {
    exitHook = true;
    process.once("exit", () => [...held].forEach(releaseRunLock));
  }
  return path;
}

/** Release a lock taken by `holdRunLock`. */
export function releaseRunLock(path: string): void {
  held.delete(path);
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** The live runs holding a lock in `store` (stale locks are removed on the way). */
export function activeRuns(store: string): RunLock[] {
  const dir = join(store, "active");
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const live: RunLock[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let info: RunLock | undefined;
    try {
      info = JSON.parse(readFileSync(path, "utf8")) as RunLock;
    } catch {
      continue; // being written, or not ours
    }
    if (typeof info?.pid !== "number") continue;
    const alive = info.host !== hostname() || (info.pid === process.pid ? held.has(path) : isProcessAlive(info.pid));
    if (alive) live.push(info);
    else releaseRunLock(path);
  }
  return live;
}
