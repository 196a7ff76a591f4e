/** Fleet test helpers: worker child processes on the test worker script, and their logs. */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { tsNodeArgs } from "../helpers/ts-child";

const script = fileURLToPath(new URL("./worker-script.ts", import.meta.url));

/** One worker process and everything it printed. */
export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  lines: string[];
  /** Resolves when a line matching `pattern` has been printed. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

/** Start a worker process with the given environment (see worker-script.ts). */
export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, [...tsNodeArgs, script], {
    env: { ...process.env, DEBUG: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  let buffer = "";
  const take = (chunk: Buffer) => {
    buffer += chunk;
    const parts = buffer.split("\n");
    buffer = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const w of waiters.splice(0)) w.pattern.test(line) ? w.resolve(line) : waiters.push(w);
    }
  };
  child.stdout!.on("data", take);
  child.stderr!.on("data", take);
  return {
    child,
    pid: child.pid!,
    lines,
    waitFor(pattern, timeoutMs = 60_000) {
      const seen = lines.find((l) => pattern.test(l));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`worker ${child.pid}: no line matching ${pattern} in ${timeoutMs} ms:\n${lines.join("\n")}`),
            ),
          timeoutMs,
        );
        waiters.push({ pattern, resolve: (line) => (clearTimeout(timer), resolve(line)) });
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGCONT");
      child.kill("SIGKILL");
      await exited;
    },
  };
}
