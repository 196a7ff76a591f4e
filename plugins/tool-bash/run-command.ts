/**
 * Run one shell command to completion: its own process group, stdout and stderr in one
 * stream, a deadline, cancellation, and no process left running when a call is cut short.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { HeadTailBuffer } from "./head-tail";
import { killGroup, liveMembers, waitGroupGone } from "./process-group";
import { readReaperReport, stopSpawn, trackProcessGroup, underReaper, type ReaperReport } from "../_kits/process/index";
import { findShell } from "./shell";
import type { SpawnSpec } from "../sandbox/api";

/** How to run a command. */
export interface RunCommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Output beyond this many characters keeps head and tail only. */
  maxOutputChars: number;
  /** Rewrites the spawn (the sandbox wraps it); the process group is still the one we kill. */
  wrap?: (spec: SpawnSpec) => SpawnSpec;
}

/** What a finished (or killed) command produced. */
export interface CommandResult {
  output: string;
  /** Characters the command wrote in all. */
  outputChars: number;
  /** Characters cut from the middle (0 when nothing was cut). */
  cutChars: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** False only when a killed group still had running members after the wait (should not happen). */
  reaped: boolean;
  /** Processes the command left running in the background when its shell exited; they were killed. */
  leftBehind: number;
  /** What they were, when known (the reaper names them): "sleep (pid 12)". */
  leftBehindNames?: { pid: number; command: string }[];
  /**
   * True when every process the command started is known to be gone, including those that left
   * its process group (`setsid`): the sandbox's PID namespace or the reaper. False: only the
   * process group was ended, and a process that left it may still run.
   */
  contained: boolean;
  /** The command killed the reaper that was tracking its processes (`kill -9 $PPID`). */
  reaperLost?: boolean;
  durationMs: number;
  shell: string;
}

// How long a reaper asked to stop may take before its group and the shell's get SIGKILL.
const REAPER_GRACE_MS = 3000;

/** SIGKILL to the reaper's group and the shell's (the last resort when the reaper does not end). */
function killGroups(reaper: number, report: ReaperReport): void {
  killGroup(reaper);
  if (report.shell !== undefined) killGroup(report.shell);
}

// After the shell exits, a background job it started may still hold the pipe open; its later
// output is not waited for beyond this.
const DRAIN_AFTER_EXIT_MS = 200;

/** Run `command` with bash (or sh) and collect its combined output. */
export async function runCommand(command: string, options: RunCommandOptions): Promise<CommandResult> {
  const started = Date.now();
  const shell = findShell(options.env.PATH);
  const output = new HeadTailBuffer(options.maxOutputChars);
  const base = { shell, timedOut: false, aborted: false, reaped: true, leftBehind: 0, contained: true };
  if (options.signal?.aborted) {
    return { ...base, output: "", outputChars: 0, cutChars: 0, exitCode: null, signal: null, aborted: true, durationMs: 0 };
  }

  // `exec 2>&1` first: stderr joins stdout inside the shell, so both reach us through one pipe
  // in the order they were written. detached: the shell leads a new process group we can kill.
  const wrapped = (options.wrap ?? ((s: SpawnSpec) => s))({ command: shell, args: ["-c", `exec 2>&1\n${command}`], cwd: options.cwd, env: options.env });
  // Outside the sandbox, the reaper ends what leaves the group too (setsid).
  const reaped = wrapped.contained ? undefined : underReaper(wrapped);
  const spec = reaped ?? wrapped;
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe", ...(reaped ? (["pipe"] as const) : [])],
  });
  const watch = reaped && child.stdio[3] ? readReaperReport(child.stdio[3] as import("node:stream").Readable) : undefined;
  const untrack = child.pid === undefined ? () => {} : trackProcessGroup(child.pid, { reaper: reaped !== undefined });
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => output.push(chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => output.push(chunk));
  const closed = once(child, "close").catch(() => undefined);

  let timedOut = false;
  let aborted = false;
  let killed = false;
  let fallback: NodeJS.Timeout | undefined;
  // A reaper SIGKILLed by the fallback below whose exit is still not seen (a process of the command
  // traces it: its tracer, not we, is told of its death) is not waited for either.
  let abandon: (ended: [number | null, NodeJS.Signals | null]) => void = () => {};
  const abandoned = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => (abandon = resolve));
  const kill = () => {
    if (killed || child.pid === undefined) return;
    killed = true;
    stopSpawn(child.pid, reaped !== undefined);
    // A reaper that does not end (the command stopped or replaced it) is not waited for: its
    // group and the shell's get SIGKILL.
    if (watch) {
      fallback = setTimeout(() => {
        killGroups(child.pid!, watch.now());
        fallback = setTimeout(() => abandon([null, "SIGKILL"]), REAPER_GRACE_MS);
      }, REAPER_GRACE_MS);
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    kill();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    const [exitCode, signal] = await Promise.race([once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>, abandoned]);
    // Its pid is no longer ours: a time limit or an abort from now on signals nothing (and claims nothing).
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    const done = watch && (await Promise.race([watch.done, abandoned.then(() => watch.now())]));
    // The reaper always exits (with the shell's status): killed by a signal, it did not finish,
    // whatever its fd 3 says (a command that may ptrace it can write there too).
    if (done && (!done.finished || signal !== null)) {
      // The reaper was killed before it finished (by the command itself: `kill -9 $PPID`): what it
      // would have ended is ended as the group is, and nothing more is claimed.
      killGroups(child.pid!, done);
      const gone = (await waitGroupGone(child.pid!)) && (done.shell === undefined || (await waitGroupGone(done.shell)));
      await Promise.race([closed, delay(DRAIN_AFTER_EXIT_MS)]);
      const { text, cut } = output.text();
      // The reaper's own ending (SIGKILL, Perl's "Out of memory!" exit 1) is not the command's:
      // the shell's status is known only if the reaper said it.
      const known = done.exitCode !== null || done.signal !== null;
      return { shell, output: text, outputChars: output.total, cutChars: cut, exitCode: known ? done.exitCode : null, signal: known ? done.signal : null, timedOut, aborted, reaped: gone, leftBehind: 0, contained: false, reaperLost: true, durationMs: Date.now() - started };
    }
    if (done) {
      // The reaper has ended the whole tree and says what it found; its own group is just itself.
      await Promise.race([closed, delay(DRAIN_AFTER_EXIT_MS)]);
      const { text, cut } = output.text();
      const leftBehind = killed ? 0 : done.killed.length;
      return {
        shell,
        output: text,
        outputChars: output.total,
        cutChars: cut,
        exitCode: done.exitCode ?? (done.signal ? null : exitCode),
        signal: done.signal ?? (done.exitCode === null ? signal : null),
        timedOut,
        aborted,
        reaped: done.contained,
        leftBehind,
        leftBehindNames: leftBehind > 0 ? done.killed : undefined,
        contained: done.contained,
        durationMs: Date.now() - started,
      };
    }
    // Background jobs (`cmd &` without `wait`) are still in the group: they end with the call.
    const leftBehind = !killed && child.pid !== undefined ? ((await liveMembers(child.pid)) ?? 0) : 0;
    if (leftBehind > 0) killGroup(child.pid!);
    const gone = (killed || leftBehind > 0) && child.pid !== undefined ? await waitGroupGone(child.pid) : true;
    await Promise.race([closed, delay(DRAIN_AFTER_EXIT_MS)]);
    const { text, cut } = output.text();
    return { shell, output: text, outputChars: output.total, cutChars: cut, exitCode, signal, timedOut, aborted, reaped: gone, leftBehind, contained: wrapped.contained === true, durationMs: Date.now() - started };
  } finally {
    clearTimeout(fallback);
    untrack();
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.stdio[3]?.destroy();
  }
}
