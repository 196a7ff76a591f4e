import { readdirSync, readFileSync } from "node:fs";

/** Pids whose command line is `sleep <marker>` (Linux /proc): the processes a test's marked `sleep` left. */
export function sleepers(marker: string): number[] {
  return readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8") === `sleep\0${marker}\0`;
      } catch {
        return false;
      }
    })
    .map(Number);
}
