import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { BashInput, BashTool } from "../../plugins/tool-bash/index";
import { tempDir, toolContext } from "./helpers";

const bash = new BashTool();

/** State letter of a process from the real process table, or undefined when it is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    return undefined;
  }
}

/** Processes of group `pgid` that still run (zombies waiting for init to reap them run nothing). */
function runningInGroup(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X";
      } catch {
        return false;
      }
    })
    .map(Number);
}

const isRunning = (pid: number) => {
  const state = processState(pid);
  return state !== undefined && state !== "Z" && state !== "X";
};

// A shell that starts a background job, a nested subshell with its own child, then blocks;
// every PID goes to pids.txt, the shell's own first (it leads the process group).
const TREE =
  "echo $$ > pids.txt; sleep 60 & echo $! >> pids.txt; (sleep 60; echo never) & echo $! >> pids.txt; echo started; sleep 60";

/** Wait (up to 60 s: a bound for a hang, not a timing) until the command has written its pids. */
async function waitForFile(path: string) {
  for (const end = Date.now() + 60_000; Date.now() < end; await delay(10))
    if (existsSync(path) && readFileSync(path, "utf8").split("\n").length > 3) return;
}

describe("Bash", () => {
  it("runs in the cwd with the process env overlaid by ctx.env", async () => {
    const dir = tempDir();
    const out = await bash.call(
      { command: 'pwd; echo "$UBQ_TEST_VAR"; test -n "$PATH" && echo has-path' },
      toolContext(dir, { env: { UBQ_TEST_VAR: "overlay" } }),
    );
    expect(out.isError).toBe(false);
    expect(out.content).toBe(`${dir}\noverlay\nhas-path`);
  });

  it("combines stdout and stderr in the order they were written", async () => {
    const out = await bash.call(
      { command: "echo out1; echo err1 >&2; echo out2; echo err2 >&2" },
      toolContext(tempDir()),
    );
    expect(out.content).toBe("out1\nerr1\nout2\nerr2");
  });

  it("reports a non-zero exit code as an error", async () => {
    const out = await bash.call({ command: "echo partial; exit 3" }, toolContext(tempDir()));
    expect(out.isError).toBe(true);
    expect(out.content).toBe("partial\n\n[Exit code 3]");
    expect(out.metadata?.exitCode).toBe(3);
  });

  it("says when there is no output", async () => {
    const out = await bash.call({ command: "true" }, toolContext(tempDir()));
    expect(out).toMatchObject({ content: "(no output)", isError: false });
  });

  it("keeps the head and the tail of output over 30,000 characters, with a marker between", async () => {
    const command = "echo HEAD_START; head -c 100000 /dev/zero | tr '\\0' a; echo; echo TAIL_END";
    const out = await bash.call({ command }, toolContext(tempDir()));
    expect(out.content.startsWith("HEAD_START\naaaa")).toBe(true);
    expect(out.content.endsWith("aaaa\nTAIL_END")).toBe(true);
    expect(out.content).toMatch(/\[… 70\d\d\d characters cut from the middle of the output \(1000\d\d in all\)/);
    expect(out.content.length).toBeLessThan(30_400);
    expect(out.metadata?.cutChars).toBe((out.metadata?.outputChars as number) - 30_000);
  });

  it("on timeout kills the whole process group and reaps it before returning", async () => {
    const dir = tempDir();
    const out = await bash.call({ command: TREE, timeout: 300 }, toolContext(dir));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("started");
    expect(out.content).toContain("[Timed out after 300 ms");
    expect(out.metadata?.timedOut).toBe(true);
    const pids = readFileSync(join(dir, "pids.txt"), "utf8").trim().split("\n").map(Number);
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(isRunning(pid), `pid ${pid} still runs`).toBe(false);
    expect(runningInGroup(pids[0]!)).toEqual([]);
  });

  it("on abort kills the whole process group and reaps it before returning", async () => {
    const dir = tempDir();
    const controller = new AbortController();
    const call = bash.call({ command: TREE }, toolContext(dir, { abortSignal: controller.signal }));
    await waitForFile(join(dir, "pids.txt"));
    const pids = readFileSync(join(dir, "pids.txt"), "utf8").trim().split("\n").map(Number);
    expect(pids.every(isRunning)).toBe(true);
    controller.abort();
    const out = await call;
    expect(out.isError).toBe(true);
    expect(out.metadata?.aborted).toBe(true);
    expect(out.content).toContain("[Aborted");
    for (const pid of pids) expect(isRunning(pid), `pid ${pid} still runs`).toBe(false);
    expect(runningInGroup(pids[0]!)).toEqual([]);
  });

  it("does not start when the run is already aborted", async () => {
    const dir = tempDir();
    const out = await bash.call({ command: "touch ran.txt" }, toolContext(dir, { abortSignal: AbortSignal.abort() }));
    expect(out.isError).toBe(true);
    expect(existsSync(join(dir, "ran.txt"))).toBe(false);
  });

  it("returns when the shell exits even if a background job keeps the output pipe open; the job ends with the call", async () => {
    const dir = tempDir();
    const out = await bash.call({ command: "sleep 30 & echo $! > bg.txt; echo done" }, toolContext(dir));
    const pid = Number(readFileSync(join(dir, "bg.txt"), "utf8"));
    expect(out.isError).toBe(false);
    expect(out.content).toMatch(
      /^done\n\n\[1 background process the command left running was stopped when it returned/,
    );
    // Gone (or a zombie waiting for init): nothing runs under that pid any more.
    const state = (() => {
      try {
        return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]![0];
      } catch {
        return "gone";
      }
    })();
    expect(["gone", "Z", "X"]).toContain(state);
  });

  it("limits timeout to 600,000 ms in its schema", () => {
    expect(BashInput.safeParse({ command: "ls", timeout: 600_000 }).success).toBe(true);
    expect(BashInput.safeParse({ command: "ls", timeout: 600_001 }).success).toBe(false);
  });

  it("is neither read-only nor concurrency-safe; its rule content is the command", () => {
    const input = { command: "git status && rm -rf x" };
    expect(bash.isReadOnly(input)).toBe(false);
    expect(bash.isConcurrencySafe(input)).toBe(false);
    expect(bash.permissionRuleContent(input)).toEqual(["git status && rm -rf x"]);
  });
});
