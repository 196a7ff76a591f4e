/**
 * Background shells (issue 41, point 1 and 4): `Bash run_in_background`, BashOutput, BashInput,
 * KillShell, their caps and limits, the notes the model gets, the SDK's `backgroundTasks()` and
 * `stopTask()`, and the rule that no process of a background shell outlives its session — after
 * the run, after `interrupt()` and `close()`, and after SIGKILL of the host, sandbox on and off.
 * Real processes and a real HTTP server; /proc is the oracle.
 */
import { createServer } from "node:net";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { summon, type Options, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect } from "../helpers/collect";
import { sleepers } from "../helpers/processes";
import { spawnTs } from "../helpers/ts-child";
import { SKIP as sandboxMissing } from "../sandbox/helpers";

const dir = mkdtempSync(join(tmpdir(), "ubq-bg-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const markers: string[] = [];
const mark = () => {
  const m = `1000.${process.pid}${++n}${Math.floor(Math.random() * 1e5)}`;
  markers.push(m);
  return m;
};
afterEach(() => {
  for (const m of markers.splice(0)) for (const pid of sleepers(m)) process.kill(pid, "SIGKILL");
});

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await delay(25);
  }
  return check();
}

type Request = { prompt: { role: string; content: unknown }[] };
/** The text of the last tool result the model was sent. */
function lastToolText(request: Request): string {
  const tool = request.prompt.filter((m) => m.role === "tool").at(-1);
  if (!tool) return "";
  return JSON.stringify(tool.content);
}

const allow = () => ({ behavior: "allow" as const });
const base: Options = { canUseTool: allow, persistSession: false, persistTodos: false, sandbox: false, cwd: dir };
const results = (messages: Message[]) =>
  messages
    .filter((m) => m.type === "tool_result")
    .map((m) => (m.type === "tool_result" ? `${m.toolName}: ${m.output.content}` : ""));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

const linux = process.platform === "linux" && readdirSync("/proc").length > 0;

describe.skipIf(!linux)("background shells", () => {
  for (const sandbox of [false, true] as const) {
    it.skipIf(sandbox && sandboxMissing !== undefined)(
      `a dev server started in the background, polled with BashOutput, answered with curl and stopped with KillShell (sandbox ${sandbox ? "on" : "off"})`,
      async () => {
        const port = await freePort();
        // The words the model looks for are built at run time, so the command's own text never holds them.
        const server = `node -e 'require("http").createServer((q, s) => s.end("po" + "ng")).listen(${port}, "127.0.0.1", () => console.log("listen" + "ing on ${port}"))'`;
        let _polls = 0;
        // Start it; until it says it listens, wait a little and read its output; then curl it; then stop it.
        const model = scriptedModel(({ request }) => {
          const prompt = (request as unknown as Request).prompt;
          const last = lastToolText(request as unknown as Request);
          if (!prompt.some((m) => m.role === "tool"))
            return { toolCalls: [{ toolName: "Bash", input: { command: server, run_in_background: true } }] };
          if (last.includes("stopped by KillShell")) return "done";
          if (last.includes("pong")) return { toolCalls: [{ toolName: "KillShell", input: { shell_id: "shell-1" } }] };
          if (last.includes("listening on"))
            return { toolCalls: [{ toolName: "Bash", input: { command: `curl -s http://127.0.0.1:${port}/` } }] };
          if (last.includes("(no output)") || last.includes("Started in the background")) {
            return { toolCalls: [{ toolName: "BashOutput", input: { bash_id: "shell-1" } }] };
          }
          _polls++;
          return { toolCalls: [{ toolName: "Bash", input: { command: "sleep 0.3" } }] };
        });
        // In the sandbox each command has its own loopback unless the network is shared ("all").
        const messages = await collect(
          summon("start the server", { ...base, sandbox: sandbox ? { network: "all" } : false, model, maxTurns: 400 }),
        );
        const said = results(messages);
        expect(
          said.some((r) => r.startsWith("Bash: pong")),
          said.join("\n---\n"),
        ).toBe(true);
        expect(said.at(-1)).toMatch(/^KillShell: \[shell-1 \(node -e .*\) stopped by KillShell\]$/);
        // The port is free again: the server is gone.
        const probe = createServer();
        await new Promise<void>((resolve, reject) => probe.once("error", reject).listen(port, "127.0.0.1", resolve));
        await new Promise((r) => probe.close(r));
        expect(messages.filter((m) => m.type === "system").map((m) => (m.type === "system" ? m.subtype : ""))).toEqual([
          "init",
          "task_started",
          "task_ended",
        ]);
        expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success" });
      },
    );
  }

  it("the 11th shell is refused, naming the cap and the way out", async () => {
    const m = mark();
    const calls = Array.from({ length: 11 }, (_, i) => ({
      toolName: "Bash",
      input: { command: `sleep ${m}`, run_in_background: true },
      id: `c${i}`,
    }));
    const model = scriptedModel([{ toolCalls: calls }, "done"]);
    const messages = await collect(summon("go", { ...base, model }));
    const said = results(messages);
    expect(said.filter((r) => r.startsWith("Bash: Started in the background"))).toHaveLength(10);
    expect(said.at(-1)).toBe(
      "Bash: 10 background shells are already running, the most a session may have at once (maxShells: 10): stop one with KillShell first.",
    );
    // All ten ended with the session.
    expect(await until(() => sleepers(m).length === 0, 60_000)).toBe(true);
  });

  it("output past the buffer is dropped from the front and counted; a filter keeps matching lines", async () => {
    const script = `for i in $(seq 1 400); do echo "line $i"; done; echo DONE`;
    // The script ends by itself; a foreground call waits for that before the read.
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: script, run_in_background: true } }] },
      { toolCalls: [{ toolName: "Bash", input: { command: "sleep 1" } }] },
      { toolCalls: [{ toolName: "BashOutput", input: { bash_id: "shell-1", filter: "^line (39[0-9]|400)$|DONE" } }] },
      "done",
    ]);
    const messages = await collect(summon("go", { ...base, model, backgroundTasks: { shellOutputChars: 500 } }));
    const read = results(messages).find((r) => r.startsWith("BashOutput:"))!;
    // 400 lines of "line N\n" plus DONE: far more than 500 characters; the newest are kept.
    expect(read).toMatch(/\[\d+ characters written since the last read were dropped: only the newest 500 are kept\]/);
    expect(read).toContain("line 399\nline 400\nDONE");
    expect(read).not.toContain("line 1\n");
    expect(read).toMatch(/\[\d+ lines did not match the filter\]/);
  });

  it("a program that ignores SIGTERM is killed after the grace period; KillShell waits for it", async () => {
    const m = mark();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: `trap '' TERM; sleep ${m}`, run_in_background: true } }] },
      // It is running (and ignoring SIGTERM) before it is stopped.
      {
        toolCalls: [
          {
            toolName: "Bash",
            input: { command: `for i in $(seq 400); do pgrep -xf "sleep ${m}" && break; sleep 0.05; done` },
          },
        ],
      },
      { toolCalls: [{ toolName: "KillShell", input: { shell_id: "shell-1" } }] },
      "done",
    ]);
    const messages = await collect(summon("go", { ...base, model, backgroundTasks: { stopGraceMs: 300 } }));
    const said = results(messages);
    expect(said[1]).toMatch(/^Bash: \d+$/);
    expect(said.at(-1)).toMatch(/^KillShell: \[shell-1 \(trap '' TERM; sleep .*\) stopped by KillShell\]$/);
    expect(sleepers(m)).toEqual([]);
  });

  it("a shell that ends is reported with the next tool result; BashOutput then says how it ended", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "echo hi; exit 3", run_in_background: true } }] },
      { toolCalls: [{ toolName: "Bash", input: { command: "sleep 1" } }] },
      { toolCalls: [{ toolName: "BashOutput", input: { bash_id: "shell-1" } }] },
      "done",
    ]);
    const messages = await collect(summon("go", { ...base, model }));
    const said = results(messages);
    expect(said[1]).toBe(
      'Bash: (no output)\n\n[Background task ended:\n- shell-1 (echo hi; exit 3) failed: exit code 3 (read the rest of its output with BashOutput bash_id "shell-1")]',
    );
    expect(said[2]).toBe("BashOutput: [shell-1 (echo hi; exit 3) failed: exit code 3]\nhi");
  });

  it("BashInput writes to stdin; a shell on a pseudo-terminal sees a terminal", async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Bash", input: { command: "read line; echo got:$line", run_in_background: true } },
          { toolName: "Bash", input: { command: "tty", run_in_background: true, pty: true } },
        ],
      },
      { toolCalls: [{ toolName: "BashInput", input: { bash_id: "shell-1", input: "hello\n" } }] },
      { toolCalls: [{ toolName: "Bash", input: { command: "sleep 1" } }] },
      {
        toolCalls: [
          { toolName: "BashOutput", input: { bash_id: "shell-1" } },
          { toolName: "BashOutput", input: { bash_id: "shell-2" } },
        ],
      },
      "done",
    ]);
    const said = results(await collect(summon("go", { ...base, model })));
    expect(said).toContain("BashInput: Wrote 6 characters to shell-1.");
    expect(said.find((r) => r.startsWith("BashOutput: [shell-1"))).toMatch(/\]\ngot:hello$/);
    expect(said.find((r) => r.startsWith("BashOutput: [shell-2"))).toMatch(/\]\n\/dev\/pts\/\d+\r?$/);
  });

  it("with backgroundOnTimeout a foreground call past its timeout moves to the background and runs on", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "echo first; sleep 2; echo second", timeout: 500 } }] },
      { toolCalls: [{ toolName: "Bash", input: { command: "sleep 3" } }] },
      { toolCalls: [{ toolName: "BashOutput", input: { bash_id: "shell-1" } }] },
      "done",
    ]);
    const said = results(
      await collect(summon("go", { ...base, model, backgroundTasks: { backgroundOnTimeout: true } })),
    );
    expect(said[0]).toBe(
      'Bash: first\n\n[Still running after 500 ms: moved to the background as shell-1 (backgroundOnTimeout). Read its further output with BashOutput (bash_id "shell-1"), stop it with KillShell.]',
    );
    expect(said[2]).toBe("BashOutput: [shell-1 (echo first; sleep 2; echo second) ended: exit code 0]\nsecond");
  });

  it("every background shell ends with the session; nothing follows the result", async () => {
    const m = mark();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: `sleep ${m}`, run_in_background: true } }] },
      // It runs before the session ends.
      {
        toolCalls: [
          {
            toolName: "Bash",
            input: { command: `for i in $(seq 400); do pgrep -xf "sleep ${m}" && break; sleep 0.05; done` },
          },
        ],
      },
      "done",
    ]);
    const query = summon("go", { ...base, model });
    const messages = await collect(query);
    expect(results(messages)[1]).toMatch(/^Bash: \d+$/);
    expect(messages.at(-1)?.type).toBe("result");
    expect(sleepers(m)).toEqual([]);
    expect((await query.backgroundTasks()).map((t) => [t.id, t.state, t.outcome])).toEqual([
      ["shell-1", "killed", "stopped when the session ended"],
    ]);
  });

  it("interrupt() leaves background shells running; close() ends them; the SDK lists and stops tasks", async () => {
    const [m1, m2] = [mark(), mark()];
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Bash", input: { command: `sleep ${m1}`, run_in_background: true } },
          { toolName: "Bash", input: { command: `sleep ${m2}`, run_in_background: true } },
        ],
      },
      "started",
    ]);
    async function* input() {
      yield { type: "user" as const, text: "start two" };
      await new Promise(() => {}); // open until close()
    }
    const query = summon(input(), { ...base, model });
    // Read up to the stretch's result without ending the session (a `break` would close it).
    for (;;) {
      const { value } = await query.next();
      if (!value || value.type === "result") break;
    }
    // Started: the shells' sleeps come up a moment after the calls return.
    expect(await until(() => sleepers(m1).length === 1 && sleepers(m2).length === 1, 60_000)).toBe(true);
    expect((await query.backgroundTasks()).map((t) => [t.id, t.state])).toEqual([
      ["shell-1", "running"],
      ["shell-2", "running"],
    ]);
    await query.interrupt();
    expect(sleepers(m1)).toHaveLength(1);
    expect(await query.stopTask("shell-1")).toBe(true);
    expect(await query.stopTask("shell-1")).toBe(false);
    expect(sleepers(m1)).toEqual([]);
    expect((await query.backgroundTasks()).map((t) => [t.id, t.state, t.outcome])).toEqual([
      // What follows the reason depends on timing ("; 1 process it left running stopped" when the
      // sleep had not yet died of the group's SIGTERM as the shell's end was read).
      ["shell-1", "killed", expect.stringMatching(/^stopped by stopTask\(\)($|; )/)],
      ["shell-2", "running", undefined],
    ]);
    query.close();
    await query.return(undefined);
    expect(await until(() => sleepers(m2).length === 0, 60_000)).toBe(true);
  });

  it("with includePartialMessages the stream carries the shell's output as it comes", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "echo one; echo two", run_in_background: true } }] },
      { toolCalls: [{ toolName: "Bash", input: { command: "sleep 1" } }] },
      "done",
    ]);
    const messages = await collect(summon("go", { ...base, model, includePartialMessages: true }));
    const text = messages.map((m) => (m.type === "system" && m.subtype === "task_output" ? m.text : "")).join("");
    expect(text).toBe("one\ntwo\n");
  });

  it("without ubiquity:background, run_in_background is refused, naming the plugin", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Bash", input: { command: "sleep 1", run_in_background: true } }] },
      "done",
    ]);
    const messages = await collect(summon("go", { ...base, model, disable: ["ubiquity:background"] }));
    expect(results(messages)[0]).toBe(
      "Bash: background tasks need the ubiquity:background plugin, which this run does not have: add it to plugins (the default preset has it), or run the work in the foreground",
    );
  });

  for (const signal of ["SIGKILL", "SIGTERM"] as const) {
    for (const sandbox of [false, true] as const) {
      it.skipIf(sandbox && sandboxMissing !== undefined)(
        `${signal} of the host leaves no background process (sandbox ${sandbox ? "on" : "off"})`,
        async () => {
          const [m1, m2] = [mark(), mark()];
          const child = spawnTs(join(import.meta.dirname, "fixtures", "host.ts"), [m1, m2, String(sandbox)]);
          const exited = new Promise<NodeJS.Signals | null>((resolve) =>
            child.on("exit", (_code, how) => resolve(how)),
          );
          expect(await until(() => sleepers(m1).length === 1 && sleepers(m2).length === 1, 60_000)).toBe(true);
          child.kill(signal);
          // The host still ends by the signal it got (nobody else handles it).
          expect(await exited).toBe(signal);
          expect(await until(() => sleepers(m1).length === 0 && sleepers(m2).length === 0, 60_000)).toBe(true);
        },
      );
    }
  }
});
