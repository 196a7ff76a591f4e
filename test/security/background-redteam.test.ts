/**
 * Red team: background shells (plugins/tool-bash/background.ts, shell-process.ts, the reaper,
 * plugins/background, the task registry, the sandbox's sweeps) against DESIGN.md §3a (fail closed).
 * Every finding has a test below that failed before its fix; "holds" tests pin constructs that
 * did not break anything. /proc (marker `sleep`s) and marker files are the oracles.
 *
 * CONSTRUCTS TRIED (27)
 *  1. Forge the reaper's report: copy its fd 3 with pidfd_getfd, write "shell <foreign pgid>"  -> F1
 *  2. Forge "status exit 0 / done" on it, then kill -9 the reaper                             -> F2
 *  3. Open /proc/$PPID/fd/3 directly (it is a socket: ENXIO)                                  holds
 *  4. A task ends between a live session's last result and close()                            -> F3
 *  5. A sandboxed background shell plants .envrc after its call's sweep; an excludedCommands
 *     command then runs outside the sandbox                                                   -> F4
 *  6. A subagent starts background shells (fresh caps? duplicate ids?)                        -> F5
 *  7. includePartialMessages + a transcript + 5 MB of output                                  -> F6
 *  8. 1 GB and 2.5 GB writers without partial messages: peak RSS ~400-500 MB whatever the size
 *     (a throwaway script measured it; the ring buffer holds)                                 holds
 *  9. bypassPermissions, sandbox off: `bash` in the background, then BashInput a write to $HOME -> F7
 * 10. bypassPermissions, sandbox on, a Bash(touch:*) deny rule: the same via BashInput         -> F8
 * 11. SIGTERM (not SIGKILL) of the host, sandbox on and off                                   holds
 * 12. shellMaxDurationMs against trap '' TERM + setsid -f (also ignoring TERM) + nohup         holds
 * 13. No reaper (macOS, UBIQUITY_NO_REAPER=1): setsid -f escapes; what does the outcome say?   -> F9
 * 14. A BashOutput filter that backtracks exponentially (^(a|a)*$ on 60 a's)                   -> F10
 * 15. Two summon() sessions in one process: KillShell, BashOutput, BashInput, stopTask() of the
 *     other's shell-1                                                                         holds
 * 16. A protected file the file tools create (.npmrc) after a sandboxed background shell was
 *     spawned: the shell rewrites it                                                          -> F11
 * 17. `git init sub` after the spawn: the shell plants sub/.git/hooks/pre-commit               -> F12
 * 18. The same, adding core.fsmonitor to sub/.git/config                                      -> F13
 * 19. pty: true, a program ignoring HUP and TERM in the terminal's own session, KillShell,
 *     sandbox on and off                                                                      holds
 * 20. run_in_background (and pty) in plan mode, dontAsk, under a deny rule (also behind
 *     `env nohup`), and with a refusing handler                                               holds
 * 21. ANSI escapes in a task's description on the terminal: not a new channel (assistant text
 *     is printed raw already)                                                                 not pursued
 * 22. Secrets in task events, descriptions, outputs: the subprocess environment is scrubbed as
 *     for a foreground call, transcripts are redacted (review)                                holds
 * 23. KillShell on an agent task or another run's task: lookups are by the run's registry and
 *     kind "shell" (review, and 15)                                                           holds
 * 24. kill -STOP $PPID (stop the reaper), then SIGKILL the host: its parent-death SIGTERM stays
 *     pending, so the tree lives on — sandbox off only, the same class as the documented
 *     `kill -9 $PPID` (reaperLost)                                                            open (documented class)
 * 25. A PreToolUse hook matching Bash does not see a command typed with BashInput (the hook
 *     must match BashInput too; rules now ask in bypass, F7/F8)                                open (by design)
 * 26. Background network: the same wrap (own network namespace, proxy) as a foreground call  holds (review)
 * 27. stopTask()/backgroundTasks() see only the top run's tasks, not a subagent's (ids are now
 *     unique in the session, F5)                                                              open (minor)
 *
 * FINDINGS (13 found, 13 fixed; residual risks noted)
 *  F1  fixed  A shell could copy the reaper's report socket (pidfd_getfd) and name any process
 *             group as "the shell": KillShell/stop sent it SIGTERM (the fallback: SIGKILL). The
 *             first "reaper"/"shell" line wins, and terminate() signals the named group only
 *             while it is the reaper's child.
 *  F2  fixed  Forged "done" + kill -9 of the reaper made a Bash result claim containment (no
 *             reaperLost note) while a setsid'd sleep escaped. A reaper that died of a signal
 *             is lost, whatever it reported.
 *  F3  fixed  In a live session a task_ended after the last result made the stream end on a
 *             system message. The loop closes such a stream with a result.
 *  F4  fixed  A protected file planted by a running sandboxed background shell was still in
 *             the workspace when an excludedCommands command ran outside. The sandbox sweeps
 *             before an unsandboxed spawn. Residual: a shell that re-plants in a loop races it.
 *  F5  fixed  A subagent's registry had fresh caps (maxShells/maxAgents/maxTotal) and reused
 *             ids. Registries of one session share the top one's caps and id counters.
 *  F6  fixed  system/task_output (a partial message) went to the transcript chunk by chunk:
 *             the whole output, unbounded. It is not persisted, like stream_event.
 *  F7  fixed  bypassPermissions without the sandbox asks for a Bash write to $HOME, but the same
 *             write typed into a background bash with BashInput ran. BashInput to a shell
 *             outside the sandbox asks in bypassPermissions.
 *  F8  fixed  With the sandbox on, a Bash deny rule was walked around the same way. With a deny
 *             or ask rule on a shell tool, bypassPermissions asks for BashInput.
 *  F9  fixed  Without the sandbox or the reaper, a shell whose setsid'd child lived on ended as
 *             "stopped when the session ended". The outcome says such a process may still run.
 *             (The survival itself is the documented limit of a process group.)
 *  F10 fixed  BashOutput's filter ran in the host's thread: a backtracking expression froze the
 *             event loop (every session, every task time limit). It runs in a worker thread,
 *             terminated after 2 s (the output is then shown unfiltered, with a note).
 *  F11 fixed  A protected file the file tools wrote after a sandboxed background shell started
 *             is writable in that shell's namespace; a rewrite went unseen. The guard keeps
 *             what the file tools wrote (size, mtime, inode); a change is swept like a new entry.
 *             Write and Edit report the sha256 of what they wrote, so a change landing between
 *             the write and the approval is caught too (the first fix missed it 1 run in ~5).
 *  F12 fixed  A git folder made after the spawn: the shell planted a hook in its hooks folder,
 *             which sweeps never looked into. What appears or changes inside a protected folder
 *             bound read-only is swept. Residual: a hook planted during the very sweep that
 *             first judges the new git folder (between its check and the folder's baseline).
 *  F13 fixed  The same git folder's config got core.fsmonitor. A bound git config that changed
 *             is judged again and swept when the change made it run code. Trade-off: a change
 *             made outside the sandbox that makes a harmless config run code (core.hooksPath by
 *             an excluded command) is swept too (moved to the quarantine folder, reported).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { summon, type Options, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";
import { sleepers } from "../helpers/processes";
import { spawnTs } from "../helpers/ts-child";
import { SKIP as sandboxMissing, sandboxPlace } from "../sandbox/helpers";

const dir = mkdtempSync(join(tmpdir(), "ubq-bgrt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const markers: string[] = [];
const mark = () => {
  const m = `1000.${process.pid}${++n}${Math.floor(Math.random() * 1e5)}`;
  markers.push(m);
  return m;
};
const children: ChildProcess[] = [];
afterEach(() => {
  for (const m of markers.splice(0)) for (const pid of sleepers(m)) process.kill(pid, "SIGKILL");
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await delay(25);
  }
  return check();
}

const allow = () => ({ behavior: "allow" as const });
const base: Options = { canUseTool: allow, persistSession: false, persistTodos: false, sandbox: false, cwd: dir };
const results = (messages: Message[]) =>
  messages
    .filter((m) => m.type === "tool_result")
    .map((m) => (m.type === "tool_result" ? `${m.toolName}: ${m.output.content}` : ""));
/**
 * Shell text that writes `text` to the reaper's report channel: fd 3 of $PPID (a socket, so it
 * cannot be opened through /proc; pidfd_getfd copies it, as any process of the same user may).
 */
const toReport = (text: string) =>
  `perl -e '$p=syscall(434,$ARGV[0]+0,0); $p>=0 or die "pidfd_open: $!"; $f=syscall(438,$p,3,0); $f>=0 or die "pidfd_getfd: $!"; open(my $o,">&=",$f) or die; syswrite($o,$ARGV[1]) or die' $PPID ` +
  `'${text}'`;
/** A foreground call that returns once `sleep <m>` runs (and a little after, so the host has read what came before). */
const waitFor = (m: string) => ({
  toolName: "Bash",
  input: { command: `for i in $(seq 600); do pgrep -xf "sleep ${m}" >/dev/null && break; sleep 0.05; done; sleep 0.5` },
});

const linux = process.platform === "linux" && readdirSync("/proc").length > 0;
const reaper = linux && process.env.UBIQUITY_NO_REAPER !== "1";

describe.skipIf(!reaper)("background red team: the reaper's report pipe (sandbox off)", () => {
  it("F1: a shell that writes a fake 'shell <pgid>' line to /proc/$PPID/fd/3 cannot make KillShell signal a foreign process group", async () => {
    const victimMark = mark();
    // A process of the same user that the session did not start, leading its own group.
    const victim = spawn("sleep", [victimMark], { detached: true, stdio: "ignore" });
    children.push(victim);
    expect(await until(() => sleepers(victimMark).length === 1, 60_000)).toBe(true);
    const m = mark();
    const model = scriptedModel([
      {
        toolCalls: [
          {
            toolName: "Bash",
            input: { command: `${toReport(`shell ${victim.pid}\n`)}; sleep ${m}`, run_in_background: true },
          },
        ],
      },
      { toolCalls: [waitFor(m)] },
      { toolCalls: [{ toolName: "KillShell", input: { shell_id: "shell-1" } }] },
      "done",
    ]);
    const said = results(await collect(summon("go", { ...base, model, backgroundTasks: { stopGraceMs: 500 } })));
    expect(said.at(-1)).toMatch(/stopped by KillShell/);
    expect(sleepers(m)).toEqual([]);
    // The victim is untouched.
    await delay(200);
    expect(sleepers(victimMark)).toHaveLength(1);
  });

  it("F2: a command that forges 'done' on the report pipe and then kills the reaper does not get a 'contained' claim", async () => {
    const m = mark();
    const model = scriptedModel([
      {
        toolCalls: [
          {
            toolName: "Bash",
            input: {
              command: `${toReport("status exit 0\ndone\n")}; setsid -f sleep ${m}; until pgrep -xf "sleep ${m}" >/dev/null; do sleep 0.02; done; kill -9 $PPID`,
            },
          },
        ],
      },
      "done",
    ]);
    const messages = await collect(summon("go", { ...base, model }));
    const bash = messages.find((m) => m.type === "tool_result");
    expect(bash?.type).toBe("tool_result");
    if (bash?.type !== "tool_result") return;
    // The setsid'd sleep escaped (the reaper was killed): the result must say it may still run, never that all is contained.
    expect(await until(() => sleepers(m).length === 1, 60_000)).toBe(true);
    expect(bash.output.content).toContain("The command ended the process that tracks what it starts");
    expect(bash.output.metadata?.contained).not.toBe(true);
  });
});

describe.skipIf(!linux)("background red team: the stream's contract", () => {
  it("F3: in a live session, a task that ends between the last result and close() does not leave the stream without a final result", async () => {
    const m = mark();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: `sleep ${m}`, run_in_background: true } }] },
      "started",
    ]);
    let release!: () => void;
    const closed = new Promise<void>((r) => (release = r));
    async function* input() {
      yield { type: "user" as const, text: "start it" };
      await closed;
    }
    const query = summon(input(), { ...base, model });
    const messages: Message[] = [];
    for (;;) {
      const { value } = await query.next();
      if (!value) break;
      messages.push(value);
      if (value.type === "result") break;
    }
    // Between stretches the task ends (stopTask, or by itself): the stream carries its task_ended.
    expect(await query.stopTask("shell-1")).toBe(true);
    release(); // the input ends: the session ends
    for await (const message of query) messages.push(message);
    expect(sleepers(m)).toEqual([]);
    expect(messages.some((x) => x.type === "system" && x.subtype === "task_ended")).toBe(true);
    expect(messages.at(-1)?.type, messages.map((x) => `${x.type}/${"subtype" in x ? x.subtype : ""}`).join(" ")).toBe(
      "result",
    );
  });
});

describe.skipIf(!linux || sandboxMissing !== undefined)("background red team: the sandbox's sweeps", () => {
  const place = sandboxPlace();
  it("F12: a git folder made while a sandboxed background shell runs: that shell cannot plant a hook in it", async () => {
    const ws = place.ws();
    const m = mark();
    // Spawned before sub/.git exists, so sub/.git/hooks is not bound read-only in its namespace.
    const plant = `until [ -d sub/.git/hooks ] && [ -e made ]; do sleep 0.05; done; printf '#!/bin/sh\\ntouch /tmp/hooked\\n' > sub/.git/hooks/pre-commit; chmod +x sub/.git/hooks/pre-commit; touch planted; sleep ${m}`;
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: plant, run_in_background: true } }] },
      { toolCalls: [{ toolName: "Bash", input: { command: "mkdir -p sub && git init -q sub && echo made" } }] },
      // The sweep after that call has judged sub/.git (harmless, kept); the shell plants after it.
      {
        toolCalls: [
          {
            toolName: "Bash",
            input: {
              command: "touch made; for i in $(seq 100); do [ -e planted ] && break; sleep 0.05; done; echo waited",
            },
          },
        ],
      },
      "done",
    ]);
    const messages = await collect(
      summon("go", { model, cwd: ws, canUseTool: allow, persistSession: false, persistTodos: false, sandbox: {} }),
    );
    const said = results(messages);
    expect(said[1]).toMatch(/made/);
    expect(existsSync(join(ws, "planted")), said.join("\n---\n")).toBe(true);
    expect(existsSync(join(ws, "sub", ".git", "hooks", "pre-commit")), said.join("\n---\n")).toBe(false);
    expect(sleepers(m)).toEqual([]);
  });

  it("F13: a git folder made while a sandboxed background shell runs: that shell cannot make its config run code (core.fsmonitor)", async () => {
    const ws = place.ws();
    const m = mark();
    const plant = `until [ -f sub/.git/config ] && [ -e made ]; do sleep 0.05; done; printf '[core]\\n\\tfsmonitor = touch /tmp/fsmonitor-ran\\n' >> sub/.git/config; touch planted; sleep ${m}`;
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: plant, run_in_background: true } }] },
      { toolCalls: [{ toolName: "Bash", input: { command: "mkdir -p sub && git init -q sub && echo made" } }] },
      // The sweep after that call has judged sub/.git (harmless, kept); the shell plants after it.
      {
        toolCalls: [
          {
            toolName: "Bash",
            input: {
              command: "touch made; for i in $(seq 100); do [ -e planted ] && break; sleep 0.05; done; echo waited",
            },
          },
        ],
      },
      "done",
    ]);
    const messages = await collect(
      summon("go", { model, cwd: ws, canUseTool: allow, persistSession: false, persistTodos: false, sandbox: {} }),
    );
    const said = results(messages);
    expect(existsSync(join(ws, "planted")), said.join("\n---\n")).toBe(true);
    const config = join(ws, "sub", ".git", "config");
    expect(existsSync(config) ? readFileSync(config, "utf8") : "(gone)", said.join("\n---\n")).not.toContain(
      "fsmonitor",
    );
    expect(sleepers(m)).toEqual([]);
  });

  it("F11: a protected file the file tools create while a sandboxed background shell runs cannot be rewritten by that shell", async () => {
    const ws = place.ws();
    const m = mark();
    // Spawned before .npmrc exists, so .npmrc is not bound read-only in its namespace.
    const tamper = `until [ -e .npmrc ]; do sleep 0.05; done; echo 'script-shell=/tmp/evil.sh' >> .npmrc; touch tampered; sleep ${m}`;
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: tamper, run_in_background: true } }] },
      // The user approves this write (the permission engine judged it).
      {
        toolCalls: [
          {
            toolName: "Write",
            input: { file_path: join(ws, ".npmrc"), content: "registry=https://registry.npmjs.org/\n" },
          },
        ],
      },
      {
        toolCalls: [
          {
            toolName: "Bash",
            input: { command: "for i in $(seq 100); do [ -e tampered ] && break; sleep 0.05; done; echo waited" },
          },
        ],
      },
      "done",
    ]);
    const messages = await collect(
      summon("go", { model, cwd: ws, canUseTool: allow, persistSession: false, persistTodos: false, sandbox: {} }),
    );
    const said = results(messages);
    expect(said[1]).toMatch(/^Write: /);
    const npmrc = existsSync(join(ws, ".npmrc")) ? readFileSync(join(ws, ".npmrc"), "utf8") : "(gone)";
    expect(npmrc, said.join("\n---\n")).not.toContain("script-shell");
    // The next sweep took it out and the next Bash result said so.
    expect(said[2]).toMatch(/\.npmrc is protected \(.*it changed after the file tools wrote it\)/);
    expect(sleepers(m)).toEqual([]);
  });

  it("F4: a protected file a sandboxed background shell writes after its call returned is swept before an unsandboxed (excludedCommands) command runs", async () => {
    const ws = place.ws();
    const m = mark();
    // Inside the sandbox, after its own call returned and was swept: plant .envrc, say so, stay running.
    const planter = `until [ -e trigger ]; do sleep 0.05; done; echo 'echo pwned > /tmp/x' > .envrc; touch planted; sleep ${m}`;
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: planter, run_in_background: true } }] },
      { toolCalls: [{ toolName: "Bash", input: { command: "ls -a" } }] },
      "done",
    ]);
    const canUseTool = async (_tool: string, input: Record<string, unknown>) => {
      if (input.command === "ls -a") {
        // The unsandboxed call is about to run: let the background shell plant its file first.
        writeFileSync(join(ws, "trigger"), "");
        await until(() => existsSync(join(ws, "planted")), 60_000);
      }
      return { behavior: "allow" as const };
    };
    const messages = await collect(
      summon("go", {
        model,
        cwd: ws,
        canUseTool,
        persistSession: false,
        persistTodos: false,
        sandbox: { excludedCommands: ["ls"] },
      }),
    );
    const said = results(messages);
    expect(said[1]).toMatch(/^Bash: /);
    expect(said[1]).toContain("planted"); // the background shell did plant it before ls ran
    // ls ran outside the sandbox: it must not have seen the sandbox's .envrc in the workspace.
    expect((said[1] ?? "").split("\n")).not.toContain(".envrc");
    expect(sleepers(m)).toEqual([]);
  });
});

describe.skipIf(!linux)("background red team: caps", () => {
  it("F5: a subagent's background shells count against the session's maxShells (a subagent gets no fresh cap)", async () => {
    const [m1, m2] = [mark(), mark()];
    const model = scriptedModel(({ request }) => {
      const prompt = JSON.stringify((request as unknown as { prompt: unknown }).prompt);
      const tools = (request as unknown as { prompt: { role: string }[] }).prompt.filter(
        (p) => p.role === "tool",
      ).length;
      if (prompt.includes("You are WORKER.")) {
        return tools === 0
          ? { toolCalls: [{ toolName: "Bash", input: { command: `sleep ${m2}`, run_in_background: true } }] }
          : "worker done";
      }
      if (tools === 0)
        return { toolCalls: [{ toolName: "Bash", input: { command: `sleep ${m1}`, run_in_background: true } }] };
      if (tools === 1)
        return {
          toolCalls: [
            {
              toolName: "Agent",
              input: { subagent_type: "worker", description: "start a shell", prompt: "start one" },
            },
          ],
        };
      return "done";
    });
    const messages = await collect(
      summon("go", {
        ...base,
        model,
        backgroundTasks: { maxShells: 1 },
        agents: { worker: { description: "Starts shells", prompt: "You are WORKER." } },
      }),
    );
    const child = messages.find((x) => x.type === "tool_result" && x.toolName === "Bash" && x.agentId !== undefined);
    expect(child?.type === "tool_result" ? child.output.content : "no subagent Bash result").toMatch(
      /already running, the most a session may have at once \(maxShells: 1\)/,
    );
    expect(await until(() => sleepers(m1).length === 0 && sleepers(m2).length === 0, 60_000)).toBe(true);
  });
});

describe.skipIf(!linux)("background red team: output volume", () => {
  it("F6: with includePartialMessages and a transcript, a shell's output is not copied into the transcript chunk by chunk (it is bounded by shellOutputChars nowhere else)", async () => {
    const sessionDir = mkdtempSync(join(tmpdir(), "ubq-bgrt-sessions-"));
    try {
      // 5 MB of output; the shell keeps 1,000 characters.
      const model = scriptedModel(({ request }) => {
        const prompt = (request as unknown as { prompt: { role: string; content: unknown }[] }).prompt;
        const last = JSON.stringify(prompt.filter((p) => p.role === "tool").at(-1)?.content ?? "");
        if (!prompt.some((p) => p.role === "tool"))
          return {
            toolCalls: [
              {
                toolName: "Bash",
                input: { command: "head -c 5000000 /dev/zero | tr '\\0' a; echo; echo END", run_in_background: true },
              },
            ],
          };
        if (last.includes("ended: exit code 0")) return "done";
        return { toolCalls: [{ toolName: "Bash", input: { command: "sleep 0.2" } }] };
      });
      let streamed = 0;
      for await (const m of summon("go", {
        ...base,
        model,
        persistSession: true,
        sessionDir,
        includePartialMessages: true,
        maxTurns: 500,
        backgroundTasks: { shellOutputChars: 1000 },
      })) {
        if (m.type === "system" && m.subtype === "task_output") streamed += m.text.length;
      }
      // The stream carried it all (the caller asked for it) ...
      expect(streamed).toBeGreaterThan(5_000_000);
      // ... but the transcript on disk did not take 5 MB of it.
      const files: string[] = [];
      const walk = (d: string) => {
        for (const e of readdirSync(d, { withFileTypes: true }))
          e.isDirectory() ? walk(join(d, e.name)) : files.push(join(d, e.name));
      };
      walk(sessionDir);
      const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
      expect(bytes).toBeLessThan(1_000_000);
    } finally {
      rmSync(sessionDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!linux)("background red team: permissions", () => {
  it("F7: bypassPermissions without the sandbox: what a foreground command must ask for (a write to the home folder) is not run by feeding it to a background shell with BashInput", async () => {
    const target = join(homedir(), `.ubq-bgrt-${process.pid}-${Math.floor(Math.random() * 1e6)}`);
    const asked: string[] = [];
    try {
      const model = scriptedModel([
        // The control: in the foreground, this write asks (and the handler refuses).
        { toolCalls: [{ toolName: "Bash", input: { command: `echo pwned > ${target}` } }] },
        // The same write, typed into a background shell.
        { toolCalls: [{ toolName: "Bash", input: { command: "bash", run_in_background: true } }] },
        { toolCalls: [{ toolName: "BashInput", input: { bash_id: "shell-1", input: `echo pwned > ${target}\n` } }] },
        {
          toolCalls: [
            {
              toolName: "Bash",
              input: { command: `for i in $(seq 60); do [ -e ${target} ] && break; sleep 0.05; done` },
            },
          ],
        },
        "done",
      ]);
      const canUseTool = (tool: string, input: Record<string, unknown>) => {
        asked.push(`${tool} ${JSON.stringify(input)}`);
        return { behavior: "deny" as const, message: "no" };
      };
      const said = results(
        await collect(summon("go", { ...base, model, canUseTool, permissionMode: "bypassPermissions" })),
      );
      expect(asked[0]).toContain("echo pwned"); // the control asked
      expect(existsSync(target), said.join("\n---\n")).toBe(false);
      expect(said[2]).toBe("BashInput: no"); // it asked, and the handler refused
    } finally {
      rmSync(target, { force: true });
    }
  });
});

describe.skipIf(!linux || sandboxMissing !== undefined)("background red team: permissions, sandbox on", () => {
  // The text BashInput sends is judged as BashInput(<text>), never as a Bash command, so a Bash
  // deny rule does not see a command typed into a background `bash`.
  it("F8: a Bash deny rule holds for a command typed into a background bash (bypassPermissions)", async () => {
    const target = join(dir, `f8-${process.pid}-${Math.floor(Math.random() * 1e6)}`);
    try {
      const model = scriptedModel([
        // The control: the deny rule refuses it in the foreground.
        { toolCalls: [{ toolName: "Bash", input: { command: `touch ${target}` } }] },
        { toolCalls: [{ toolName: "Bash", input: { command: "bash", run_in_background: true } }] },
        { toolCalls: [{ toolName: "BashInput", input: { bash_id: "shell-1", input: `touch ${target}\n` } }] },
        {
          toolCalls: [
            {
              toolName: "Bash",
              input: { command: `for i in $(seq 60); do [ -e ${target} ] && break; sleep 0.05; done` },
            },
          ],
        },
        "done",
      ]);
      // Sandbox on; nothing is approved by hand.
      const deny = () => ({ behavior: "deny" as const, message: "no" });
      const said = results(
        await collect(
          summon("go", {
            ...base,
            model,
            canUseTool: deny,
            sandbox: {},
            permissionMode: "bypassPermissions",
            disallowedTools: ["Bash(touch:*)"],
          }),
        ),
      );
      expect(said[0]).toMatch(/Permission denied: the rule Bash\(touch:\*\)/);
      expect(existsSync(target), said.join("\n---\n")).toBe(false);
      expect(said[2]).toBe("BashInput: no"); // bypassPermissions asked, and the handler refused
    } finally {
      rmSync(target, { force: true });
    }
  });
});

describe.skipIf(!reaper)("background red team: constructs that hold", () => {
  it("shellMaxDurationMs ends a shell that ignores SIGTERM, with what it started outside its group (setsid -f) and a nohup'd child", async () => {
    const [m1, m2, m3] = [mark(), mark(), mark()];
    const command = `trap '' TERM; setsid -f sh -c 'trap "" TERM; exec sleep ${m1}'; nohup sleep ${m2} >/dev/null 2>&1 & sleep ${m3}`;
    const model = scriptedModel(({ request }) => {
      const prompt = (request as unknown as { prompt: { role: string; content: unknown }[] }).prompt;
      const tools = prompt.filter((p) => p.role === "tool");
      if (tools.length === 0) return { toolCalls: [{ toolName: "Bash", input: { command, run_in_background: true } }] };
      if (JSON.stringify(tools.at(-1)?.content).includes("shellMaxDurationMs")) return "done";
      if (tools.length > 200) return "gave up";
      return { toolCalls: [{ toolName: "Bash", input: { command: "sleep 0.1" } }] };
    });
    const messages = await collect(
      summon("go", { ...base, model, maxTurns: 300, backgroundTasks: { shellMaxDurationMs: 1000, stopGraceMs: 200 } }),
    );
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "done" });
    expect(sleepers(m1)).toEqual([]);
    expect(sleepers(m2)).toEqual([]);
    expect(sleepers(m3)).toEqual([]);
  });

  for (const sandbox of [false, true] as const) {
    it.skipIf(sandbox && sandboxMissing !== undefined)(
      `KillShell ends a pty shell whose program ignores SIGHUP and SIGTERM in the terminal's own session (sandbox ${sandbox ? "on" : "off"})`,
      async () => {
        const m = mark();
        const model = scriptedModel([
          {
            toolCalls: [
              {
                toolName: "Bash",
                input: { command: `trap '' HUP TERM; sleep ${m}`, run_in_background: true, pty: true },
              },
            ],
          },
          { toolCalls: [{ toolName: "Bash", input: { command: "true" } }] },
          { toolCalls: [{ toolName: "KillShell", input: { shell_id: "shell-1" } }] },
          "done",
        ]);
        let seen = false;
        // Before the middle call runs, the sleep runs (the sandbox's PID namespace hides it from a command: /proc here is the oracle).
        const canUseTool = async (_tool: string, input: Record<string, unknown>) => {
          if (input.command === "true") seen = await until(() => sleepers(m).length === 1, 60_000);
          return { behavior: "allow" as const };
        };
        const said = results(
          await collect(
            summon("go", {
              ...base,
              canUseTool,
              model,
              sandbox: sandbox ? { autoAllowBash: false } : false,
              backgroundTasks: { stopGraceMs: 200 },
            }),
          ),
        );
        expect(said.at(-1)).toMatch(/stopped by KillShell/);
        expect(seen).toBe(true);
        expect(sleepers(m)).toEqual([]);
      },
    );
  }

  for (const sandbox of [false, true] as const) {
    it.skipIf(sandbox && sandboxMissing !== undefined)(
      `SIGTERM (not SIGKILL) of the host leaves no background process (sandbox ${sandbox ? "on" : "off"})`,
      async () => {
        const [m1, m2] = [mark(), mark()];
        const child = spawnTs(join(import.meta.dirname, "..", "background", "fixtures", "host.ts"), [
          m1,
          m2,
          String(sandbox),
        ]);
        children.push(child);
        const exited = new Promise((resolve) => child.on("exit", resolve));
        expect(await until(() => sleepers(m1).length === 1 && sleepers(m2).length === 1, 60_000)).toBe(true);
        child.kill("SIGTERM");
        await exited;
        expect(await until(() => sleepers(m1).length === 0 && sleepers(m2).length === 0, 60_000)).toBe(true);
      },
    );
  }
});

describe.skipIf(!linux)(
  "background red team: claims without the reaper (sandbox off, no Perl: macOS, UBIQUITY_NO_REAPER=1)",
  () => {
    afterEach(() => {
      vi.unstubAllEnvs();
    });
    it("F9: a shell whose setsid'd process outlives the session does not end with an outcome that hides it", async () => {
      vi.stubEnv("UBIQUITY_NO_REAPER", "1");
      const [m1, m2] = [mark(), mark()];
      const model = scriptedModel([
        {
          toolCalls: [
            { toolName: "Bash", input: { command: `setsid -f sleep ${m1}; sleep ${m2}`, run_in_background: true } },
          ],
        },
        { toolCalls: [waitFor(m2)] },
        "done",
      ]);
      const query = summon("go", { ...base, model });
      await collect(query);
      // Only the process group ends without the reaper: the setsid'd sleep is still there (documented) ...
      expect(await until(() => sleepers(m2).length === 0, 60_000)).toBe(true);
      expect(sleepers(m1)).toHaveLength(1);
      // ... and the task's outcome must not read as if everything ended.
      const [task] = await query.backgroundTasks();
      expect(task?.outcome).toMatch(/may still be running/);
    });
  },
);

describe.skipIf(!linux)("background red team: BashOutput's filter", () => {
  it("F10: a filter that backtracks exponentially on the output does not freeze the host (its event loop, every session in it, the tasks' time limits)", async () => {
    const child = spawnTs(join(import.meta.dirname, "fixtures", "bg-redos-host.ts"), []);
    children.push(child);
    let out = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    // Generous: the run takes about a second; a frozen host never finishes.
    const finished = await Promise.race([exited.then(() => true), delay(60_000).then(() => false)]);
    expect(finished, out).toBe(true);
    expect(out).toContain("finished");
    expect(out).toMatch(/filter/);
  });
});

describe.skipIf(!linux)("background red team: sessions in one process (holds)", () => {
  it("one session's KillShell, BashOutput, BashInput and stopTask() cannot reach another session's shell of the same id", async () => {
    const m = mark();
    const modelA = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: `sleep ${m}`, run_in_background: true } }] },
      "started",
    ]);
    let release!: () => void;
    const closed = new Promise<void>((r) => (release = r));
    async function* input() {
      yield { type: "user" as const, text: "start it" };
      await closed;
    }
    const a = summon(input(), { ...base, model: modelA });
    for (;;) {
      const { value } = await a.next();
      if (!value || value.type === "result") break;
    }
    expect(await until(() => sleepers(m).length === 1, 60_000)).toBe(true);
    const modelB = scriptedModel([
      {
        toolCalls: [
          { toolName: "KillShell", input: { shell_id: "shell-1" } },
          { toolName: "BashOutput", input: { bash_id: "shell-1" } },
          { toolName: "BashInput", input: { bash_id: "shell-1", input: "x\n" } },
        ],
      },
      "done",
    ]);
    const b = summon("go", { ...base, model: modelB });
    const said = results(await collect(b));
    expect(said).toHaveLength(3);
    for (const r of said)
      expect(r).toMatch(/There is no background shell "shell-1"\. None was started since this session was opened\./);
    expect(await b.stopTask("shell-1")).toBe(false);
    expect(sleepers(m)).toHaveLength(1);
    expect((await a.backgroundTasks()).map((t) => t.state)).toEqual(["running"]);
    release();
    for await (const _ of a) void _;
    expect(await until(() => sleepers(m).length === 0, 60_000)).toBe(true);
  });
});

describe.skipIf(!linux)("background red team: the permission pipeline (holds)", () => {
  const cases: { name: string; options: Partial<Options>; refused: RegExp }[] = [
    { name: "plan mode", options: { permissionMode: "plan" }, refused: /Plan mode: Bash can change things/ },
    { name: "dontAsk without an allow rule", options: { permissionMode: "dontAsk" }, refused: /dontAsk never prompts/ },
    {
      name: "a Bash(sleep:*) deny rule, bypassPermissions",
      options: { permissionMode: "bypassPermissions", disallowedTools: ["Bash(sleep:*)"] },
      refused: /the rule Bash\(sleep:\*\)/,
    },
    {
      name: "a deny rule on a command behind a wrapper (env, nohup)",
      options: { permissionMode: "bypassPermissions", disallowedTools: ["Bash(sleep:*)"] },
      refused: /the rule Bash\(sleep:\*\)/,
    },
    {
      name: "the default mode with a handler that refuses",
      options: { canUseTool: () => ({ behavior: "deny" as const, message: "refused by hand" }) },
      refused: /refused by hand/,
    },
  ];
  for (const [i, c] of cases.entries()) {
    it(`run_in_background is refused like a foreground call: ${c.name}`, async () => {
      const m = mark();
      const command = i === 3 ? `env nohup sleep ${m}` : `sleep ${m}`;
      const model = scriptedModel([
        {
          toolCalls: [
            { toolName: "Bash", input: { command, run_in_background: true } },
            { toolName: "Bash", input: { command, run_in_background: true, pty: true } },
          ],
        },
        "done",
      ]);
      const said = results(await collect(summon("go", { ...base, canUseTool: undefined, ...c.options, model })));
      expect(said).toHaveLength(2);
      for (const r of said) expect(r).toMatch(c.refused);
      expect(sleepers(m)).toEqual([]);
    });
  }
});
