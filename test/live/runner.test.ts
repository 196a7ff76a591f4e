/**
 * The runner on live sessions (issue 23 point 5): `--input-format stream-json` feeds its stdin
 * messages to one live session: one `system/init`, one `session.start`, a result per message.
 * (The terminal mode's Ctrl-C → interrupt() and /model → setModel run under a pseudo-terminal in
 * test/cli/chat-terminal.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binPath, removeTempProjects, requireDist } from "../helpers/project";
import { scriptedProject } from "../helpers/scripted-project";

afterAll(removeTempProjects);
beforeAll(requireDist);

describe("ubiquity run --input-format stream-json", () => {
  it("runs the stdin messages as one live session: one system/init, a result per message, the last message a result", async () => {
    const p = scriptedProject();
    const line = (text: string) => JSON.stringify({ type: "user", message: { role: "user", content: text } });
    const out = await p.run(["--output-format", "stream-json", "--input-format", "stream-json"], {
      input: [line("first question"), line("second question"), line("third question"), ""].join("\n"),
    });
    expect(out.code, out.stderr).toBe(0);
    const types = out.messages.map((m) => (m.type === "system" ? `system/${m.subtype as string}` : (m.type as string)));
    expect(types.filter((t) => t === "system/init")).toHaveLength(1);
    expect(types.filter((t) => t === "result")).toHaveLength(3);
    expect(types.at(-1)).toBe("result");
    expect(new Set(out.messages.map((m) => m.sessionId)).size).toBe(1);
    expect(out.requests.map((r) => r.users)).toEqual([
      ["first question"],
      ["first question", "second question"],
      ["first question", "second question", "third question"],
    ]);
  });

  it('a line marked "interrupt": true stops the work in progress, and is answered next', async () => {
    const p = scriptedProject();
    const log = join(p.dir, "model.log");
    writeFileSync(log, "");
    const child = spawn(
      process.execPath,
      [binPath, "run", "--output-format", "stream-json", "--input-format", "stream-json"],
      {
        cwd: p.dir,
        env: { ...process.env, DEBUG: "", NO_COLOR: "1", UBIQUITY_TRUST: "1", UBQ_LOG: log, UBQ_SESSIONS: p.sessions },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString()));
    const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
    child.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: "be slow" } })}\n`);
    // Once the slow request is at the model (it would take 20 s), interrupt it.
    while (!readFileSync(log, "utf8").includes("be slow")) await new Promise((r) => setTimeout(r, 25));
    child.stdin.end(
      `${JSON.stringify({ type: "user", message: { role: "user", content: "never mind" }, interrupt: true })}\n`,
    );
    const code = await exited;
    // Cut, not waited for: the slow answer never came, the interrupt's result did.
    const results = stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; result?: string })
      .filter((m) => m.type === "result");
    expect(results.map((r) => r.result)).toEqual(["Interrupted by the user.", "answer to never mind"]);
    expect(code).toBe(1); // the interrupted stretch was an error result
  });
});
