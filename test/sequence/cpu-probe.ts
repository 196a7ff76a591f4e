/**
 * Where the suite's CPU goes, per test file: with `UBIQUITY_TEST_CPU_LOG=<file>` vitest loads this
 * setup file, which appends one line per test file — its path, the CPU seconds of the worker
 * (import included) and of the child processes it reaped — to that file:
 *
 *   UBIQUITY_TEST_CPU_LOG=/tmp/cpu.tsv npm test
 *   sort -t$'\t' -k3 -rn /tmp/cpu.tsv | head
 *
 * The suite is CPU-bound on a 2-core machine (two thirds of it in child processes), so this, not
 * wall time, says what to make cheaper.
 *
 * Blind spot: what runs inside bwrap's PID namespace (the sandbox's commands, the differential
 * harness's bash and strace) is reaped by init, not by the worker, so it is not counted here (the
 * differential harness: ~28 of its ~37 CPU-s). `python3 bench/reaped-cpu.py npx vitest run <file>`
 * counts it.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll } from "vitest";

/** This process's CPU and its reaped children's, in seconds (/proc/self/stat: utime, stime, cutime, cstime). */
function cpu(): { own: number; children: number } {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ").map(Number);
  const hz = 100;
  return { own: (fields[11]! + fields[12]!) / hz, children: (fields[13]! + fields[14]!) / hz };
}

const start = cpu();
const log = process.env.UBIQUITY_TEST_CPU_LOG!;
// biome-ignore lint/correctness/noEmptyPattern: vitest requires a destructuring pattern for a hook's first argument
afterAll(({}, suite) => {
  const end = cpu();
  const seconds = (n: number) => n.toFixed(2);
  const path = "filepath" in suite ? suite.filepath : suite.file.filepath;
  appendFileSync(log, `${path}\t${seconds(end.own - start.own)}\t${seconds(end.children - start.children)}\n`);
});
