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

/** A process as recorded at one moment: its pid, its start time (so a reused pid is not it) and its command line. */
export interface RecordedProcess {
  pid: number;
  start: string;
  command: string;
}

/** `/proc/<pid>/stat` split after the command name ([0] state, [1] ppid, [19] start time), or undefined when gone. */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** Every process descending from `root` right now (children, their children, …; Linux /proc), `root` left out. */
export function descendants(root: number): RecordedProcess[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(statFields(entry)?.[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid)!.push(Number(entry));
  }
  const found: RecordedProcess[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const fields = statFields(pid);
    if (!fields) continue;
    let command = "?";
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    } catch {
      // gone meanwhile
    }
    found.push({ pid, start: fields[19]!, command });
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/**
 * Whether a recorded process still runs: `process.kill(pid, 0)` finds it, it is the same process
 * (same start time) and it is not a zombie (an exited process nobody reaped runs nothing).
 */
export function stillRuns(p: RecordedProcess): boolean {
  try {
    process.kill(p.pid, 0);
  } catch {
    return false;
  }
  const fields = statFields(p.pid);
  return fields !== undefined && fields[19] === p.start && fields[0] !== "Z" && fields[0] !== "X";
}

/**
 * Poll until none of `recorded` runs; the ones still running after `timeoutMs` (a bound on a
 * hang only, never a measure) are returned, so an assertion names them.
 */
export async function survivors(recorded: RecordedProcess[], timeoutMs = 60_000): Promise<RecordedProcess[]> {
  for (const end = Date.now() + timeoutMs; ; ) {
    const running = recorded.filter(stillRuns);
    if (running.length === 0 || Date.now() > end) return running;
    await new Promise((r) => setTimeout(r, 25));
  }
}
