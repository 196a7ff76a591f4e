/**
 * Red team of the process reaper (plugins/_kits/process/reaper.ts), sandbox off: constructs the
 * author did not test, each checked with /proc (a `sleep <marker>` still running is a process
 * that outlived its call) or against what the tool result claims.
 *
 * Findings (F = found; status after this branch):
 *
 *  F1 FIXED   SIGPIPE on the report after the SDK program dies. On SIGKILL of the program the
 *             reaper gets SIGTERM and sweeps, but its first `killed …` line goes to fd 3, whose
 *             reader is dead: EPIPE, SIGPIPE, the reaper dies after killing ONE process and every
 *             other setsid'd process is adopted by init. Fix: the reaper ignores SIGPIPE (and
 *             puts it back to default for the command).
 *  F2 FIXED   `prlimit --pid $PPID --nofile=4:4` (same uid may set another process's limits):
 *             the reaper can no longer open /proc/…/children or /proc, sees "no children", spins
 *             its 2000 rounds without killing anything and reports `done` — the result says
 *             contained while the setsid'd process runs on. Fix: the children file is opened once
 *             before the shell starts and re-read; a child whose stat cannot be read is killed
 *             anyway; `done` only when waitpid says the reaper has no child at all (ECHILD).
 *  F3 FIXED   A process whose main thread exits alone (SYS_exit, not exit_group) while another
 *             thread runs shows state Z in /proc/<pid>/stat: the sweep skipped it as a zombie,
 *             gave up after ~10 s (`incomplete`), and the process — adopted by init — went on
 *             (here its thread re-execs `sleep <marker>`). Fix: zombies are signalled too (a
 *             SIGKILL to a zombie leader ends its thread group); only live ones are named.
 *  F4 FIXED   Background jobs in the command's own process group (`sleep 60 &` then exit) were
 *             killed by the reaper's group SIGKILL before its sweep looked, so they were seen as
 *             zombies and never named: the result said nothing was left running (10 sleeps
 *             → "0 background processes"). Fix: after a normal exit the group is SIGSTOPped
 *             (frozen, no more forks) instead of SIGKILLed, so the sweep finds, kills and names
 *             each of its members.
 *  F5 FIXED   Forged report: a command that may ptrace its parent (root, or Yama ptrace_scope 0)
 *             takes the reaper's fd 3 with pidfd_getfd(2), writes `status exit 0\ndone\n` and
 *             SIGKILLs the reaper: the result said contained while the setsid'd process ran on.
 *             Fix: a report counts only when the reaper itself exited (not killed by a signal),
 *             `done` is its last line and comes once, after exactly one `reaper` and one `status`;
 *             otherwise the call is treated as "reaper lost" (nothing beyond the group claimed).
 *             LEFT OPEN (it.fails test "F5 (open part)"): with full ptrace the command can make the reaper write and exit(0) as it
 *             pleases (gdb -p $PPID); no in-process check can tell. Only the sandbox (PID
 *             namespace) or a non-ptraceable reaper closes that.
 *  F6 FIXED   A command hook that keeps its reaper stopped (here: ptrace-attached by a setsid'd
 *             process, which SIGCONT cannot undo) never returned: hooks had no fallback after
 *             SIGTERM, and waited for 'close', which a process that escaped (holding stdout)
 *             never gives. The whole run hung past the hook's timeout. Fix: as the Bash tool
 *             does, after a grace period the reaper's and the shell's groups get SIGKILL, and the
 *             hook ends on 'exit' (+ a short drain) rather than 'close'.
 *  F7 OPEN    `kill -STOP $PPID` and then the SDK program is SIGKILLed: the parent-death SIGTERM
 *             stays pending on a stopped reaper forever, so nothing is swept and the setsid'd
 *             process runs on. Any process of the same uid may SIGSTOP the reaper, and once the
 *             program is dead no one is left to SIGCONT it (a second watcher can be stopped the
 *             same way). Test marked `it.fails`. Only a PID namespace (the sandbox) closes it.
 *  F9 FIXED   A reaper that dies of its own accord (`prlimit --pid $PPID --as=…`: Perl prints
 *             "Out of memory!" and exits 1) was lost honestly, but its exit code was given as the
 *             command's ("[Exit code 1]" for a command that exited 0; "[Killed by SIGKILL]" for
 *             `kill -9 $PPID`). Fix: when the reaper is lost, the status is the one it reported for
 *             the shell, or unknown (null, and the result says "[Its exit status is unknown.]").
 *  F8 OPEN    (by design, documented) A process that an already-running server starts on the
 *             command's behalf (`tmux -L sock new -d …` to a tmux server started before the call;
 *             a scheduler, a container daemon) is that server's child: no reaper sees it, and the
 *             result says contained. Test marked `it.fails`; README now says so.
 *
 * Tried and contained (no finding): setsid / setsid -f / setpgrp; double fork; triple fork with
 * setsid in the middle; clone(CLONE_PARENT) sibling of the shell; a descendant that makes itself
 * PR_SET_CHILD_SUBREAPER and double-forks under it; unshare --user --pid --fork; a setsid'd
 * process that SIGSTOPs itself; children of a ptracing strace -f; 20 MB of output while
 * forking; closing/reusing fd 3 in the shell; writing to /proc/$PPID/fd/3 (a socket: ENXIO);
 * $0 / comm with newlines and "done" (sanitised to `?`); PERL5OPT/PERL5LIB (renamed); kill -STOP
 * of the reaper with a timeout (existing test); SIGTERM/SIGINT to the reaper from the command;
 * comm with spaces and parens (parsed from the last `)`); nohup, disown, a trap-HUP/TERM/INT
 * setsid'd job, a classic POSIX daemon (fork, setsid, fork, close fds, chdir /); a fork-and-exit
 * "hopper" (100 000 hops) outside the group; a v1 freezer cgroup (root) freezing a setsid'd
 * process (the reaper reports it could not be confirmed gone; its pending SIGKILL ends it if
 * thawed) — freezing the reaper itself is F6/F7 again.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { summon, type Options } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import hooksPlugin from "ubiquity/plugins/hooks";
import { reaperAvailable } from "../../plugins/_kits/process/reaper";
import { collect } from "../helpers/collect";
import { sleepers } from "../helpers/processes";
import { spawnTs } from "../helpers/ts-child";

const dir = mkdtempSync(join(tmpdir(), "ubq-reaper-rt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = join(import.meta.dirname, "fixtures", "reaper-redteam-child.ts");

let n = 0;
const markers: string[] = [];
const extraPids: number[] = [];
const mark = () => {
  const m = `1000.${process.pid}${++n}${Math.floor(Math.random() * 1e5)}`;
  markers.push(m);
  return m;
};

/** Pids whose command line contains `marker` (the test's own processes: sleeps, tracers, fixture programs). */
function marked(marker: string): number[] {
  return readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function ppidOf(pid: number): number | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(s.slice(s.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

const kill = (pid: number, signal: NodeJS.Signals = "SIGKILL") => {
  try {
    process.kill(pid, signal);
  } catch {
    // gone
  }
};

// Whatever a failing test left is killed by pid (its sleeps, tracers, stopped reapers), so one
// failure does not leak into the next.
afterEach(() => {
  for (const pid of extraPids.splice(0)) kill(pid);
  for (const m of markers.splice(0)) for (const pid of marked(m)) kill(pid);
});

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await delay(25);
  }
  return check();
}

async function bash(command: string, input: Record<string, unknown> = {}) {
  const model = scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command, ...input } }] }, "done"]);
  const canUseTool = () => ({ behavior: "allow" as const });
  const messages = await collect(
    summon("go", { model, canUseTool, persistSession: false, persistTodos: false, sandbox: false, cwd: dir }),
  );
  const result = messages.find((m) => m.type === "tool_result");
  if (result?.type !== "tool_result") throw new Error("no tool result");
  return { content: result.output.content as string, metadata: result.output.metadata as Record<string, unknown> };
}

/** Wait until the command's marked sleeps all run, then SIGKILL the SDK program running it. */
async function killProgramMidCall(command: string, running: string[]) {
  const child = spawnTs(fixture, [command]);
  const exited = new Promise((resolve) => child.on("exit", resolve));
  extraPids.push(child.pid!);
  expect(await until(() => running.every((m) => sleepers(m).length === 1), 60_000)).toBe(true);
  child.kill("SIGKILL");
  await exited;
}

const linux = process.platform === "linux" && existsSync("/proc/self/stat");
// Whether a command may ptrace its parent here (root, or no Yama restriction).
const yama = existsSync("/proc/sys/kernel/yama/ptrace_scope")
  ? Number(readFileSync("/proc/sys/kernel/yama/ptrace_scope", "utf8"))
  : 0;
const mayPtraceParent = process.getuid?.() === 0 || yama === 0;

describe.skipIf(!linux || !reaperAvailable())("reaper red team (sandbox off)", { timeout: 300_000 }, () => {
  it("F1: SIGKILL of the SDK mid-call ends every setsid'd process, not only the first one the reaper reports", async () => {
    const ms = Array.from({ length: 42 }, mark);
    // Two setsid'd sleeps, and a chain of forty (each the parent of the next), which the reaper's
    // sweep reaches one per round (5 ms apart), after the program's last thread (and fd 3's reader) is gone.
    const chain = `setsid -f perl -e 'for my $m (@ARGV) { exec "sleep", $m if fork } exit 0' ${ms.slice(2).join(" ")}`;
    await killProgramMidCall(`setsid -f sleep ${ms[0]}; setsid -f sleep ${ms[1]}; ${chain}; sleep 300`, ms);
    expect(await until(() => ms.every((m) => sleepers(m).length === 0), 60_000)).toBe(true);
  });

  it("F2: a command that lowers the reaper's open-file limit (prlimit) neither escapes nor gets a false `contained`", async () => {
    const m = mark();
    const { content, metadata } = await bash(
      `setsid -f sleep ${m}; until pgrep -xf "sleep ${m}" >/dev/null; do sleep 0.05; done; prlimit --pid $PPID --nofile=4:4 && echo limited`,
    );
    expect(content).toContain("limited");
    const left = sleepers(m);
    // The claim must be true, and the process must not have survived.
    if (metadata.contained === true) expect(left).toEqual([]);
    expect(left).toEqual([]);
    expect(content).toMatch(/1 background process the command left running was stopped/);
  });

  it("F3: a process whose main thread exited while another thread runs (zombie leader) is ended, not skipped as a zombie", async () => {
    const m = mark();
    // The thread waits until neither the shell nor the reaper is its parent any more (it was
    // adopted past them), then becomes `sleep <marker>`. The shell waits until the leader is Z.
    const script = [
      `perl -Mthreads -e 'my ($m, @ours) = @ARGV; setpgrp(0, 0); threads->create(sub { my %o = map { $_ => 1 } @ours; select(undef, undef, undef, 0.05) while $o{getppid()}; exec "sleep", $m })->detach; select(undef, undef, undef, 0.1); syscall(60, 0)' ${m} $$ $PPID &`,
      "p=$!",
      `for i in $(seq 600); do grep -q ') Z' /proc/$p/stat && break; sleep 0.05; done`,
      `echo "pid=$p $(cut -d' ' -f3 /proc/$p/stat)"`,
    ].join("\n");
    const { content, metadata } = await bash(script);
    const [, pid, state] = content.match(/pid=(\d+) (\S+)/) ?? [];
    extraPids.push(Number(pid));
    expect(state).toBe("Z");
    // Once the call has returned, no thread of that process is left.
    expect(existsSync(`/proc/${pid}/task`) && readdirSync(`/proc/${pid}/task`).length > 0).toBe(false);
    expect(sleepers(m)).toEqual([]);
    expect(metadata.contained).toBe(true);
  });

  it("F4: background jobs in the command's own group are named in the result (10 of 10), not killed unseen", async () => {
    const m = mark();
    const { content, metadata } = await bash(
      `for i in $(seq 10); do sleep ${m} & done; until [ "$(pgrep -xfc "sleep ${m}")" = 10 ]; do sleep 0.05; done; echo started`,
    );
    expect(sleepers(m)).toEqual([]);
    expect(content).toMatch(
      /^started\n\n\[10 background processes the command left running were stopped when it returned \(/,
    );
    expect(metadata.stopped).toHaveLength(10);
    expect(metadata.contained).toBe(true);
  });

  it("F5: a report forged on the reaper's fd 3 (pidfd_getfd) before killing it is not believed", async () => {
    const m = mark();
    const forge = `perl -e 'my $r = shift; my $pfd = syscall(434, $r + 0, 0); my $fd = $pfd < 0 ? -1 : syscall(438, $pfd, 3, 0); if ($fd < 0) { print "getfd failed\\n"; exit } open(my $o, ">&=", $fd) or die; syswrite($o, "status exit 0\\ndone\\n"); close $o; syswrite(STDOUT, "forged\\n"); kill("KILL", $r)' $PPID`;
    const { content, metadata } = await bash(
      `setsid -f sleep ${m}; until pgrep -xf "sleep ${m}" >/dev/null; do sleep 0.05; done; ${forge}`,
    );
    if (content.includes("getfd failed")) return; // the command may not ptrace its parent here (Yama): nothing to forge with
    expect(content).toContain("forged");
    // The sleep did survive (the reaper was killed): the result must not say otherwise.
    expect(sleepers(m)).toHaveLength(1);
    expect(metadata.contained).toBe(false);
    expect(content).toContain("may still be running");
  });

  it("F5: the report parser claims containment only for the reaper's own shape of report", async () => {
    const { parseReaperReport } = await import("../../plugins/_kits/process/reaper");
    const real = "reaper 1\nshell 11\nkilled 12 sleep\nstatus exit 0\ndone\n";
    expect(parseReaperReport(real).contained).toBe(true);
    // Forged lines: a second done, lines after done, a second status or reaper line.
    expect(
      parseReaperReport("reaper 1\nshell 11\nstatus exit 0\ndone\nkilled 12 sleep\nstatus exit 0\ndone\n").contained,
    ).toBe(false);
    expect(parseReaperReport(`${real}killed 13 sleep\n`).contained).toBe(false);
    expect(parseReaperReport("reaper 1\nreaper 1\nshell 11\nstatus exit 0\ndone\n").contained).toBe(false);
    expect(parseReaperReport("reaper 1\nshell 11\nstatus exit 0\nincomplete\ndone\n").contained).toBe(false);
  });

  it("F9: a reaper that dies (its address space limited from outside) does not lend the command its exit code", async () => {
    const [m, more] = [mark(), mark()];
    const { content, metadata } = await bash(
      `setsid -f sleep ${m}; until pgrep -xf "sleep ${m}" >/dev/null; do sleep 0.05; done; prlimit --pid $PPID --as=2000000 --data=1000000 && echo limited; for i in 1 2 3; do setsid -f sleep ${more}; done; exit 0`,
    );
    expect(content).toContain("limited");
    expect(metadata.contained).toBe(false);
    expect(content).toContain("may still be running");
    // Perl's "Out of memory!" exit 1 (or a signal) is the reaper's, not the command's (which exited 0).
    expect(content).not.toMatch(/\[Exit code 1\]|\[Killed by/);
    expect(metadata.exitCode === 0 || metadata.exitCode === null).toBe(true);
  });

  it("F6: a command hook that keeps its reaper stopped (ptrace) still ends at its timeout, and the run goes on", async () => {
    const m = mark();
    const hook = join(dir, "stuck-hook.sh");
    const attached = join(dir, "attached");
    // PTRACE_ATTACH (16): the reaper sits in a ptrace stop that SIGCONT does not end.
    writeFileSync(
      hook,
      `#!/usr/bin/env bash\nsetsid -f perl -e 'syscall(101, 16, $ARGV[0] + 0, 0, 0) == 0 or die "attach: $!"; open(my $f, ">", $ARGV[2]); close $f; sleep 1000' $PPID ${m} ${attached} 2>${attached}.err\nfor i in $(seq 600); do [ -e ${attached} ] && break; sleep 0.05; done\nsleep 300\n`,
    );
    chmodSync(hook, 0o755);
    const model = scriptedModel(["done"]);
    // HOME: this machine's ~/.bashrc (which bash reads when stdin is a socket, as a hook's is) is slow.
    const run = collect(
      summon("go", {
        model,
        presets: [],
        plugins: [hooksPlugin()],
        cwd: dir,
        env: { HOME: dir },
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: hook, timeout: 1 }] }] },
      } as Options),
    );
    const outcome = await Promise.race([
      run.then((messages) => messages.at(-1)),
      delay(60_000).then(() => "hung" as const),
    ]);
    if (!existsSync(attached)) return; // ptrace not permitted here: the reaper was never stopped
    expect(outcome).toMatchObject({ type: "result", subtype: "success" });
  });

  it("F6: a Bash call whose reaper is kept stopped (ptrace) still returns at its timeout, claiming no more than the group", async () => {
    const m = mark();
    const attached = join(dir, `attached-${m}`);
    const tracer = `setsid -f perl -e 'syscall(101, 16, $ARGV[0] + 0, 0, 0) == 0 or exit 1; open(my $f, ">", $ARGV[2]); close $f; sleep 1000' $PPID ${m} ${attached}`;
    const call = bash(`${tracer}; for i in $(seq 600); do [ -e ${attached} ] && break; sleep 0.05; done; sleep 300`, {
      timeout: 1500,
    });
    const outcome = await Promise.race([call, delay(90_000).then(() => "hung" as const)]);
    if (!existsSync(attached)) return; // ptrace not permitted here: the reaper was never stopped
    expect(outcome).not.toBe("hung");
    const { content, metadata } = outcome as Awaited<typeof call>;
    expect(metadata.timedOut).toBe(true);
    expect(metadata.contained).toBe(false);
    expect(content).not.toContain("every process it started");
    expect(content).toContain("may still be running");
  });

  (existsSync("/usr/bin/gdb") && mayPtraceParent ? it.fails : it.skip)(
    "F5 (open part): a command that may ptrace the reaper forges `done` and makes it exit(0): believed",
    async () => {
      const [m, rest] = [mark(), mark()];
      const forge = `perl -e 'my $r = shift; my $pfd = syscall(434, $r + 0, 0); my $fd = $pfd < 0 ? -1 : syscall(438, $pfd, 3, 0); exit 1 if $fd < 0; open(my $o, ">&=", $fd) or die; syswrite($o, "status exit 0\\ndone\\n")' $PPID`;
      const exit0 = `setsid -f gdb -p $PPID -batch -ex 'call (void)_exit(0)' >/dev/null 2>&1`;
      const { metadata } = await bash(
        `setsid -f sleep ${m}; until pgrep -xf "sleep ${m}" >/dev/null; do sleep 0.05; done; ${forge} && ${exit0}; sleep ${rest}`,
      );
      // The claim must be true: either the sleep is gone, or the result does not say it is.
      if (metadata.contained === true) expect(sleepers(m)).toEqual([]);
    },
  );

  // By design: a process that an already-running server starts for the command (tmux, a scheduler,
  // a container daemon) is the server's child, not the command's; no reaper sees it.
  (existsSync("/usr/bin/tmux") ? it.fails : it.skip)(
    "F8 (open, by design): a process an already-running tmux server starts for the command outlives the call that says contained",
    async () => {
      const [m, server] = [mark(), mark()];
      const socket = `ubq-rt-${process.pid}-${n}`;
      execFileSync("tmux", ["-L", socket, "new", "-d", "-s", "x", `sleep ${server}`]);
      try {
        const { metadata } = await bash(
          `tmux -L ${socket} new -d 'sleep ${m}'; until pgrep -xf "sleep ${m}" >/dev/null; do sleep 0.05; done`,
        );
        if (metadata.contained === true) expect(sleepers(m)).toEqual([]);
      } finally {
        execFileSync("tmux", ["-L", socket, "kill-server"]);
      }
    },
  );

  it.fails("F7 (open): a command that stops the reaper, then the SDK program is SIGKILLed: its setsid'd process outlives it", async () => {
    const [m, rest] = [mark(), mark()];
    await killProgramMidCall(
      `setsid -f sleep ${m}; until pgrep -xf "sleep ${m}" >/dev/null; do sleep 0.05; done; kill -STOP $PPID; sleep ${rest}`,
      [m, rest],
    );
    // The stopped reaper (the sleep's parent after setsid -f) is the test's to clean up.
    for (const pid of sleepers(m)) {
      const parent = ppidOf(pid);
      if (parent && parent > 1 && readFileSync(`/proc/${parent}/cmdline`, "utf8").startsWith("/usr/bin/perl\0-e"))
        extraPids.push(parent);
    }
    expect(await until(() => sleepers(m).length === 0, 10_000)).toBe(true);
  });
});
