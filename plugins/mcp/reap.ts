/** Make sure a child process is gone: the SDK's close sequence may return with it still running. */
import { isProcessAlive } from "../_kits/process/index";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True while `pid` exists (Node reaps its own exited children promptly, so this turns false). */
export const isAlive: (pid: number) => boolean = isProcessAlive;

/**
 * SIGKILL `pid` if it still runs, then wait until it is gone; false if it outlived `timeoutMs`
 * (a stuck process: a loaded machine can take seconds to reap a killed one).
 */
export async function reap(pid: number, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let killed = false;
  while (isAlive(pid)) {
    if (!killed) {
      killed = true;
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // it exited between the check and the kill
      }
    }
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}
