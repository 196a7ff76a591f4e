/**
 * One shell command as a process we own: its own process group (under the reaper outside the
 * sandbox), stdout and stderr in one stream, stdin when asked, a stop that leaves nothing
 * running, and an account of how it ended. A foreground Bash call (run-command.ts) and a
 * background shell (background.ts) are both one of these.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import type { Readable } from "node:stream";
import { killGroup, liveMembers, waitGroupGone } from "./process-group";
import {
  readReaperReport,
  stopSpawn,
  trackProcessGroup,
  underReaper,
  withDescriptors,
  type ReaperReport,
} from "../_kits/process/index";
import { findShell, shellFlags } from "./shell";
import type { SpawnSpec } from "../sandbox/api";

/** How to start a command. */
export interface ShellOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Rewrites the spawn (the sandbox wraps it); the process group is still the one we kill. */
  wrap?: (spec: SpawnSpec) => SpawnSpec;
  /** "pipe": the command reads what {@link ShellProcess.write} sends ["ignore": stdin is empty]. */
  stdin?: "ignore" | "pipe";
  /** Run the command on a pseudo-terminal (util-linux `script`), for programs that want one. */
  pty?: boolean;
}

/** How a command ended. */
export interface ShellEnd {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** It was stopped ({@link ShellProcess.stop}), not left to end by itself. */
  stopped: boolean;
  /** False only when a stopped group still had running members after the wait (should not happen). */
  reaped: boolean;
  /** Processes the command left running when its shell exited; they were killed. */
  leftBehind: number;
  /** What they were, when known (the reaper names them). */
  leftBehindNames?: { pid: number; command: string }[];
  /** Every process the command started is known gone, including those that left its group. */
  contained: boolean;
  /** The command killed the reaper that was tracking its processes. */
  reaperLost?: boolean;
}

// After the shell exits, a background job it started may still hold the pipe open; its later
// output is not waited for beyond this.
const DRAIN_AFTER_EXIT_MS = 200;
// How long a reaper asked to stop may take before its group and the shell's get SIGKILL.
const REAPER_GRACE_MS = 3000;

/**
 * `promise`, or `late` once `ms` have passed, whichever comes first. The timer ends with the race:
 * a pending one holds the program open, and a `timers/promises` delay that lost the race did, up
 * to 200 ms after every command (the last command's drain kept `ubiquity run` from exiting).
 */
function within<T, L>(promise: Promise<T>, ms: number, late: L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<L>((resolve) => (timer = setTimeout(resolve, ms, late)));
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** SIGKILL to the reaper's group and the shell's (the last resort when the reaper does not end). */
function killGroups(reaper: number, report: ReaperReport): void {
  killGroup(reaper);
  if (report.shell !== undefined) killGroup(report.shell);
}

/** The parent pid of `pid` (Linux /proc), or undefined. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** A running (or ended) shell command. */
export class ShellProcess {
  /** The shell that runs the command (bash, or sh where bash is missing). */
  readonly shell: string;
  /** Resolves once the command and everything it started have ended. */
  readonly ended: Promise<ShellEnd>;
  /** It runs inside the sandbox (the wrap contains it). */
  readonly sandboxed: boolean;
  readonly #child: ChildProcess;
  readonly #reaper: boolean;
  readonly #watch?: { now(): ReaperReport; done: Promise<ReaperReport> };
  readonly #listeners = new Set<(chunk: string) => void>();
  #stopped = false;
  #exited = false;
  #fallback?: NodeJS.Timeout;
  // A reaper SIGKILLed by the fallback whose exit is still not seen (a process of the command
  // traces it: its tracer, not we, is told of its death) is not waited for either.
  #abandon: (ended: [number | null, NodeJS.Signals | null]) => void = () => {};
  readonly #abandoned = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => (this.#abandon = resolve));

  constructor(command: string, options: ShellOptions) {
    this.shell = findShell(options.env.PATH);
    // `exec 2>&1` first: stderr joins stdout inside the shell, so both reach us through one pipe
    // in the order they were written. On a pseudo-terminal the two are one stream already.
    // script runs its command with `$SHELL -c` (sh when unset): the user's zsh read `echo x >!
    // .git/config` as a clobbering write where bash, whose reading the permission engine judged,
    // writes a file named `!` (red team ze, ZE6). It is given the shell every other call runs.
    const plain: SpawnSpec = options.pty
      ? {
          command: this.shell,
          args: [
            ...shellFlags(this.shell),
            "-c",
            'SHELL="$1" exec script -qfec "$0" /dev/null 2>&1',
            command,
            this.shell,
          ],
          cwd: options.cwd,
          env: options.env,
        }
      : {
          command: this.shell,
          args: [...shellFlags(this.shell), "-c", `exec 2>&1\n${command}`],
          cwd: options.cwd,
          env: options.env,
        };
    const wrapped = (options.wrap ?? ((s: SpawnSpec) => s))(plain);
    this.sandboxed = wrapped.contained === true;
    // Outside the sandbox, the reaper ends what leaves the group too (setsid).
    const reaper = wrapped.contained ? undefined : underReaper(wrapped);
    this.#reaper = reaper !== undefined;
    const spec = reaper ?? wrapped;
    // detached: the shell (or the reaper) leads a new process group we can end.
    try {
      this.#child = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env as NodeJS.ProcessEnv,
        detached: true,
        stdio: withDescriptors<"ignore" | "pipe">(
          [options.stdin ?? "ignore", "pipe", "pipe", ...(reaper ? (["pipe"] as const) : [])],
          spec.fds,
        ),
      });
    } finally {
      wrapped.release?.(); // the child has its own copies
    }
    const child = this.#child;
    child.stdin?.on("error", () => {}); // a command that never reads stdin closes it early
    this.#watch = reaper && child.stdio[3] ? readReaperReport(child.stdio[3] as Readable) : undefined;
    const untrack =
      child.pid === undefined ? () => {} : trackProcessGroup(child.pid, { reaper: this.#reaper, shell: true });
    const push = (chunk: string) => {
      for (const listener of this.#listeners) listener(chunk);
    };
    child.stdout!.setEncoding("utf8").on("data", push);
    child.stderr!.setEncoding("utf8").on("data", push);
    const failed = once(child, "error").then(([error]) => error as Error);
    this.ended = this.#finish(wrapped.contained === true, failed).finally(() => {
      clearTimeout(this.#fallback);
      untrack();
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdio[3]?.destroy();
    });
  }

  /** The pid of the process we started (the reaper, bwrap or the shell). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Receive output chunks (stdout and stderr, in order); returns the function that stops receiving. */
  onData(listener: (chunk: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Send text to the command's stdin; false when it has no stdin (or it was closed). */
  write(text: string): boolean {
    const stdin = this.#child.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable) return false;
    stdin.write(text);
    return true;
  }

  /** Close the command's stdin (end of input). */
  endInput(): void {
    this.#child.stdin?.end();
  }

  /** True once the process we started has exited (its pid is no longer ours to signal). */
  get exited(): boolean {
    return this.#exited;
  }

  /** End it now: the whole tree gets SIGKILL (through the reaper where it runs). Idempotent; nothing once it exited. */
  stop(): void {
    const pid = this.#child.pid;
    if (this.#stopped || this.#exited || pid === undefined) return;
    this.#stopped = true;
    stopSpawn(pid, this.#reaper);
    // A reaper that does not end (the command stopped or replaced it) is not waited for: its
    // group and the shell's get SIGKILL.
    const watch = this.#watch;
    if (watch) {
      this.#fallback = setTimeout(() => {
        killGroups(pid, watch.now());
        this.#fallback = setTimeout(() => this.#abandon([null, "SIGKILL"]), REAPER_GRACE_MS);
      }, REAPER_GRACE_MS);
    }
  }

  /**
   * Ask first, then end: SIGTERM to the command's process group, and {@link stop} when it has not
   * ended within `graceMs` (a program that ignores SIGTERM is killed all the same).
   */
  async terminate(graceMs: number): Promise<ShellEnd> {
    // The shell the reaper named must still be the reaper's child: the report is written on a
    // channel a process of the same user can reach (pidfd_getfd), so a name is not taken on trust.
    const named = this.#watch?.now().shell;
    const group = this.#reaper
      ? named !== undefined && parentOf(named) === this.#child.pid
        ? named
        : undefined
      : this.#child.pid;
    if (group !== undefined && !this.#stopped) {
      try {
        process.kill(-group, "SIGTERM");
      } catch {
        // Already gone.
      }
      if ((await within(this.ended, graceMs, "late" as const)) === "late") this.stop();
    } else {
      this.stop();
    }
    return this.ended;
  }

  async #finish(sandboxed: boolean, failed: Promise<Error>): Promise<ShellEnd> {
    const child = this.#child;
    const closed = once(child, "close").catch(() => undefined);
    const exit = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    const first = await Promise.race([exit, failed, this.#abandoned]);
    if (first instanceof Error) throw first;
    this.#exited = true;
    const [exitCode, signal] = first;
    const stopped = this.#stopped;
    const watch = this.#watch;
    const done = watch && (await Promise.race([watch.done, this.#abandoned.then(() => watch.now())]));
    const pid = child.pid!;
    // The reaper always exits by itself, with the shell's status: killed by a signal, it did not
    // finish, whatever its fd 3 says (a command that may ptrace it can write there too).
    if (done && (!done.finished || signal !== null)) {
      // The reaper was killed before it finished (by the command itself: `kill -9 $PPID`): what it
      // would have ended is ended as the group is, and nothing more is claimed.
      killGroups(pid, done);
      const gone = (await waitGroupGone(pid)) && (done.shell === undefined || (await waitGroupGone(done.shell)));
      await within(closed, DRAIN_AFTER_EXIT_MS, undefined);
      // The reaper's own ending (SIGKILL, Perl's "Out of memory!" exit 1) is not the command's:
      // the shell's status is known only if the reaper said it.
      const known = done.exitCode !== null || done.signal !== null;
      return {
        exitCode: known ? done.exitCode : null,
        signal: known ? done.signal : null,
        stopped,
        reaped: gone,
        leftBehind: 0,
        contained: false,
        reaperLost: true,
      };
    }
    if (done) {
      // The reaper has ended the whole tree and says what it found; its own group is just itself.
      await within(closed, DRAIN_AFTER_EXIT_MS, undefined);
      const leftBehind = stopped ? 0 : done.killed.length;
      return {
        exitCode: done.exitCode ?? (done.signal ? null : exitCode),
        signal: done.signal ?? (done.exitCode === null ? signal : null),
        stopped,
        reaped: done.contained,
        leftBehind,
        ...(leftBehind > 0 ? { leftBehindNames: done.killed } : {}),
        contained: done.contained,
      };
    }
    // Background jobs (`cmd &` without `wait`) are still in the group: they end with the command.
    const leftBehind = !stopped ? ((await liveMembers(pid)) ?? 0) : 0;
    if (leftBehind > 0) killGroup(pid);
    const gone = stopped || leftBehind > 0 ? await waitGroupGone(pid) : true;
    await within(closed, DRAIN_AFTER_EXIT_MS, undefined);
    return { exitCode, signal, stopped, reaped: gone, leftBehind, contained: sandboxed };
  }
}
