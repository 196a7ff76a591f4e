/**
 * Run one shell command to completion: its own process group, stdout and stderr in one
 * stream, a deadline, cancellation, and no process left running when a call is cut short.
 */
import { HeadTailBuffer } from "./head-tail";
import { ShellProcess, type ShellEnd } from "./shell-process";
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
  /**
   * At the timeout: take the still-running command over (a background shell) and return its
   * id, or undefined to have it killed. Its output so far is passed along.
   */
  onTimeout?: (proc: ShellProcess, outputSoFar: string) => string | undefined;
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
  /** The command outlived its timeout and runs on as this background shell. */
  movedToBackground?: string;
  durationMs: number;
  shell: string;
}

/** Run `command` with bash (or sh) and collect its combined output. */
export async function runCommand(command: string, options: RunCommandOptions): Promise<CommandResult> {
  const started = Date.now();
  const output = new HeadTailBuffer(options.maxOutputChars);
  if (options.signal?.aborted) {
    const base = { timedOut: false, reaped: true, leftBehind: 0, contained: true };
    return {
      ...base,
      shell: findShell(options.env.PATH),
      output: "",
      outputChars: 0,
      cutChars: 0,
      exitCode: null,
      signal: null,
      aborted: true,
      durationMs: 0,
    };
  }
  const proc = new ShellProcess(command, { cwd: options.cwd, env: options.env, wrap: options.wrap });
  const unlisten = proc.onData((chunk) => output.push(chunk));
  let timedOut = false;
  let aborted = false;
  let moved: string | undefined;
  let handedOver!: (value: undefined) => void;
  const away = new Promise<undefined>((resolve) => (handedOver = resolve));
  const timer = setTimeout(() => {
    // After the command exited (its output still draining) there is nothing to cut short.
    if (proc.exited) return;
    // Moved to the background instead of killed, when the caller takes it over.
    moved = options.onTimeout?.(proc, output.text().text);
    if (moved !== undefined) {
      unlisten();
      return handedOver(undefined);
    }
    timedOut = true;
    proc.stop();
  }, options.timeoutMs);
  const onAbort = () => {
    if (proc.exited) return;
    aborted = true;
    proc.stop();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const end: ShellEnd | undefined = await Promise.race([proc.ended, away]);
    const { text, cut } = output.text();
    const common = {
      shell: proc.shell,
      output: text,
      outputChars: output.total,
      cutChars: cut,
      timedOut,
      aborted,
      durationMs: Date.now() - started,
    };
    if (!end)
      return {
        ...common,
        exitCode: null,
        signal: null,
        reaped: true,
        leftBehind: 0,
        contained: true,
        movedToBackground: moved,
      };
    return { ...common, ...end };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}
