/** Parity: transcripts, resume, continue, fork and SessionStore (seed README: "Sessions"). */
import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { SessionStore } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { tempHome } from "../helpers/temp-home";
import { run } from "./helpers";

const temp = tempDirs();
const home = tempHome();

function transcripts(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(".jsonl")) out.push(join(d, e.name));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

describe("sessions", () => {
  it("persist by default under ~/.ubiquity/sessions as JSONL chained by parentUuid; persistSession: false writes nothing", async () => {
    const cwd = temp();
    const r = resultOf(await run("first", { model: scriptedModel(["one"]), cwd, persistSession: true }));
    const files = transcripts(join(home(), ".ubiquity", "sessions"));
    expect(files).toHaveLength(1);
    const records = readFileSync(files[0]!, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(records.every((rec) => rec.sessionId === r.sessionId)).toBe(true);
    for (let i = 1; i < records.length; i++) expect(records[i].parentUuid).toBe(records[i - 1].uuid);
    await run("second", { model: scriptedModel(["two"]), cwd: temp(), persistSession: false });
    expect(transcripts(join(home(), ".ubiquity", "sessions"))).toHaveLength(1);
  });

  it("resume replays the stored transcript as conversation; continueConversation picks the latest of this cwd", async () => {
    const cwd = temp();
    const sessionDir = temp();
    const first = resultOf(
      await run("remember FIRST-PROMPT", {
        model: scriptedModel(["FIRST-ANSWER"]),
        cwd,
        persistSession: true,
        sessionDir,
      }),
    );
    const resumed = scriptedModel(["again"]);
    const r2 = resultOf(
      await run("go on", { model: resumed, cwd, persistSession: true, sessionDir, resume: first.sessionId }),
    );
    const replay = JSON.stringify(resumed.requests[0]!.prompt);
    expect(replay).toContain("FIRST-PROMPT");
    expect(replay).toContain("FIRST-ANSWER");
    expect(r2.sessionId).toBe(first.sessionId);
    const cont = scriptedModel(["third"]);
    const r3 = resultOf(
      await run("and more", { model: cont, cwd, persistSession: true, sessionDir, continueConversation: true }),
    );
    expect(r3.sessionId).toBe(first.sessionId);
    expect(JSON.stringify(cont.requests[0]!.prompt)).toContain("again");
  });

  it("resume with forkSession branches into a new session and leaves the original untouched", async () => {
    const cwd = temp();
    const sessionDir = temp();
    const first = resultOf(
      await run("base", { model: scriptedModel(["BASE"]), cwd, persistSession: true, sessionDir }),
    );
    const store = new SessionStore({ dir: sessionDir });
    const before = (await store.get(first.sessionId))!.records.length;
    const forked = scriptedModel(["BRANCH"]);
    const r = resultOf(
      await run("branch", {
        model: forked,
        cwd,
        persistSession: true,
        sessionDir,
        resume: first.sessionId,
        forkSession: true,
      }),
    );
    expect(r.sessionId).not.toBe(first.sessionId);
    expect(JSON.stringify(forked.requests[0]!.prompt)).toContain("BASE");
    expect((await store.get(first.sessionId))!.records.length).toBe(before);
    expect(JSON.stringify((await store.get(r.sessionId))!.records)).toContain("BRANCH");
  });

  it("SessionStore lists newest first with the first prompt as summary, and forks up to a record with every uuid remapped", async () => {
    const cwd = temp();
    const sessionDir = temp();
    const a = resultOf(
      await run("older session", { model: scriptedModel(["a"]), cwd, persistSession: true, sessionDir }),
    );
    await new Promise((r) => setTimeout(r, 20));
    const b = resultOf(
      await run("newer session", { model: scriptedModel(["b1", "b2"]), cwd, persistSession: true, sessionDir }),
    );
    const store = new SessionStore({ dir: sessionDir });
    const list = await store.list({ cwd, limit: 10 });
    expect(list.map((s) => s.sessionId)).toEqual([b.sessionId, a.sessionId]);
    expect(list[0]!.summary).toBe("newer session");
    const source = (await store.get(b.sessionId))!;
    const cut = source.records[1]!;
    const forkId = await store.fork(b.sessionId, { upToUuid: cut.uuid });
    const fork = (await store.get(forkId))!;
    expect(fork.records).toHaveLength(2);
    const sourceUuids = new Set(source.records.map((r) => r.uuid));
    for (const rec of fork.records) {
      expect(sourceUuids.has(rec.uuid)).toBe(false);
      expect(rec.sessionId).toBe(forkId);
    }
    expect(fork.records[1]!.parentUuid).toBe(fork.records[0]!.uuid);
  });

  it("a tool call whose result is missing (denied or interrupted) is left out of the replay", async () => {
    const cwd = realpathSync(temp());
    const sessionDir = temp();
    const controller = new AbortController();
    const model = scriptedModel([{ toolCalls: [{ toolName: "Bash", id: "b1", input: { command: "sleep 3" } }] }]);
    setTimeout(() => controller.abort(), 300);
    const first = resultOf(
      await run("go", {
        model,
        cwd,
        persistSession: true,
        sessionDir,
        permissionMode: "bypassPermissions",
        abortSignal: controller.signal,
      }),
    );
    const next = scriptedModel(["ok"]);
    const r = resultOf(
      await run("again", { model: next, cwd, persistSession: true, sessionDir, resume: first.sessionId }),
    );
    expect(r.isError).toBe(false);
    const prompt = next.requests[0]!.prompt;
    const calls = prompt.flatMap((m) =>
      m.role === "assistant"
        ? m.content.filter((p) => p.type === "tool-call").map((p) => (p as { toolCallId: string }).toolCallId)
        : [],
    );
    const results = prompt.flatMap((m) =>
      m.role === "tool"
        ? m.content.filter((p) => p.type === "tool-result").map((p) => (p as { toolCallId: string }).toolCallId)
        : [],
    );
    expect(calls.sort()).toEqual(results.sort());
  });

  it("an unknown resume id ends with a result error naming it", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    const r = resultOf(
      await run("x", {
        model: scriptedModel(["x"]),
        cwd: temp(),
        persistSession: true,
        sessionDir: temp(),
        resume: id,
      }),
    );
    expect(r.isError).toBe(true);
    expect(r.result).toContain(id);
  });
});
