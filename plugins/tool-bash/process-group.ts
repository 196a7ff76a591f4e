/**
 * Ending a command for good: SIGKILL to its whole process group (the shell and everything it
 * started), then waiting until no member of the group is still running.
 */
import { open, readFile, readdir } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";

/** Send SIGKILL to every process in group `pgid`; a group already gone is fine. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/**
 * Wait until group `pgid` has no running member, re-sending SIGKILL meanwhile; true when it is
 * gone within `timeoutMs`. Dead members whose parent died become zombies until init reaps them:
 * they run nothing and hold nothing, so they count as gone.
 */
export async function waitGroupGone(pgid: number, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return true;
    }
    if ((await liveMembers(pgid)) === 0) return true;
    if (Date.now() > deadline) return false;
    killGroup(pgid);
    await delay(10);
  }
}

/** Whether group `pgid` has any member, zombies included (a signal-0 probe: ESRCH is none; EPERM is some). */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** Running (not zombie) members of a process group, from /proc; undefined without /proc (the kill probe decides). */
export async function liveMembers(pgid: number): Promise<number | undefined> {
  // No process in the group at all (the usual case once a command has ended): nothing to scan
  // for. The scan opened every process's stat file on the machine after every Bash command.
  if (!groupExists(pgid)) return 0;
  const entries = await readdir("/proc").catch(() => undefined);
  if (!entries) return undefined;
  let live = 0;
  await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e))
      .map(async (pid) => {
        const stat = await statLine(pid);
        // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") live++;
      }),
  );
  return live;
}

// A stat line is one short line (~330 bytes); a longer one is read whole below. Small enough to
// come from Buffer's shared pool.
const STAT_BYTES = 1024;

/**
 * `/proc/<pid>/stat`, read into a small buffer: `readFile` sizes its buffer at 64 KiB for a file
 * that reports no size (every /proc file), so one scan of a machine's ~150 processes allocated
 * ~10 MB per Bash command (the peak RSS of a long run grew with it). "" when the process is gone.
 */
async function statLine(pid: string): Promise<string> {
  const path = `/proc/${pid}/stat`;
  const handle = await open(path, "r").catch(() => undefined);
  if (!handle) return "";
  try {
    const buffer = Buffer.allocUnsafe(STAT_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, STAT_BYTES, 0);
    if (bytesRead < STAT_BYTES) return buffer.toString("utf8", 0, bytesRead);
  } catch {
    return "";
  } finally {
    await handle.close().catch(() => {});
  }
  return readFile(path, "utf8").catch(() => "");
}
