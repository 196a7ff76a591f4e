/**
 * A background shell: a command started with `Bash run_in_background` (or moved there when it
 * outlived its timeout) that runs on while the agent works, registered as a task of the run.
 * Its output goes to a ring buffer that keeps the last `maxOutputChars` characters and counts
 * what it dropped; a reader gets what is new since its last read. It ends by itself, by
 * KillShell or `stopTask()`, at its time limits, or with the session — and everything it
 * started ends with it (sandbox or reaper).
 */
import type { TaskBody, TaskRegistry } from "../_kits/tasks/index";
import type { ShellProcess } from "./shell-process";

/** What a read returns. */
export interface ShellRead {
  /** Output since the last read (lines matching the filter, when one is given). */
  text: string;
  /** Characters written since the last read that the buffer no longer holds. */
  dropped: number;
  /** Lines left out by the filter. */
  filteredOut: number;
}

/** A shell's task body: stop, plus reading its output and writing its input. */
export interface ShellBody extends TaskBody {
  read(filter?: RegExp): ShellRead;
  write(text: string): boolean;
  /** True when it was started with stdin open. */
  readonly interactive: boolean;
  /** True when it runs inside the sandbox. */
  readonly sandboxed: boolean;
}

/** Keeps the newest `max` characters of a stream and where each reader left off. */
class RingText {
  #text = "";
  /** Characters ever written. */
  total = 0;
  /** Where the last read ended (absolute). */
  #cursor = 0;
  constructor(readonly max: number) {}

  push(chunk: string): void {
    this.total += chunk.length;
    this.#text += chunk;
    // Trim at twice the size, so a stream of small chunks is not quadratic.
    if (this.#text.length > this.max * 2) this.#text = this.#text.slice(-this.max);
  }

  /** What is new since the last read, and how much of it was dropped. */
  take(): { text: string; dropped: number } {
    const kept = this.#text.length > this.max ? this.#text.slice(-this.max) : this.#text;
    const keptFrom = this.total - kept.length;
    const dropped = Math.max(0, keptFrom - this.#cursor);
    const text = kept.slice(Math.max(0, this.#cursor - keptFrom));
    this.#cursor = this.total;
    return { text, dropped };
  }
}

/**
 * Register a shell process as a background task and watch it to its end: `start` spawns it (or
 * is one already running: a foreground call moved here at its timeout, whose output so far is
 * `initial`). Throws the registry's TaskLimitError when a cap is reached.
 */
export function adoptShell(
  tasks: TaskRegistry,
  command: string,
  start: ShellProcess | (() => ShellProcess),
  options: { interactive: boolean; initial?: string },
): string {
  const {
    shellOutputChars,
    shellMaxDurationMs: maxDurationMs,
    shellIdleTimeoutMs: idleTimeoutMs,
    stopGraceMs,
  } = tasks.limits;
  const ring = new RingText(shellOutputChars);
  // What a moved command wrote before was in its foreground result: the first read starts after it.
  if (options.initial) {
    ring.push(options.initial);
    ring.take();
  }
  let stopReason: string | undefined;
  let lastOutput = Date.now();
  // A factory runs only once the caps let the task start: nothing is spawned for a refused one.
  const info = tasks.start("shell", command, (id) => {
    const proc = typeof start === "function" ? start() : start;
    proc.onData((chunk) => {
      ring.push(chunk);
      lastOutput = Date.now();
      tasks.output(id, chunk);
    });
    const stop = async (reason: string) => {
      stopReason ??= reason;
      await proc.terminate(stopGraceMs);
    };
    const total = setTimeout(
      () => void stop(`after running past its limit (${Math.round(maxDurationMs / 1000)} s, shellMaxDurationMs)`),
      maxDurationMs,
    );
    total.unref();
    const idle = idleTimeoutMs
      ? setInterval(
          () => {
            if (Date.now() - lastOutput >= idleTimeoutMs!)
              void stop(`after ${Math.round(idleTimeoutMs! / 1000)} s without output (shellIdleTimeoutMs)`);
          },
          Math.min(idleTimeoutMs, 1000),
        )
      : undefined;
    idle?.unref();
    proc.ended.then(
      (end) => {
        clearTimeout(total);
        clearInterval(idle);
        const how = end.signal ? `killed by ${end.signal}` : `exit code ${end.exitCode}`;
        // Without the sandbox or the reaper only the process group is ended: say so, never more.
        const uncontained = end.contained
          ? ""
          : end.reaperLost
            ? "; it ended the process that tracked what it started, so a process it started outside its process group (setsid) may still be running"
            : "; only its process group is tracked here (no sandbox or reaper), so a process it started outside that group (setsid) may still be running";
        const left =
          (end.leftBehind > 0
            ? `; ${end.leftBehind} process${end.leftBehind === 1 ? "" : "es"} it left running stopped`
            : "") + uncontained;
        if (stopReason) tasks.end(id, "killed", `stopped ${stopReason}${left}`, end.exitCode);
        else tasks.end(id, end.exitCode === 0 ? "completed" : "failed", how + left, end.exitCode);
      },
      (error: Error) => {
        clearTimeout(total);
        clearInterval(idle);
        tasks.end(id, "failed", `could not start: ${error.message}`, null);
      },
    );
    const body: ShellBody = {
      stop,
      interactive: options.interactive,
      sandboxed: proc.sandboxed,
      write: (text) => proc.write(text),
      read(filter) {
        const { text, dropped } = ring.take();
        if (!filter) return { text, dropped, filteredOut: 0 };
        const lines = text.split("\n");
        const kept = lines.filter((line) => filter.test(line));
        return { text: kept.join("\n"), dropped, filteredOut: lines.length - kept.length };
      },
    };
    return body;
  });
  return info.id;
}
