/**
 * Background shells: how long `Bash run_in_background` takes to return (the spawn, under the
 * reaper with the sandbox off), and how long a BashOutput read takes when the buffer is full
 * (1,000,000 characters) and when nothing is new. Medians of 200 (start) and 50 (read).
 * Measured 2026-12-03 on the 2-core machine (load ~3): start 1.36 ms; full read 0.02 ms; empty read 0.001 ms.
 */
import { TaskRegistry } from "../plugins/_kits/tasks/index";
import { adoptShell, type ShellBody } from "../plugins/tool-bash/background";
import { ShellProcess } from "../plugins/tool-bash/shell-process";

const median = (t: number[]) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)]!;

export default async function bench(): Promise<void> {
  const tasks = new TaskRegistry({ maxShells: 1000, maxTotal: 100_000 });
  const options = { cwd: process.cwd(), env: process.env, stdin: "pipe" as const };
  const starts: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    const id = adoptShell(tasks, "sleep 60", () => new ShellProcess("sleep 60", options), { interactive: true });
    starts.push(performance.now() - t0);
    await tasks.stop(id, "by the bench");
  }
  const full: number[] = [];
  const small: number[] = [];
  for (let i = 0; i < 50; i++) {
    const id = adoptShell(
      tasks,
      "big",
      () => new ShellProcess("head -c 2000000 /dev/zero | tr '\\0' 'x'; echo; sleep 60", options),
      { interactive: true },
    );
    const body = tasks.body<ShellBody>(id)!;
    // 2,000,000 characters are written within this on an idle or a busy machine; the read checks it.
    await new Promise((r) => setTimeout(r, 500));
    let t0 = performance.now();
    const read = body.read();
    full.push(performance.now() - t0);
    if (read.text.length + read.dropped < 1_000_000)
      throw new Error(`expected a full buffer, read ${read.text.length}`);
    body.write("");
    t0 = performance.now();
    body.read();
    small.push(performance.now() - t0);
    await tasks.stop(id, "by the bench");
  }
  console.log(`background shell start: ${median(starts).toFixed(2)} ms median (200 starts)`);
  console.log(
    `BashOutput read of a full 1,000,000-character buffer: ${median(full).toFixed(2)} ms median; of nothing new: ${median(small).toFixed(3)} ms`,
  );
}
