/**
 * What happens to every kind of child process Ubiquity starts when the program ends: a stdio MCP
 * server (and the child it started), a language server, async command hooks, a background Bash
 * shell and a foreground Bash call. The program ends normally, by SIGTERM, by SIGINT, by SIGKILL
 * (no handler runs), or is a summon() host that calls process.exit() with its session open.
 * Every child writes its pid to a file; once all have, the program's whole process tree is
 * recorded, the program ends, and the test polls until no recorded process runs any more. Also:
 * a SIGINT that another handler takes (the chat's Ctrl-C) kills nothing the session still uses; a
 * stubborn MCP server is ended after its grace; without the reaper, setpriv's parent-death signal
 * still ends the servers at SIGKILL; in the sandbox, bubblewrap's --die-with-parent does.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { binPath, tempProject } from "../helpers/project";
import { descendants, stillRuns, survivors, type RecordedProcess } from "../helpers/processes";
import { spawnTs } from "../helpers/ts-child";
import { SKIP as sandboxMissing } from "../sandbox/helpers";

const FIXTURES = join(import.meta.dirname, "fixtures");
const linux = process.platform === "linux" && existsSync("/proc/self/stat");

// Plain JavaScript, written as ubiquity.config.mjs: a .ts config made each fresh project's first run
// load jiti's Babel (~0.2 CPU-s; see test/helpers/scripted-project.ts).
const CONFIG = `
import { scriptedModel } from "ubiquity/testing";
import { childrenRun } from ${JSON.stringify(join(FIXTURES, "children-run.mjs"))};

export default {
  marketPricing: false,
  ...childrenRun({ dir: process.cwd(), mode: process.env.UBQ_MODE, scriptedModel, sandbox: process.env.UBQ_SANDBOX === "1" }),
};
`;

const recordedAll: RecordedProcess[] = [];
// Whatever a failing test left is killed, so one failure does not leak into the next.
afterEach(() => {
  for (const p of recordedAll.splice(0))
    if (stillRuns(p))
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
});

const pidIn = (dir: string, name: string) =>
  existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8").split("\n").filter(Boolean).map(Number) : [];

/**
 * Wait until every child has written its pid and the language server runs, then record the
 * program's process tree; fails naming what never started if `program` ends first.
 */
async function recordWhenAllRun(dir: string, program: ChildProcess, output: () => string, sandboxed = false) {
  let exited = false;
  program.once("exit", () => (exited = true));
  // A bound on a hang only (a child that never starts), never a measure.
  for (const end = Date.now() + 120_000; ; ) {
    const tree = descendants(program.pid!);
    const pids = new Set(tree.map((p) => p.pid));
    const expected = {
      mcp: pidIn(dir, "mcp.pid"),
      mcpChild: pidIn(dir, "mcp-child.pid"),
      background: pidIn(dir, "bg.pid"),
      foreground: pidIn(dir, "fg.pid"),
      hooks: pidIn(dir, "hook.pids"),
    };
    const lsp = tree.filter((p) => p.command.includes("probe-server.mjs"));
    // Inside the sandbox the pids written are those of its PID namespace: there, that each wrote is enough.
    const ready =
      Object.values(expected).every((list) => list.length > 0 && (sandboxed || list.every((pid) => pids.has(pid)))) &&
      expected.hooks.length === 2 &&
      lsp.length > 0;
    if (ready) {
      recordedAll.push(...tree);
      return tree;
    }
    if (exited || Date.now() > end)
      throw new Error(
        `${exited ? "the program ended" : "timed out"} before every child ran: ${JSON.stringify({ ...expected, lsp: lsp.length })}\n${describeTree(tree)}\n${output()}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The bin running the all-children run in a fresh project. */
function startBin(mode: string, sandbox = false, env: Record<string, string> = {}) {
  const dir = tempProject({ "ubiquity.config.mjs": CONFIG, "a.probe": "x\n" }, { linkUbiquity: true });
  const child = spawn(process.execPath, [binPath, "run", "go"], {
    cwd: dir,
    env: {
      ...process.env,
      UBIQUITY_TRUST: "1",
      NO_COLOR: "1",
      DEBUG: "",
      UBQ_MODE: mode,
      UBQ_SANDBOX: sandbox ? "1" : "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", (d: Buffer) => (out += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { dir, child, exit, output: () => out };
}

const describeTree = (list: RecordedProcess[]) => list.map((p) => `${p.pid} ${p.command}`).join("\n");

describe.skipIf(!linux)("every child process ends with the program", () => {
  it("ubiquity run ends normally: nothing it started runs on; the MCP server saw its stdin close", async () => {
    const bin = startBin("normal");
    const tree = await recordWhenAllRun(bin.dir, bin.child, bin.output);
    writeFileSync(join(bin.dir, "release"), "");
    expect(await bin.exit).toEqual({ code: 0, signal: null });
    expect(describeTree(await survivors(tree))).toBe("");
    // The graceful close: the server was told (its stdin closed) before anything killed it.
    expect(existsSync(join(bin.dir, "mcp.stdin-closed"))).toBe(true);
  });

  for (const signal of ["SIGTERM", "SIGINT", "SIGKILL"] as const) {
    it(`ubiquity run gets ${signal}: nothing it started runs on`, async () => {
      const bin = startBin("signal");
      const tree = await recordWhenAllRun(bin.dir, bin.child, bin.output);
      bin.child.kill(signal);
      await bin.exit;
      expect(describeTree(await survivors(tree))).toBe("");
    });
  }

  it("a summon() host exits with its session open: nothing it started runs on", async () => {
    const dir = tempProject({ "a.probe": "x\n" });
    const host = spawnTs(join(FIXTURES, "children-host.ts"), [dir, "signal", "false"]);
    let out = "";
    host.stdout.on("data", (d: Buffer) => (out += d));
    host.stderr.on("data", (d: Buffer) => (out += d));
    const exit = new Promise((resolve) => host.once("exit", resolve));
    const tree = await recordWhenAllRun(dir, host, () => out);
    host.stdin.write("exit\n");
    expect(await exit).toBe(0);
    expect(describeTree(await survivors(tree))).toBe("");
  });

  it("a SIGINT another handler takes (the chat's Ctrl-C) leaves the session's children running and in use", async () => {
    const dir = tempProject({ "a.probe": "x\n" });
    const host = spawnTs(join(FIXTURES, "children-host.ts"), [dir, "interrupt-normal", "false"]);
    let out = "";
    host.stdout.on("data", (d: Buffer) => (out += d));
    host.stderr.on("data", (d: Buffer) => (out += d));
    const exit = new Promise((resolve) => host.once("exit", resolve));
    const tree = await recordWhenAllRun(dir, host, () => out);
    host.kill("SIGINT");
    // The session went on: the MCP server answers again, the same process, and the next call runs.
    const server = pidIn(dir, "mcp.pid")[0];
    for (const end = Date.now() + 120_000; pidIn(dir, "fg2.pid").length === 0; ) {
      if (Date.now() > end) throw new Error(`the session did not go on after SIGINT:\n${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(out.split(`pong from ${server}`).length - 1).toBe(2);
    // Nothing of the session was killed: the background shell, the servers and the MCP server's child run.
    // (The first foreground call ended, as asked; the loops' `sleep`s come and go.)
    const kept = tree.filter((p) => !p.command.includes("fg.pid") && !p.command.startsWith("sleep "));
    expect(kept.length).toBeGreaterThan(0);
    expect(describeTree(kept.filter((p) => !stillRuns(p)))).toBe("");
    writeFileSync(join(dir, "release2"), "");
    for (const end = Date.now() + 120_000; !out.includes("ended\n"); ) {
      if (Date.now() > end) throw new Error(`the run did not end:\n${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    host.stdin.write("exit\n");
    expect(await exit).toBe(0);
    expect(describeTree(await survivors(tree))).toBe("");
  });

  it("a stubborn MCP server (ignores the end of stdin and SIGTERM) ends with a normal exit too", async () => {
    const bin = startBin("stubborn-normal");
    const tree = await recordWhenAllRun(bin.dir, bin.child, bin.output);
    writeFileSync(join(bin.dir, "release"), "");
    expect((await bin.exit).code).toBe(0);
    expect(describeTree(await survivors(tree))).toBe("");
  });

  it.skipIf(!existsSync("/usr/bin/setpriv"))(
    "without the reaper (UBIQUITY_NO_REAPER=1), SIGKILL still ends the MCP and language servers themselves",
    async () => {
      const bin = startBin("stubborn-signal", false, { UBIQUITY_NO_REAPER: "1" });
      const tree = await recordWhenAllRun(bin.dir, bin.child, bin.output);
      const server = pidIn(bin.dir, "mcp.pid")[0];
      // A server that ignores the end of its stdin and SIGTERM. Only the programs themselves:
      // what they started is out of reach without the reaper.
      const servers = tree.filter((p) => p.pid === server || p.command.includes("probe-server.mjs"));
      expect(servers).toHaveLength(2);
      recordedAll.push(...tree);
      bin.child.kill("SIGKILL");
      await bin.exit;
      expect(describeTree(await survivors(servers))).toBe("");
    },
  );

  it.skipIf(sandboxMissing !== undefined)("sandboxed, SIGKILL of ubiquity run leaves nothing running", async () => {
    const bin = startBin("signal", true);
    const tree = await recordWhenAllRun(bin.dir, bin.child, bin.output, true);
    bin.child.kill("SIGKILL");
    await bin.exit;
    expect(describeTree(await survivors(tree))).toBe("");
  });
});
