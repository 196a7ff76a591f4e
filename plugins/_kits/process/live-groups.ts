/**
 * The process groups this program started (Bash commands, command hooks, language servers, stdio
 * MCP servers) and has not yet seen end. When the program exits, or gets SIGINT, SIGTERM or SIGHUP
 * that nobody else handles, every one of them is ended (SIGKILL, through the reaper where it
 * runs), so nothing the agent started outlives it. The signal listeners exist only
 * while a group is live, and a signal nobody else handles is raised again afterwards, so the
 * program still ends the way it would have without us. (SIGKILL of the program itself cannot be
 * caught: the sandbox's --die-with-parent and the reaper's parent-death signal cover that.)
 */
import { stopSpawn } from "./reaper";

// pgid → whether its leader is the reaper (which must get SIGTERM, never its group SIGKILL).
const live = new Map<number, boolean>();
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

function killAll(): void {
  for (const [pgid, reaper] of live) stopSpawn(pgid, reaper);
}

function onSignal(signal: NodeJS.Signals): void {
  // Someone else handles it: the program may go on (Ctrl-C in the chat ends a turn, not the
  // session, whose language and MCP servers it still uses), or end its run in order (the runner
  // closes the session, then exits): what is still live then ends with the exit listener.
  if (process.listenerCount(signal) > 1) return;
  killAll();
  live.clear();
  uninstall();
  // Nobody else handles it: let the default action (ending the program) happen as it would have.
  process.kill(process.pid, signal);
}

function install(): void {
  process.on("exit", killAll);
  for (const s of SIGNALS) process.on(s, onSignal);
}

function uninstall(): void {
  process.removeListener("exit", killAll);
  for (const s of SIGNALS) process.removeListener(s, onSignal);
}

/**
 * Remember a live process group (its leader's pid); the returned function forgets it. A group
 * led by the reaper ({@link underReaper}) is ended by SIGTERM to the reaper, which ends the rest,
 * also when this program is SIGKILLed (the reaper gets SIGTERM when its parent dies).
 */
export function trackProcessGroup(pgid: number, options: { reaper?: boolean; shell?: boolean } = {}): () => void {
  if (live.size === 0) install();
  live.set(pgid, options.reaper === true);
  if (options.shell) shells.add(pgid);
  return () => {
    shells.delete(pgid);
    if (!live.delete(pgid)) return;
    if (live.size === 0) uninstall();
  };
}

// The live groups that are a Bash command's shell (a background one included): what the model runs.
const shells = new Set<number>();

/** How many live groups are a Bash command's shell (a background shell still running, say). */
export function liveShellGroups(): number {
  return shells.size;
}

/** How many groups are live (for tests and diagnostics). */
export function liveProcessGroups(): number {
  return live.size;
}

/** True while a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
