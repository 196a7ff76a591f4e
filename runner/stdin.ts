/**
 * Standard input for `ubiquity run`: piped text goes with the prompt (`git diff | ubiquity run
 * "review this"`), or is the prompt when none is given. A CI job often leaves an idle pipe open
 * on stdin: with a prompt, the runner waits a bounded time for the first byte (or the end) and
 * goes on without stdin when nothing comes; once data flows it reads to the end.
 */
import { fstatSync, readFileSync } from "node:fs";

/** How long a run with a prompt waits for the first byte of piped input. */
export const STDIN_FIRST_BYTE_MS = 1000;

type Input = NodeJS.ReadableStream & { isTTY?: boolean; fd?: number; unref?: () => void };

/** A regular file redirected to stdin (`< notes.txt`) is read whole, without waiting. */
function regularFile(stdin: Input): string | undefined {
  if (typeof stdin.fd !== "number") return undefined;
  try {
    return fstatSync(stdin.fd).isFile() ? readFileSync(stdin.fd, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The text on stdin, or "" when it is a terminal. With `bounded`, "" also when no byte arrives
 * within `firstByteMs` (the pipe is then left alone so the process can exit).
 */
export function readStdin(
  stdin: Input,
  { bounded, firstByteMs = STDIN_FIRST_BYTE_MS }: { bounded: boolean; firstByteMs?: number },
): Promise<string> {
  if (stdin.isTTY === true) return Promise.resolve("");
  const file = regularFile(stdin);
  if (file !== undefined) return Promise.resolve(file);
  return new Promise((resolveText, reject) => {
    let text = "";
    let flowing = false;
    const finish = (value: string) => {
      clearTimeout(timer);
      stdin.removeListener("data", onData);
      stdin.removeListener("end", onEnd);
      stdin.removeListener("error", onError);
      resolveText(value);
    };
    const onData = (chunk: string | Buffer) => {
      flowing = true;
      text += chunk.toString();
    };
    const onEnd = () => finish(text);
    const onError = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    const timer = bounded
      ? setTimeout(() => {
          if (flowing) return;
          // Idle pipe: stop reading so it neither blocks nor keeps the process alive.
          stdin.pause();
          stdin.unref?.();
          finish("");
        }, firstByteMs)
      : undefined;
    stdin.setEncoding?.("utf8");
    stdin.on("data", onData);
    stdin.once("end", onEnd);
    stdin.once("error", onError);
  });
}

/** The prompt the model receives: the flag's prompt with the piped text, or either alone. */
export function combinePrompt(prompt: string, piped: string): string {
  const input = piped.replace(/\s+$/, "");
  if (!input.trim()) return prompt;
  if (!prompt) return input.trim();
  return `${prompt}\n\n<stdin>\n${input}\n</stdin>`;
}
