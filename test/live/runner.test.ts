/**
 * The runner on live sessions (issue 23 point 5): `--input-format stream-json` feeds its stdin
 * messages to one live session: one `system/init`, one `session.start`, a result per message.
 * (The terminal mode's Ctrl-C → interrupt() and /model → setModel run under a pseudo-terminal in
 * test/cli/chat-terminal.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempProjects, requireDist } from "../helpers/project";
import { scriptedProject } from "../helpers/scripted-project";

afterAll(removeTempProjects);
beforeAll(requireDist);

describe("ubiquity run --input-format stream-json", () => {
  it("runs the stdin messages as one live session: one system/init, a result per message, the last message a result", async () => {
    const p = scriptedProject();
    const line = (text: string) => JSON.stringify({ type: "user", message: { role: "user", content: text } });
    const out = await p.run(["--output-format", "stream-json", "--input-format", "stream-json"], { input: [line("first question"), line("second question"), line("third question"), ""].join("\n") });
    expect(out.code, out.stderr).toBe(0);
    const types = out.messages.map((m) => (m.type === "system" ? `system/${m.subtype as string}` : (m.type as string)));
    expect(types.filter((t) => t === "system/init")).toHaveLength(1);
    expect(types.filter((t) => t === "result")).toHaveLength(3);
    expect(types.at(-1)).toBe("result");
    expect(new Set(out.messages.map((m) => m.sessionId)).size).toBe(1);
    expect(out.requests.map((r) => r.users)).toEqual([["first question"], ["first question", "second question"], ["first question", "second question", "third question"]]);
  }, 60_000);
});
