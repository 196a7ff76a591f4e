import { describe, expect, it } from "vitest";
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { summon, defineTool } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import sessions, { SessionStore, StaleWriterError } from "ubiquity/plugins/sessions";
import { collect, ofType, resultOf } from "../helpers/collect";
import { echo, readRecords, tempDirs, transcriptFiles } from "./helpers";

const temp = tempDirs();

describe("a stale writer (JSONL store)", () => {
  it("another writer's record lands mid-run: the run stops with error_stale_writer, writes nothing more, runs no further tool", async () => {
    const sessionDir = temp();
    const cwd = temp("ubq-project-");
    let foreign = "";
    // Stands for a second host's writer: it appends its own record to this run's transcript.
    const intrude = defineTool({
      name: "Intrude",
      description: "Append a foreign record.",
      inputSchema: z.object({}),
      execute: () => {
        const [file] = transcriptFiles(sessionDir);
        const last = readRecords(file!).at(-1)!;
        foreign = randomUUID();
        appendFileSync(
          file!,
          `${JSON.stringify({ ...last, uuid: foreign, parentUuid: last.uuid, message: { ...last.message, uuid: foreign } })}\n`,
        );
        return "done";
      },
    });
    let echoed = 0;
    const counted = defineTool({ ...echo, execute: ({ text }: { text: string }) => `echo ${++echoed}: ${text}` });
    const model = scriptedModel([
      { text: "intruding", toolCalls: [{ toolName: "Intrude", input: {}, id: "c1" }] },
      { text: "echo", toolCalls: [{ toolName: "Echo", input: { text: "x" }, id: "c2" }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", { model, tools: [intrude, counted], presets: [], plugins: [sessions()], sessionDir, cwd }),
    );
    const result = resultOf(messages);
    expect(result.subtype).toBe("error_stale_writer");
    expect(result.isError).toBe(true);
    expect(result.result).toMatch(/was written by another run/);
    expect(result.result).toMatch(/--resume/);
    expect(echoed).toBe(0);
    expect(ofType(messages, "assistant")).toHaveLength(1);
    const records = readRecords(transcriptFiles(sessionDir)[0]!);
    expect(records.map((r) => r.type)).toEqual(["user", "assistant", "tool_use", "tool_use"]);
    expect(records.at(-1)!.uuid).toBe(foreign);
    // One chain: no two records share a parent.
    const parents = records.map((r) => r.parentUuid);
    expect(new Set(parents).size).toBe(parents.length);
    expect(readFileSync(transcriptFiles(sessionDir)[0]!, "utf8").endsWith("\n")).toBe(true);
  });

  it("another writer's record lands while the last answer is written: the run ends with error_stale_writer, not a success whose answer was not stored", async () => {
    const sessionDir = temp();
    const cwd = temp("ubq-project-");
    let foreign = "";
    // The answer comes after the last request passed its check: a second host's writer appends meanwhile.
    const model = scriptedModel(() => {
      const [file] = transcriptFiles(sessionDir);
      const last = readRecords(file!).at(-1)!;
      foreign = randomUUID();
      appendFileSync(
        file!,
        `${JSON.stringify({ ...last, uuid: foreign, parentUuid: last.uuid, message: { ...last.message, uuid: foreign } })}\n`,
      );
      return "the final answer";
    });
    const messages = await collect(summon("go", { model, presets: [], plugins: [sessions()], sessionDir, cwd }));
    const result = resultOf(messages);
    expect(result.subtype).toBe("error_stale_writer");
    expect(result.isError).toBe(true);
    expect(result.result).toMatch(/was written by another run/);
    // The caller still saw the answer; the transcript holds the other writer's record, not it.
    expect(ofType(messages, "assistant").map((m) => m.text)).toEqual(["the final answer"]);
    const records = readRecords(transcriptFiles(sessionDir)[0]!);
    expect(records.at(-1)!.uuid).toBe(foreign);
    expect(records.some((r) => r.type === "assistant")).toBe(false);
  });

  it("the appender refuses an expected last record that is not the file's, with a message naming the fix", async () => {
    const dir = temp();
    const store = new SessionStore({ dir });
    const cwd = temp("ubq-project-");
    const a = store.appender("s1", cwd);
    const record = (uuid: string, parentUuid: string | null) => ({
      uuid,
      parentUuid,
      sessionId: "s1",
      type: "user" as const,
      timestamp: new Date().toISOString(),
      cwd,
      message: { type: "user" as const, uuid, sessionId: "s1", text: "hi" },
    });
    expect(await a.last()).toBeNull();
    await a.append(record("r1", null), null);
    await a.append(record("r2", "r1"), "r1");
    const error = await a.append(record("r3", "r1"), "r1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StaleWriterError);
    expect((error as StaleWriterError).actual).toBe("r2");
    expect((error as Error).message).toMatch(/expected its last record to be r1, but it is r2/);
    await a.close();
    expect((await store.get("s1"))!.records.map((r) => r.uuid)).toEqual(["r1", "r2"]);
  });

  it("after an append that failed, no later append is stored: a record never follows a lost note", async () => {
    const dir = temp();
    const store = new SessionStore({ dir });
    const cwd = temp("ubq-project-");
    const a = store.appender("s1", cwd);
    const path = store.pathFor("s1", cwd);
    // The note cannot be written: the per-append lock is held (by a live process, this one) past its wait.
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.append`, String(process.pid));
    const note = { type: "note" as const, kind: "fleet-job", sessionId: "s1", timestamp: "", data: { jobId: "1" } };
    const noted = a.append(note, null).catch((e: unknown) => e);
    expect(String(await noted)).toMatch(/held by another writer/);
    // The writer's next append, with the same expected last record (a note does not move it), once the lock is free.
    rmSync(`${path}.append`);
    const recorded = a
      .append(
        {
          uuid: "r1",
          parentUuid: null,
          sessionId: "s1",
          type: "user",
          timestamp: "",
          cwd,
          message: { type: "user", uuid: "r1", sessionId: "s1", text: "hi" },
        },
        null,
      )
      .catch((e: unknown) => e);
    expect(await recorded).toBe(await noted);
    await a.close();
    expect(await store.get("s1")).toBeUndefined();
  });
});
