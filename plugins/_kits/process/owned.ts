/**
 * The one way a long-lived child is started (stdio MCP servers, language servers): a process
 * group of its own, under the reaper outside the sandbox, remembered by live-groups until it
 * exits. So it ends with this program whatever way the program ends: a normal exit, SIGINT,
 * SIGTERM or SIGHUP (live-groups), SIGKILL (the reaper's parent-death signal; bubblewrap's
 * --die-with-parent inside the sandbox), and whatever it started ends with it (the reaper's
 * sweep; the sandbox's PID namespace).
 */
import type { ChildProcess, StdioPipe } from "node:child_process";
import { createRequire } from "node:module";
import type { Readable } from "node:stream";
import { trackProcessGroup } from "./live-groups";
import { readReaperReport, stopSpawn, underReaper, type ReaperReport } from "./reaper";

// node:child_process by require where used (cold start: a run that starts no server never loads it).
const requireNode = createRequire(import.meta.url);

/** A spawn as the sandbox hands it back: `contained` when its PID namespace ends everything in it. */
export interface OwnedSpawn {
  command: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  contained?: boolean;
  /** Descriptors the child gets (`fds[n]` as its n), and what closes the ones opened for it (the sandbox's SpawnSpec). */
  fds?: (number | undefined)[];
  release?: () => void;
}

/**
 * The stdio array for child_process spawn: `base` (stdin, stdout, stderr and any pipes after
 * them), then each of `fds` at its number, nothing at the numbers between. A descriptor asked
 * for where `base` already has one is a caller's mistake: thrown, never one of the two dropped.
 */
export function withDescriptors<T>(
  base: readonly T[],
  fds: readonly (number | undefined)[] | undefined,
): (T | number | "ignore")[] {
  const stdio: (T | number | "ignore")[] = [...base];
  (fds ?? []).forEach((fd, n) => {
    if (fd === undefined) return;
    if (n < base.length) throw new Error(`descriptor ${n} is the child's ${n < 3 ? "stdio" : "pipe"} already`);
    while (stdio.length < n) stdio.push("ignore");
    stdio[n] = fd;
  });
  return stdio;
}

/** A child started by {@link spawnOwned}. */
export interface OwnedChild {
  /** The process we started (the reaper, bwrap, or the program itself). */
  readonly child: ChildProcess;
  /** It runs under the reaper (which must get SIGTERM, never its group SIGKILL). */
  readonly reaper: boolean;
  /** The reaper's report (undefined without the reaper): the program's pid, what it killed. */
  readonly report?: { now(): ReaperReport; done: Promise<ReaperReport> };
  /**
   * The program's own pid: the reaper's child once the reaper has named it (the report is
   * checked: the named process must be the reaper's child), else the child's pid.
   */
  programPid(): number | undefined;
  /** Ask the program to end: `signal` to its own process group (it leads one). */
  signal(signal: NodeJS.Signals): void;
  /** End it and everything it started now (SIGKILL, through the reaper where it runs); again is harmless. */
  kill(): void;
  /** Settles once the process we started has exited. */
  readonly exited: Promise<void>;
}

/** The parent pid of `pid` (Linux /proc), or undefined. */
function parentOf(pid: number): number | undefined {
  try {
    const { readFileSync } = requireNode("node:fs") as typeof import("node:fs");
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

let setpriv: string | null | undefined;

/**
 * Where the reaper cannot run (no Perl, `UBIQUITY_NO_REAPER=1`), Linux can still end the program
 * itself when this one dies, SIGKILL included: util-linux's `setpriv --pdeathsig KILL` sets its
 * parent-death signal and execs it (same pid). What it starts is out of reach then.
 */
function withDeathSignal(spec: OwnedSpawn): OwnedSpawn {
  if (process.platform !== "linux") return spec;
  if (setpriv === undefined) {
    const { existsSync } = requireNode("node:fs") as typeof import("node:fs");
    setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p)) ?? null;
  }
  if (!setpriv) return spec;
  return { ...spec, command: setpriv, args: ["--pdeathsig", "KILL", "--", spec.command, ...spec.args] };
}

/**
 * Start `spec` (already wrapped by the sandbox when it is on) with stdin, stdout and stderr as
 * pipes, as a child this program owns (see the file comment). `stdin`, when given, is an open file
 * descriptor the child reads instead of a stdin pipe (the caller closes it after this returns).
 */
export function spawnOwned(spec: OwnedSpawn, { stdin }: { stdin?: number } = {}): OwnedChild {
  const { spawn } = requireNode("node:child_process") as typeof import("node:child_process");
  const reaped = spec.contained ? undefined : underReaper(spec);
  const run = reaped ?? (spec.contained ? spec : withDeathSignal(spec));
  const base: (StdioPipe | number)[] = [stdin ?? "pipe", "pipe", "pipe", ...(reaped ? (["pipe"] as const) : [])];
  let child: ChildProcess;
  try {
    child = spawn(run.command, run.args, {
      cwd: run.cwd,
      env: run.env as NodeJS.ProcessEnv,
      stdio: withDescriptors(base, run.fds),
      // detached: it leads a process group of its own, which we can end as one.
      detached: true,
    });
  } finally {
    spec.release?.(); // the child has its own copies
  }
  const reaper = reaped !== undefined;
  // Read, so the reaper never blocks on a full pipe.
  const report = reaper && child.stdio[3] ? readReaperReport(child.stdio[3] as Readable) : undefined;
  let exitedNow = false;
  const untrack = child.pid === undefined ? () => {} : trackProcessGroup(child.pid, { reaper });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      exitedNow = true;
      untrack();
      resolve();
    });
    child.once("error", () => {
      untrack();
      resolve();
    });
  });
  const programPid = () => {
    if (!report) return child.pid;
    const named = report.now().shell;
    return named !== undefined && parentOf(named) === child.pid ? named : undefined;
  };
  return {
    child,
    reaper,
    report,
    programPid,
    exited,
    signal(signal) {
      const pid = programPid();
      if (pid === undefined || exitedNow) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // Already gone.
      }
    },
    kill() {
      // A reaper that exited has ended the tree, and its pid may be another process's by now. A
      // group whose leader exited is still ours while a member lives (its id is not reused then):
      // what the program left running in it goes too.
      if (child.pid === undefined || (reaper && exitedNow)) return;
      stopSpawn(child.pid, reaper);
    },
  };
}
