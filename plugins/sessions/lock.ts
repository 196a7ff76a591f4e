/**
 * Who is writing a transcript: `<transcript>.lock` beside it, created exclusively, holding the
 * writer's pid, host and pid namespace. A run that finds the lock held by a live writer does not
 * append to that transcript (two conversations would interleave in one file); the sessions plugin
 * forks instead. A lock whose writer is gone (a crash, SIGKILL) is stale and taken over; one from
 * another host or pid namespace (another container) cannot be checked and is left alone.
 *
 * The lock appears whole: it is written under a temp name and hard-linked into place (the link
 * fails when a lock exists), so a contender never reads a lock that is still empty and takes it
 * for a stale one. A stale lock is replaced by one run at a time (`<lock>.takeover`).
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  openSync,
  readlinkSync,
  readSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { UbiquityError } from "../../src/index";
import { isProcessAlive } from "../_kits/process/index";

/** What a lock file says. */
export interface LockInfo {
  pid: number;
  host: string;
  /** ISO 8601, when the lock was taken. */
  since: string;
  /** The writer's pid namespace (Linux), when known: a pid means nothing in another one. */
  ns?: string;
}

/** This process's pid namespace: containers sharing a host name (one pod, `--uts=host`) differ here. */
const ownNamespace = (() => {
  try {
    return process.platform === "linux" ? readlinkSync("/proc/self/ns/pid") : undefined;
  } catch {
    return undefined;
  }
})();

/** True when the lock's writer cannot be checked from here (another host, or another pid namespace of this one). */
export function heldElsewhere(info: LockInfo): boolean {
  return info.host !== hostname() || (info.ns !== undefined && info.ns !== ownNamespace);
}

// Locks this process holds, by transcript path: a second run in this process is a second writer too.
const held = new Set<string>();

/** The lock file of a transcript. */
export const lockPathOf = (transcript: string) => `${transcript}.lock`;

const alive = isProcessAlive;

/** A lock file that says nothing readable this young may still be being written (a writer without hard links). */
const UNREADABLE_GRACE_MS = 10_000;

/** A lock is a few dozen bytes; more than this is not one of ours. */
const MAX_LOCK_BYTES = 4096;

/**
 * What the lock at `path` says (undefined: nothing readable). Opened without following a link and
 * without waiting: a FIFO there would block the read until a writer came, a link to /dev/zero
 * would never end. Anything but a regular file is not a lock a run made: an error says to remove it.
 */
function readLock(path: string): LockInfo | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw notALock(path, "a symbolic link");
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw notALock(
        path,
        stat.isDirectory() ? "a folder" : stat.isFIFO() ? "a FIFO" : stat.isSocket() ? "a socket" : "a device",
      );
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const info = JSON.parse(
      buffer.subarray(0, readSync(fd, buffer, 0, MAX_LOCK_BYTES, 0)).toString("utf8"),
    ) as Partial<LockInfo>;
    return typeof info.pid === "number" && typeof info.host === "string" ? (info as LockInfo) : undefined;
  } catch (error) {
    if (error instanceof UbiquityError) throw error;
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function notALock(path: string, kind: string): UbiquityError {
  return new UbiquityError(`${path} is not a lock file (${kind}); no run made it: remove it, then run again`);
}

/** True when the lock's writer is still running (one that cannot be checked from here is assumed to be). */
function live(info: LockInfo | undefined, transcript: string): boolean {
  if (!info) return young(lockPathOf(transcript));
  if (heldElsewhere(info)) return true;
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
    const made = createWhole(path);
    if (made === "no-folder") return undefined;
    if (made === "created") {
      held.add(transcript);
      return undefined;
    }
    const info = readLock(path);
    if (live(info, transcript)) return info ?? UNKNOWN_HOLDER;
    // Stale: its writer is gone.
    const taken = takeOver(path, transcript);
    if (taken !== "retry") return taken;
  }
  return readLock(path) ?? UNKNOWN_HOLDER;
}

/** The holder of a lock that says nothing readable. */
const UNKNOWN_HOLDER: LockInfo = Object.freeze({ pid: -1, host: "unknown", since: "" });

/**
 * Replace the stale lock at `path`, one run at a time: under `<lock>.takeover` (created whole,
 * like the lock), the lock is read again and replaced only if it is still stale. Another run
 * holding the guard is replacing it, so this one is refused (a guard a crash left is removed once
 * old). Without the guard, two runs that both judged the lock stale could each remove what the
 * other had just created, and both would write the session.
 */
function takeOver(path: string, transcript: string): LockInfo | undefined | "retry" {
  const guard = `${path}.takeover`;
  const made = createWhole(guard);
  if (made === "no-folder") return "retry";
  if (made === "exists") {
    if (young(guard)) return readLock(path) ?? UNKNOWN_HOLDER;
    try {
      unlinkSync(guard);
    } catch {
      // someone else removed it first
    }
    return "retry";
  }
  try {
    const info = readLock(path);
    if (live(info, transcript)) return info ?? UNKNOWN_HOLDER;
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
    if (createWhole(path) !== "created") return "retry";
    held.add(transcript);
    return undefined;
  } finally {
    try {
      unlinkSync(guard);
    } catch {
      // already gone
    }
  }
}

/** Errors of a file system without hard links: a lock is then created and written in two steps. */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/**
 * Create the lock file `path` whole, with this process as its holder: written under a temp name,
 * then hard-linked into place (the link fails when the file exists). `exists` when one is there,
 * `no-folder` when the transcript's folder does not exist yet.
 */
function createWhole(path: string): "created" | "exists" | "no-folder" {
  const content = JSON.stringify({
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    ns: ownNamespace,
  } satisfies LockInfo);
  // Named like an atomic write's temp file, so the sweep of stale temps removes one a crash left.
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    writeFileSync(temp, content, { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "no-folder";
    throw error;
  }
  try {
    linkSync(temp, path);
    return "created";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    if (code === "EEXIST") return "exists";
    if (!NO_LINKS.has(code)) throw error;
    return createInTwoSteps(path, content);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // already gone
    }
  }
}

function createInTwoSteps(path: string, content: string): "created" | "exists" {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return "exists";
    throw error;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return "created";
}

/** True when the file at `path` was changed within the grace period. */
function young(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < UNREADABLE_GRACE_MS;
  } catch {
    return false;
  }
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

// A process that exits with a run still going leaves no lock behind (a crash leaves a stale one, taken over later).
let exitHook = false;

/** Release this process's locks when it exits (registered once, on the first lock a run takes). */
export function releaseOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once("exit", releaseAllLocks);
}
