/**
 * Process hygiene without the sandbox: a process that leaves the command's process group
 * (`setsid`, `setsid -f`, `setpgrp`, a double-forking daemon) still ends with the Bash call or
 * command hook that started it — the reaper (plugins/_kits/process/reaper.ts) adopts orphans as
 * a child subreaper — and the tool result names what it killed. Without the reaper the result
 * claims no more than the process group. Checked with /proc: each `sleep <marker>` is looked up.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { summon, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import hooksPlugin from "ubiquity/plugins/hooks";
import { liveProcessGroups } from "../../plugins/_kits/process/index";
import { parseReaperReport, reaperAvailable } from "../../plugins/_kits/process/reaper";
import { collect } from "../helpers/collect";
import { sleepers } from "../helpers/processes";
import { spawnTs } from "../helpers/ts-child";

const dir = mkdtempSync(join(tmpdir(), "ubq-hygiene-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const marker = () => `1000.${process.pid}${++n}${Math.floor(Math.random() * 1e5)}`;
const markers: string[] = [];
const mark = () => {
  const m = marker();
  markers.push(m);
  return m;
};
// Whatever a failing test left is killed, so one failure does not leak into the next.
afterEach(() => {
  for (const m of markers.splice(0)) for (const pid of sleepers(m)) process.kill(pid, "SIGKILL");
  vi.unstubAllEnvs();
});

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await delay(25);
  }
  return check();
}

async function bash(command: string, options: Partial<Options> = {}, input: Record<string, unknown> = {}) {
  const model = scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command, ...input } }] }, "done"]);
  // The commands are the test's own: every call is approved (the subject here is what runs, not whether).
  const canUseTool = () => ({ behavior: "allow" as const });
  const messages = await collect(
    summon("go", {
      model,
      canUseTool,
      persistSession: false,
      persistTodos: false,
      sandbox: false,
      cwd: dir,
      ...options,
    }),
  );
  const result = messages.find((m) => m.type === "tool_result");
  if (result?.type !== "tool_result") throw new Error("no tool result");
  return { content: result.output.content as string, metadata: result.output.metadata as Record<string, unknown> };
}

const linux = readdirSync("/proc").length > 0 && process.platform === "linux";

describe.skipIf(!linux)("process hygiene with the sandbox off", () => {
  it("the reaper runs on this machine (Linux with Perl)", () => {
    expect(reaperAvailable()).toBe(true);
  });

  it("setsid, setsid -f, setpgrp and a double-forking daemon end with the call, and the result names each", async () => {
    const [a, b, c, d] = [mark(), mark(), mark(), mark()];
    const command = [
      `setsid sleep ${a} &`,
      `setsid -f sleep ${b}`,
      `perl -e 'setpgrp(0, 0); exec "sleep", "${c}"' &`,
      `( setsid sh -c 'sleep ${d} & exit 0' & )`,
      // Every one of them is running before the shell exits (no race with the sweep).
      `for i in $(seq 400); do ok=1; for m in ${a} ${b} ${c} ${d}; do pgrep -xf "sleep $m" >/dev/null || ok=0; done; [ $ok = 1 ] && break; sleep 0.05; done`,
      "echo started",
    ].join("\n");
    const { content, metadata } = await bash(command);
    for (const m of [a, b, c, d]) expect(sleepers(m)).toEqual([]);
    expect(content).toMatch(
      /^started\n\n\[4 background processes the command left running were stopped when it returned \(/,
    );
    expect(content.match(/sleep \(pid \d+\)/g)).toHaveLength(4);
    expect(metadata.contained).toBe(true);
    expect(metadata.stopped).toHaveLength(4);
    expect(liveProcessGroups()).toBe(0);
  });

  it("a timed-out call ends the process that left its group, and says every process was killed", async () => {
    const m = mark();
    const { content, metadata } = await bash(`setsid -f sleep ${m}; sleep 300`, {}, { timeout: 1500 });
    expect(content).toContain("[Timed out after 1500 ms: the command and every process it started were killed.");
    expect(sleepers(m)).toEqual([]);
    expect(metadata.timedOut).toBe(true);
  });

  it("the command's exit code and output are its own, not the reaper's", async () => {
    const { content, metadata } = await bash("echo out; echo err >&2; exit 7");
    expect(content).toBe("out\nerr\n\n[Exit code 7]");
    expect(metadata.exitCode).toBe(7);
    const killed = await bash("kill -TERM $$");
    expect(killed.metadata.signal).toBe("SIGTERM");
    expect(killed.content).toContain("[Killed by SIGTERM]");
  });

  it("Perl's own variables (PERL5OPT, PERL5LIB) cannot change the reaper, and reach the command unchanged", async () => {
    const { content } = await bash('echo "opt=$PERL5OPT lib=$PERL5LIB"', {
      env: { PERL5OPT: "-MNo::Such::Module", PERL5LIB: "/nowhere" },
    });
    expect(content).toBe("opt=-MNo::Such::Module lib=/nowhere");
  });

  it("SIGKILL of the SDK program itself ends the processes of its call, setsid ones included", async () => {
    const [m1, m2] = [mark(), mark()];
    const child = spawnTs(join(import.meta.dirname, "fixtures", "setsid-child.ts"), [m1, m2]);
    const exited = new Promise((resolve) => child.on("exit", resolve));
    expect(await until(() => sleepers(m1).length === 1 && sleepers(m2).length === 1, 60_000)).toBe(true);
    child.kill("SIGKILL");
    await exited;
    expect(await until(() => sleepers(m1).length === 0 && sleepers(m2).length === 0, 60_000)).toBe(true);
  });

  it("a command hook's setsid child ends with the hook", async () => {
    const m = mark();
    const hook = join(dir, "hook.sh");
    const ran = join(dir, "hook-ran");
    // setsid -f returns before its child has exec'd sleep: the hook waits until it runs (no race under load).
    writeFileSync(
      hook,
      `#!/usr/bin/env bash\nsetsid -f sleep ${m}\nfor i in $(seq 600); do pgrep -xf "sleep ${m}" > ${ran} && break; sleep 0.05; done\nexit 0\n`,
    );
    chmodSync(hook, 0o755);
    const model = scriptedModel(["done"]);
    const messages = await collect(
      summon("go", {
        model,
        presets: [],
        plugins: [hooksPlugin()],
        cwd: dir,
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: hook }] }] },
      } as Options),
    );
    expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success" });
    // The hook ran (no sandbox plugin in the list: nothing wraps it) and its sleep was running when it exited; it is gone once the hook is over.
    expect(readFileSync(ran, "utf8")).toMatch(/^\d+\n$/);
    expect(sleepers(m)).toEqual([]);
  });

  it("a command that stops the reaper still ends at its time limit, with everything it started", async () => {
    const m = mark();
    const { content } = await bash(`setsid -f sleep ${m}; kill -STOP $PPID; sleep 300`, {}, { timeout: 1500 });
    expect(content).toContain("[Timed out after 1500 ms: the command and every process it started were killed.");
    expect(sleepers(m)).toEqual([]);
  });

  it("a command that kills the reaper loses its group, and the result says what may be left", async () => {
    const [m1, m2] = [mark(), mark()];
    const { content, metadata } = await bash(`setsid -f sleep ${m1}; sleep ${m2} & kill -KILL $PPID; wait`);
    expect(content).toContain(
      "[The command ended the process that tracks what it starts: a process it started outside its process group (setsid) may still be running.]",
    );
    expect(metadata.contained).toBe(false);
    expect(sleepers(m2)).toEqual([]);
  });

  it("a hook (stdin a socket) and a background shell never run the user's ~/.bashrc", async () => {
    const home = mkdtempSync(join(tmpdir(), "ubq-hygiene-home-"));
    const sourced = join(home, "bashrc-ran");
    writeFileSync(join(home, ".bashrc"), `echo sourced >> ${sourced}\n`);
    vi.stubEnv("HOME", home);
    try {
      const model = scriptedModel([
        { toolCalls: [{ toolName: "Bash", input: { command: "read x; echo got:$x", run_in_background: true } }] },
        { toolCalls: [{ toolName: "BashInput", input: { bash_id: "shell-1", input: "y\n" } }] },
        "done",
      ]);
      const messages = await collect(
        summon("go", {
          model,
          cwd: dir,
          canUseTool: () => ({ behavior: "allow" as const }),
          sandbox: false,
          persistSession: false,
          persistTodos: false,
          hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "cat >/dev/null; echo hook-ran" }] }] },
        }),
      );
      expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success" });
      expect(existsSync(sourced)).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("without the reaper, the result claims the process group and no more", async () => {
    const m = mark();
    vi.stubEnv("UBIQUITY_NO_REAPER", "1");
    const { content, metadata } = await bash(`setsid -f sleep ${m}; sleep 300`, {}, { timeout: 1500 });
    expect(content).toContain(
      "the command's process group was killed (a process that left the group, as setsid does, is not tracked without the sandbox or Perl)",
    );
    expect(metadata.contained).toBe(false);
    // The honest claim is the true one: it did survive.
    expect(sleepers(m).length).toBe(1);
  });

  it("the report parser keeps what the reaper said and claims containment only after `done` from a subreaper", () => {
    expect(
      parseReaperReport("reaper 1\nshell 11\nkilled 12 sleep\nkilled 13 my (odd) name\nstatus exit 3\ndone\n"),
    ).toEqual({
      contained: true,
      finished: true,
      shell: 11,
      killed: [
        { pid: 12, command: "sleep" },
        { pid: 13, command: "my (odd) name" },
      ],
      exitCode: 3,
      signal: null,
    });
    expect(parseReaperReport("reaper 0\nstatus signal 9\ndone\n")).toMatchObject({
      contained: false,
      signal: "SIGKILL",
    });
    expect(parseReaperReport("reaper 1\nkilled 12 sleep\nincomplete\n")).toMatchObject({
      contained: false,
      finished: true,
    });
    expect(parseReaperReport("reaper 1\nshell 11\n")).toMatchObject({ contained: false, finished: false, shell: 11 });
    expect(parseReaperReport("").contained).toBe(false);
  });
});
