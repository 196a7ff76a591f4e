/**
 * A job's progress as the queue keeps it: the run's turns and cost so far, which the next try of
 * the job reads to count what the earlier ones spent (a resumed run's budget is the whole run's).
 * Written one at a time and newest first (each carries the totals, so a newer one replaces one not
 * yet sent; two at once on a pooled database connection could land out of order), and a write that
 * fails is tried again: dropped, a connection reset would make the next try undercount the run's
 * cost. The try waits for the last write before it ends, and before each model request and tool
 * call (so the queue holds what the run spent before it spends more).
 */
import { describeError } from "../../src/index";
import type { FleetProgress } from "./jobs";

/** How many times one progress write is tried before it is given up (about 7 s of backoff). */
export const PROGRESS_TRIES = 8;

/** The queue no longer holds the job (removed, or finished elsewhere): writing again cannot help. */
function isMissingJob(error: unknown): boolean {
  return error instanceof Error && /Missing key for job/i.test(error.message);
}

/** Report progress (`report`, at once) and wait until the last one reported is written or given up (`flush`). */
export interface ProgressWriter {
  report(progress: FleetProgress): void;
  flush(): Promise<void>;
}

/** A writer of one job's progress through `write` (BullMQ's `job.updateProgress`). */
export function progressWriter(
  write: (progress: FleetProgress) => Promise<unknown>,
  log: (line: string) => void = () => {},
  wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): ProgressWriter {
  let pending: FleetProgress | undefined;
  let running: Promise<void> | undefined;
  const pump = async () => {
    for (let failures = 0; pending !== undefined; ) {
      const next = pending;
      try {
        await write(next);
        failures = 0;
        if (pending === next) pending = undefined;
      } catch (error) {
        if (isMissingJob(error) || ++failures >= PROGRESS_TRIES) {
          log(`the job's progress could not be written (${describeError(error)}): the queue keeps an older one`);
          failures = 0;
          if (pending === next) pending = undefined;
          continue;
        }
        // Exponential from 100 ms to 2 s; a newer report meanwhile is what the next try writes.
        await wait(Math.min(2000, 100 * 2 ** (failures - 1)));
      }
    }
    // Set in the same step as the loop's last check: a report after it starts a new pump.
    running = undefined;
  };
  return {
    report(progress) {
      pending = progress;
      running ??= pump();
    },
    flush: () => running ?? Promise.resolve(),
  };
}
