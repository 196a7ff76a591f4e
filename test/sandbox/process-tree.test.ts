/** Nothing a sandboxed command started outlives the program, even when the program is SIGKILLed. */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { removeStalePrivateDirs } from "../../plugins/sandbox/runtime";
import { spawnTs } from "../helpers/ts-child";
import { processesWith, SKIP } from "./helpers";

const child = fileURLToPath(new URL("./fixtures/tree-child.ts", import.meta.url));

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await delay(25)) if (check()) return true;
  return check();
}

/**
 * Start the child, wait for its three sleeps, SIGKILL it; the pids still running afterwards (once
 * they are all gone, or at once with `settle: false`: the control, where nothing ends them).
 */
async function killMidCommand(
  mode: "on" | "off",
  afterKill: (pid: number, cwd: string) => void = () => {},
  env: Record<string, string> = {},
  settle = true,
  afterSettle: (cwd: string) => void = () => {},
): Promise<number[]> {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "ubq-sbx-tree-")));
  const seconds = `1000.${Math.floor(Math.random() * 1e6)}`;
  const proc = spawnTs(child, [cwd, seconds, mode], env);
  let stderr = "";
  proc.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  try {
    const started = await until(() => processesWith(`sleep\0${seconds}`).length === 3, 60_000);
    expect(started, `the three sleeps did not start: ${stderr}`).toBe(true);
    proc.kill("SIGKILL");
    await new Promise((resolve) => proc.once("exit", resolve));
    afterKill(proc.pid!, cwd);
    // Any process naming the marker: the sleeps, and the shell and bwrap around them.
    if (settle) await until(() => processesWith(seconds).length === 0, 60_000);
    const left = processesWith(seconds);
    afterSettle(cwd);
    return left;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

describe.skipIf(SKIP)("sandbox: the process tree dies with the program", () => {
  it("SIGKILL of the SDK process leaves no process of the run (sleep &, setsid, nohup)", async () => {
    let leftover: string[] = [];
    let placeholders: string[] = [];
    let after: string[] = [];
    const left = await killMidCommand(
      "on",
      (pid, cwd) => {
        leftover = readdirSync(tmpdir()).filter((n) => n.startsWith(`ubiquity-sandbox-${pid}-`));
        placeholders = readdirSync(cwd);
      },
      {},
      true,
      (cwd) => {
        // The next sandbox start (here: once the dead run's processes have ended, as they do
        // above) removes the dead run's private folder and its empty placeholders.
        removeStalePrivateDirs();
        after = readdirSync(cwd);
      },
    );
    expect(left).toEqual([]);
    expect(leftover).toHaveLength(1);
    expect(placeholders).toContain(".ubiquity");
    expect(existsSync(join(tmpdir(), leftover[0]!))).toBe(false);
    expect(after).toEqual([]);
  });

  it("without the sandbox the reaper ends them all the same (it gets SIGTERM when the program dies)", async () => {
    expect(await killMidCommand("off")).toEqual([]);
  });

  it("without the sandbox and without the reaper the setsid and nohup sleeps would survive (the checks above can fail)", async () => {
    // Nothing is left to end them once the program is dead: whatever runs right after its exit stays.
    const left = await killMidCommand("off", () => {}, { UBIQUITY_NO_REAPER: "1" }, false);
    for (const pid of left) process.kill(pid, "SIGKILL");
    expect(left.length).toBeGreaterThan(0);
  });
});
