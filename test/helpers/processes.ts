import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";

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

/** Live pids whose command line contains `needle` and whose working folder is `cwd` (Linux /proc). */
export function commandsIn(cwd: string, needle: string): number[] {
  const real = realpathSync(cwd);
  return readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid)
    .filter((pid) => {
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(needle)) return false;
        if (readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] === "Z") return false;
        return readlinkSync(`/proc/${pid}/cwd`) === real;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * Resolves once no process in `cwd` runs a command line containing `needle` (polling; throws after
 * `timeoutMs`, a bound on a hang only). A test that asserts a command's last step never happened
 * waits on this instead of a sleep: a command that was not killed runs that step before it ends.
 */
export async function commandsGone(cwd: string, needle: string, timeoutMs = 60_000): Promise<void> {
  for (const end = Date.now() + timeoutMs; commandsIn(cwd, needle).length > 0; ) {
    if (Date.now() > end) throw new Error(`a command with ${needle} still runs in ${cwd} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
