/**
 * The runner's terminal mode under a pseudo-terminal (util-linux `script`), typed into the way a
 * person would: each line only after the screen shows what it answers.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { binPath } from "./project";
import type { Logged } from "./scripted-project";

/** One step: wait until `until` holds for the screen (text after the previous step), then type `type`. */
export type Step = {
  until: (screen: string, log: () => Logged[]) => boolean;
  type: string | ((screen: string) => string);
};

// The terminal's rendering of the prompt marker (readline redraws it with cursor moves).
export const PROMPT = "› ";
export const strip = (text: string) => text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");

export function inTerminal(
  cwd: string,
  args: string[],
  env: Record<string, string>,
  steps: Step[],
): Promise<{ code: number; screen: string }> {
  const command = [process.execPath, binPath, ...args].map((a) => `'${a}'`).join(" ");
  const log = (): Logged[] =>
    env.UBQ_LOG === undefined
      ? []
      : readFileSync(env.UBQ_LOG, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Logged);
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
      cwd,
      env: { ...process.env, UBIQUITY_TRUST: "1", NO_COLOR: "1", DEBUG: "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    let from = 0;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `no exit within 240 s; waiting for step ${JSON.stringify(steps[0]?.type)}; screen:\n${strip(screen)}`,
        ),
      );
    }, 240_000);
    const advance = () => {
      const step = steps[0];
      if (!step?.until(strip(screen.slice(from)), log)) return;
      steps.shift();
      const text = typeof step.type === "string" ? step.type : step.type(strip(screen));
      from = screen.length;
      child.stdin.write(text);
      setImmediate(advance);
    };
    // The model's log changes without the screen changing (the slow turn): look again now and then.
    const poll = setInterval(advance, 100);
    child.stdout.on("data", (chunk: Buffer) => {
      screen += chunk.toString();
      advance();
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      resolve({ code: code ?? 1, screen: strip(screen) });
    });
  });
}
