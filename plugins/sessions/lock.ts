/**
 * Who is writing a transcript: `<transcript>.lock` beside it, created exclusively, holding the
 * writer's pid and host. A run that finds the lock held by a live writer does not append to that
 * transcript (two conversations would interleave in one file); the sessions plugin forks instead.
 * A lock whose writer is gone (a crash, SIGKILL) is stale and taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { isProcessAlive } from "../_kits/process/index";

/** What a lock file says. */
export interface LockInfo {
  pid: number;
  host: string;
  /** ISO 8601, when the lock was taken. */
  since: string;
}

// Locks this process holds, by transcript path: a second run in this process is a second writer too.
const held = new Set<string>();

/** The lock file of a transcript. */
export const lockPathOf = (transcript: string) => `${transcript}.lock`;

const alive = isProcessAlive;

function readLock(path: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path, "utf8")) as Partial<LockInfo>;
    return typeof info.pid === "number" && typeof info.host === "string" ? (info as LockInfo) : undefined;
  } catch {
    return undefined;
  }
}

/** True when the lock's writer is still running (another host's writer is assumed to be). */
function live(info: LockInfo | undefined, transcript: string): boolean {
  if (!info) return false;
  if (info.host !== hostname()) return true;
  if (info.pid === process.pid) return held.has(transcript);
  return alive(info.pid);
}

/**
 * Take the lock of `transcript`. Returns undefined when taken, or the live holder's info when
 * another writer (in this process or another) has it. Never throws for a folder that does not
 * exist yet: the transcript is new, nobody writes it.
 */
export function acquireLock(transcript: string): LockInfo | undefined {
  const path = lockPathOf(transcript);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, "wx");
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() } satisfies LockInfo));
      } finally {
        closeSync(fd);
      }
      held.add(transcript);
      return undefined;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return undefined;
      if (code !== "EEXIST") throw error;
    }
    const info = readLock(path);
    if (live(info, transcript)) return info;
    // Stale: its writer is gone. Remove it and try again (another run may win the race).
    try {
      unlinkSync(path);
    } catch {
      // someone else removed it first
    }
  }
  return readLock(path) ?? { pid: -1, host: "unknown", since: "" };
}

/** Release a lock this process holds. */
export function releaseLock(transcript: string): void {
  if (!held.delete(transcript)) return;
  try {
    unlinkSync(lockPathOf(transcript));
  } catch {
    // already gone
  }
}

/** Release every lock this process holds (on exit: a stale lock would only be taken over later, but tidy is better). */
export function releaseAllLocks(): void {
  for (const transcript of [...held]) releaseLock(transcript);
}
