/**
 * A lock held for one append only: `<transcript>.append` created exclusively (holding the pid),
 * the last record checked, the line written, the file removed. It makes the stale check and the
 * write one step for every writer on this host, so two processes racing on one transcript cannot
 * both chain onto the same record (4 writers × 500 appends forked 82 times with the check alone,
 * 0 with it: test/sessions/concurrent-writers). A holder that died is detected by its pid; one
 * that holds it longer than `WAIT_MS` (a frozen process) makes the append fail rather than hang.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { isProcessAlive } from "../_kits/process/index";
import { UbiquityError } from "../../src/index";

const WAIT_MS = 5_000;
/** A lock file with no pid yet is being written; past this age its writer died between open and write. */
const EMPTY_STALE_MS = 1_000;
const nap = new Int32Array(new SharedArrayBuffer(4));

function holder(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, "utf8"));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Run `fn` holding the append lock of `transcript` (synchronous: the writer's appends are). */
export function withAppendLock<T>(transcript: string, fn: () => T): T {
  const path = `${transcript}.append`;
  const deadline = Date.now() + WAIT_MS;
  for (let spins = 0; ; spins++) {
    let fd: number;
    try {
      fd = openSync(path, "wx");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = holder(path);
      const age = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if ((pid !== undefined && !isProcessAlive(pid)) || (pid === undefined && age > EMPTY_STALE_MS)) {
        try {
          unlinkSync(path);
        } catch {
          // another writer removed it first
        }
        continue;
      }
      if (Date.now() > deadline)
        throw new UbiquityError(
          `the transcript ${transcript} is held by another writer (pid ${pid ?? "unknown"}, ${path}) for more than ${WAIT_MS / 1000} s`,
        );
      // A few microseconds is the usual wait: the holder is writing one line.
      Atomics.wait(nap, 0, 0, spins < 50 ? 0.05 : 1);
      continue;
    }
    try {
      writeSync(fd, String(process.pid));
    } finally {
      closeSync(fd);
    }
    try {
      return fn();
    } finally {
      try {
        unlinkSync(path);
      } catch {
        // removed as stale by another writer (we were presumed dead): nothing to undo
      }
    }
  }
}
