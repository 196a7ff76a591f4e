/**
 * What the reaper (plugins/_kits/process/reaper.ts) costs a Bash call with the sandbox off:
 * `echo hi` through runCommand with the reaper against the process group alone
 * (UBIQUITY_NO_REAPER=1), alternating rounds so both see the same load. Median and p90 of each.
 * Measured 2026-12-03 on the 2-core machine (load ~2): group only 6.5–7.2 ms median (p90 19–24),
 * reaper 4.7–4.9 ms (p90 5.2–5.3) — cheaper, since the reaper reads its own children list
 * instead of scanning every process in /proc for the group's members.
 */
import { runCommand } from "../plugins/tool-bash/run-command";

const CALLS = 300;

async function times(): Promise<{ median: number; p90: number }> {
  const options = { cwd: process.cwd(), env: process.env, timeoutMs: 10_000, maxOutputChars: 30_000 };
  const t: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await runCommand("echo hi", options);
    t.push(performance.now() - start);
  }
  t.sort((a, b) => a - b);
  return { median: t[Math.floor(CALLS / 2)]!, p90: t[Math.floor(CALLS * 0.9)]! };
}

export default async function bench(): Promise<void> {
  for (let round = 0; round < 2; round++) {
    process.env.UBIQUITY_NO_REAPER = "1";
    const group = await times();
    delete process.env.UBIQUITY_NO_REAPER;
    const reaper = await times();
    console.log(
      `round ${round + 1}: group only ${group.median.toFixed(2)} ms (p90 ${group.p90.toFixed(2)}), reaper ${reaper.median.toFixed(2)} ms (p90 ${reaper.p90.toFixed(2)})`,
    );
  }
}
