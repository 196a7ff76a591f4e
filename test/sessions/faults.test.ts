/**
 * Sound transcripts under faults: a corrupt line in the middle (warned about by file and line,
 * every other record kept, the conversation repaired), two runs resuming one session at once
 * (the second forks automatically; nothing interleaves), a stale lock left by a crash, and temp
 * files of atomic writes swept at start.
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { hostname } from "node:os";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { createKernel, summon, type Message } from "ubiquity";
import { scriptedModel, type Script } from "ubiquity/testing";
import sessions, { lockPathOf } from "../../plugins/sessions/index";
import { SessionStore, type TranscriptRecord } from "ubiquity/plugins/sessions";
import { createRun } from "../../src/run";
import { driveRun } from "../../src/loop";
import { collect, resultOf } from "../helpers/collect";
import { spawnTs } from "../helpers/ts-child";
import { capturingLogger } from "../context/helpers";
import { echo, readRecords, tempDirs, transcriptFiles } from "./helpers";

const temp = tempDirs();
const here = dirname(fileURLToPath(import.meta.url));

function setup() {
  const sessionDir = temp();
  const cwd = temp("ubq-project-");
  const run = (prompt: string, script: Script, extra: Record<string, unknown> = {}) => {
    const model = scriptedModel(script);
    const logger = capturingLogger();
    const done = collect(
      summon(prompt, { model, tools: [echo], presets: [], plugins: [sessions()], sessionDir, cwd, logger, ...extra }),
    );
    return done.then((messages: Message[]) => ({ messages, model, logger, result: resultOf(messages) }));
  };
  return { sessionDir, cwd, run, store: new SessionStore({ dir: sessionDir }) };
}

/** Roles of a prompt, in order (the alternation providers check). */
const roles = (prompt: LanguageModelV4Prompt) => prompt.filter((m) => m.role !== "system").map((m) => m.role);

function writeRecords(path: string, lines: string[]) {
  writeFileSync(path, lines.map((l) => `${l}\n`).join(""));
}

describe("a corrupt line in the middle of a transcript", () => {
  it("warns naming the file and line, keeps every other record, and never sends two assistants in a row", async () => {
    const s = setup();
    const first = await s.run("first", ["first answer"]);
    const second = await s.run("second", ["second answer"], { resume: first.result.sessionId });
    expect(second.result.isError).toBe(false);
    const path = transcriptFiles(s.sessionDir)[0]!;
    const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
    const secondPrompt = lines.findIndex(
      (l) => (JSON.parse(l) as TranscriptRecord).type === "user" && l.includes('"second"'),
    );
    lines[secondPrompt] = '{"uuid":"garbage", "this is not json';
    writeRecords(path, lines);

    const third = await s.run("third", ["third answer"], { resume: first.result.sessionId });
    expect(third.result.isError).toBe(false);
    expect(third.logger.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\[ubiquity:sessions\\] ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: line ${secondPrompt + 1} could not be read and was skipped; the other ${lines.length - 1} records were kept`,
        ),
      ),
    ]);
    const prompt = third.model.requests[0]!.prompt;
    expect(roles(prompt)).toEqual(["user", "assistant", "user"]);
    // Both answers survive, merged into one assistant turn where their prompt was lost.
    expect(JSON.stringify(prompt)).toContain("first answer");
    expect(JSON.stringify(prompt)).toContain("second answer");
  });

  it("a lost tool call takes its result with it, a lost result takes its call", async () => {
    const s = setup();
    const first = await s.run("work", [
      { text: "calling", toolCalls: [{ toolName: "Echo", input: { text: "a" }, id: "c1" }] },
      { text: "again", toolCalls: [{ toolName: "Echo", input: { text: "b" }, id: "c2" }] },
      "done",
    ]);
    const path = transcriptFiles(s.sessionDir)[0]!;
    const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
    const at = (pred: (r: TranscriptRecord) => boolean) =>
      lines.findIndex((l) => pred(JSON.parse(l) as TranscriptRecord));
    const firstCall = at((r) => r.type === "assistant" && JSON.stringify(r.message).includes('"c1"'));
    const secondResult = at((r) => r.type === "tool_result" && JSON.stringify(r.message).includes('"c2"'));
    lines[firstCall] = "{not json";
    lines[secondResult] = "\u0000\u0000\u0000";
    writeRecords(path, lines);
    const resumed = await s.run("more", ["ok"], { resume: first.result.sessionId });
    expect(resumed.result.isError).toBe(false);
    expect(resumed.logger.warnings[0]).toMatch(
      new RegExp(
        `lines ${Math.min(firstCall, secondResult) + 1}, ${Math.max(firstCall, secondResult) + 1} could not be read and were skipped`,
      ),
    );
    const prompt = resumed.model.requests[0]!.prompt;
    const text = JSON.stringify(prompt);
    expect(text).not.toContain('"c1"');
    expect(text).not.toContain('"c2"');
    expect(roles(prompt)).toEqual(["user", "assistant", "user"]);
  });
});

describe("two runs resuming one session at once", () => {
  it("in one process: the first appends, the second forks automatically with a warning; nothing interleaves", async () => {
    const sessionDir = temp();
    const cwd = temp("ubq-project-");
    const first = resultOf(
      await collect(
        summon("start", { model: scriptedModel(["started"]), presets: [], plugins: [sessions()], sessionDir, cwd }),
      ),
    );
    const logger = capturingLogger();
    const slowModel = scriptedModel(() => ({ text: "answer", delayMs: 50 }));
    const kernel = createKernel({
      model: slowModel,
      presets: [],
      plugins: [sessions()],
      sessionDir,
      cwd,
      resume: first.sessionId,
      logger,
    });
    const run = () =>
      driveRun(createRun({ kernel, abortSignal: new AbortController().signal, sink: () => {} }), "again");
    const results = await Promise.all([run(), run()]);
    expect(results.map((r) => r.isError)).toEqual([false, false]);
    const ids = results.map((r) => r.sessionId);
    expect(ids).toContain(first.sessionId);
    const forkId = ids.find((id) => id !== first.sessionId)!;
    expect(logger.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `session ${first.sessionId} is in use by another run \\(pid ${process.pid} .*continues in a fork of it, session ${forkId}`,
        ),
      ),
    ]);
    const files = transcriptFiles(sessionDir);
    expect(files).toHaveLength(2);
    for (const file of files) {
      const records = readRecords(file);
      // One conversation per file: start, then exactly one "again".
      expect(records.filter((r) => r.type === "user").map((r) => (r.message as { text: string }).text)).toEqual([
        "start",
        "again",
      ]);
      for (let i = 1; i < records.length; i++) expect(records[i]!.parentUuid).toBe(records[i - 1]!.uuid);
    }
    // The locks are gone once the runs ended.
    expect(files.map((f) => existsSync(lockPathOf(f)))).toEqual([false, false]);
  });

  it("in two processes at once: one continues the session, the other forks", async () => {
    const s = setup();
    const first = await s.run("start", ["started"]);
    const child = join(here, "fixtures", "resume-child.ts");
    const procs = ["A", "B"].map((tag) => {
      const proc = spawnTs(child, [s.sessionDir, s.cwd, first.result.sessionId, tag]);
      let stdout = "";
      const ready = new Promise<void>((resolve) =>
        proc.stdout
          .setEncoding("utf8")
          .on("data", (c: string) => ((stdout += c), stdout.startsWith("ready\n") && resolve())),
      );
      const done = new Promise<string[]>((resolve) =>
        proc.on("close", () => resolve(stdout.split("\n").filter(Boolean))),
      );
      return { proc, ready, done };
    });
    await Promise.all(procs.map((p) => p.ready));
    for (const p of procs) p.proc.stdin.end("go\n");
    const outputs = await Promise.all(procs.map((p) => p.done));
    const results = outputs.map((lines) => lines.find((l) => l.startsWith("result "))!.split(" "));
    expect(
      results.map((r) => r[2]),
      JSON.stringify(outputs),
    ).toEqual(["ok", "ok"]);
    const ids = results.map((r) => r[1]);
    expect(ids.filter((id) => id === first.result.sessionId)).toHaveLength(1);
    expect(
      outputs
        .flat()
        .filter((l) => l.startsWith("warn "))
        .join("\n"),
    ).toMatch(/is in use by another run \(pid \d+ .*continues in a fork of it/);
    const files = transcriptFiles(s.sessionDir);
    expect(files).toHaveLength(2);
    for (const file of files) {
      const prompts = readRecords(file)
        .filter((r) => r.type === "user")
        .map((r) => (r.message as { text: string }).text);
      expect(prompts).toHaveLength(2);
      expect(prompts[0]).toBe("start");
    }
  });

  it("a lock left by a crashed run (its pid is gone) is taken over: the session continues in place", async () => {
    const s = setup();
    const first = await s.run("start", ["started"]);
    const path = transcriptFiles(s.sessionDir)[0]!;
    const dead = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => dead.on("close", resolve));
    writeFileSync(
      lockPathOf(path),
      JSON.stringify({ pid: dead.pid, host: hostname(), since: "2026-01-01T00:00:00.000Z" }),
    );
    const resumed = await s.run("again", ["ok"], { resume: first.result.sessionId });
    expect(resumed.result.sessionId).toBe(first.result.sessionId);
    expect(resumed.logger.warnings).toEqual([]);
    expect(transcriptFiles(s.sessionDir)).toHaveLength(1);
    expect(existsSync(lockPathOf(path))).toBe(false);
  });
});

describe("temp files of atomic writes", () => {
  it("a fork's temp file left by a crash is swept when the next run starts; a young one is left alone", async () => {
    const s = setup();
    const first = await s.run("start", ["started"]);
    const folder = dirname(transcriptFiles(s.sessionDir)[0]!);
    const old = join(folder, `.${first.result.sessionId}-fork.jsonl.4242.deadbeef.tmp`);
    const young = join(folder, `.other.jsonl.4243.cafebabe.tmp`);
    writeFileSync(old, "half a fork");
    writeFileSync(young, "being written right now");
    const past = new Date(Date.now() - 10 * 60_000);
    utimesSync(old, past, past);
    await s.run("next", ["ok"]);
    // The sweep runs in the background (it does not hold up the run): wait for it, however loaded
    // the machine (the bound only catches a sweep that never comes).
    for (let waited = 0; existsSync(old) && waited < 120_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(existsSync(old)).toBe(false);
    expect(existsSync(young)).toBe(true);
    mkdirSync(folder, { recursive: true });
    expect(readdirSync(folder).filter((n) => n.endsWith(".jsonl"))).toHaveLength(2);
  });
});
