import { describe, expect, it } from "vitest";
import { appendFileSync } from "node:fs";
import { z } from "zod";
import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { summon, defineTool, definePlugin, type Message } from "ubiquity";
import { scriptedModel, type Script } from "ubiquity/testing";
import type { TranscriptRecord } from "ubiquity/plugins/sessions";
import { collect, resultOf } from "../helpers/collect";
import { echo, readRecords, tempDirs, transcriptFiles } from "./helpers";
import { BACKENDS, backendMissing, useBackend, type BackendFixture, type BackendKind } from "./backends";

const temp = tempDirs();

async function setupOn(b: BackendFixture) {
  const cwd = temp("ubq-project-");
  const run = (prompt: string, script: Script, extra: Record<string, unknown> = {}) => {
    const model = scriptedModel(script);
    const done = collect(
      summon(prompt, { model, tools: [echo], presets: [], ...b.options, plugins: b.plugins(), cwd, ...extra }),
    );
    return done.then((messages: Message[]) => ({ messages, model, result: resultOf(messages) }));
  };
  const records = async (id: string) => (await b.store.get(id))!.records;
  return { ...b, cwd, run, records };
}

/** The prompt as role/text pairs, for readable assertions. */
function shape(prompt: LanguageModelV4Prompt) {
  return prompt
    .filter((m) => m.role !== "system")
    .map((m) => {
      if (typeof m.content === "string") return `${m.role}: ${m.content}`;
      const parts = m.content.map((p) => {
        if (p.type === "text") return p.text;
        if (p.type === "tool-call") return `call ${p.toolCallId}`;
        if (p.type === "tool-result") return `result ${p.toolCallId}`;
        return p.type;
      });
      return `${m.role}: ${parts.join(" | ")}`;
    });
}

describe.each(BACKENDS)("resume, continue, fork (%s store)", (kind) => {
  const fresh = useBackend(kind);
  if (backendMissing(kind)) it.skip(`skipped: ${backendMissing(kind)}`, () => {});
  else tests(kind, async () => setupOn(await fresh()));
});

function tests(kind: BackendKind, setup: () => ReturnType<typeof setupOn>) {
  it("resume replays the session as conversation and appends to the same transcript", async () => {
    const s = await setup();
    const first = await s.run("first", [
      { text: "looking", toolCalls: [{ toolName: "Echo", input: { text: "a" }, id: "c1" }] },
      "first answer",
    ]);
    const second = await s.run("second", ["second answer"], { resume: first.result.sessionId });
    expect(second.result).toMatchObject({ isError: false, sessionId: first.result.sessionId });
    expect(second.messages.every((m) => m.sessionId === first.result.sessionId)).toBe(true);
    expect(shape(second.model.requests[0]!.prompt)).toEqual([
      "user: first",
      "assistant: looking | call c1",
      "tool: result c1",
      "assistant: first answer",
      "user: second",
    ]);
    expect(await s.store.list()).toHaveLength(1);
    const records = await s.records(first.result.sessionId);
    expect(records.filter((r) => r.type === "user").map((r) => (r.message as { text: string }).text)).toEqual([
      "first",
      "second",
    ]);
    // The resumed records chain onto the stored ones.
    for (let i = 1; i < records.length; i++) expect(records[i]!.parentUuid).toBe(records[i - 1]!.uuid);
  });

  it("continueConversation picks the latest session of the cwd", async () => {
    const s = await setup();
    const older = await s.run("older", ["old answer"]);
    const newer = await s.run("newer", ["new answer"]);
    // A newer session of another folder is not this folder's latest.
    await collect(
      summon("elsewhere", {
        model: scriptedModel(["x"]),
        presets: [],
        ...s.options,
        plugins: s.plugins(),
        cwd: temp("ubq-other-"),
      }),
    );
    const cont = await s.run("again", ["third"], { continueConversation: true });
    expect(cont.result.sessionId).toBe(newer.result.sessionId);
    expect(cont.result.sessionId).not.toBe(older.result.sessionId);
    expect(shape(cont.model.requests[0]!.prompt)).toEqual(["user: newer", "assistant: new answer", "user: again"]);
  });

  it("continueConversation with no stored session starts a fresh session", async () => {
    const s = await setup();
    const cont = await s.run("again", ["fresh answer"], { continueConversation: true });
    expect(cont.result).toMatchObject({ isError: false, subtype: "success", result: "fresh answer" });
    expect(shape(cont.model.requests[0]!.prompt)).toEqual(["user: again"]);
    // …and it is stored, so the next continueConversation picks it up.
    const next = await s.run("more", ["ok"], { continueConversation: true });
    expect(next.result.sessionId).toBe(cont.result.sessionId);
  });

  it("resume with forkSession branches into a new id and leaves the original untouched", async () => {
    const s = await setup();
    const first = await s.run("first", ["first answer"]);
    const before = await s.raw(first.result.sessionId);
    const fork = await s.run("branch", ["branch answer"], { resume: first.result.sessionId, forkSession: true });
    expect(fork.result.isError).toBe(false);
    expect(fork.result.sessionId).not.toBe(first.result.sessionId);
    expect(await s.raw(first.result.sessionId)).toBe(before);
    expect(shape(fork.model.requests[0]!.prompt)).toEqual(["user: first", "assistant: first answer", "user: branch"]);
    const forked = await s.store.get(fork.result.sessionId);
    expect(forked!.records.map((r) => r.type)).toEqual(["user", "assistant", "result", "user", "assistant", "result"]);
    expect(
      forked!.records.every(
        (r) => r.sessionId === fork.result.sessionId && r.message.sessionId === fork.result.sessionId,
      ),
    ).toBe(true);
    const sourceUuids = new Set((await s.records(first.result.sessionId)).map((r) => r.uuid));
    expect(forked!.records.some((r) => sourceUuids.has(r.uuid))).toBe(false);
    // The branch goes on from the fork, the original from itself.
    const resumedOriginal = await s.run("original again", ["ok"], { resume: first.result.sessionId });
    expect(shape(resumedOriginal.model.requests[0]!.prompt)).toEqual([
      "user: first",
      "assistant: first answer",
      "user: original again",
    ]);
  });

  it("an unknown id ends with a result error naming it", async () => {
    const s = await setup();
    const r = await s.run("hi", ["never"], { resume: "no-such-session" });
    // Found while the run is set up, before any model request (issue 38).
    expect(r.result).toMatchObject({ isError: true, subtype: "error_configuration" });
    expect(r.result.result).toMatch(/No stored session with id "no-such-session"/);
    const traversal = await s.run("hi", ["never"], { resume: "../../etc/passwd" });
    expect(traversal.result.result).toMatch(/No stored session with id "\.\.\/\.\.\/etc\/passwd"/);
  });

  it("leaves out a tool call whose result is missing (a crash between call and result)", async () => {
    const s = await setup();
    const first = await s.run("work", [
      {
        text: "two calls",
        toolCalls: [
          { toolName: "Echo", input: { text: "a" }, id: "kept" },
          { toolName: "Echo", input: { text: "b" }, id: "lost" },
        ],
      },
      "done",
    ]);
    // Simulate the crash: drop the second result and everything after it.
    const records = await s.records(first.result.sessionId);
    const cut = records.findIndex(
      (r) => r.type === "tool_result" && r.message.type === "tool_result" && r.message.toolUseId === "lost",
    );
    await s.truncate(first.result.sessionId, cut);
    const resumed = await s.run("go on", ["continuing"], { resume: first.result.sessionId });
    expect(resumed.result.isError).toBe(false);
    expect(shape(resumed.model.requests[0]!.prompt)).toEqual([
      "user: work",
      "assistant: two calls | call kept",
      "tool: result kept",
      "user: go on",
    ]);
  });

  it("drops an assistant message left empty by dangling calls, and merges an unanswered prompt into the next", async () => {
    const s = await setup();
    const first = await s.run("start", [
      { toolCalls: [{ toolName: "Echo", input: { text: "a" }, id: "gone" }] },
      "never",
    ]);
    // Keep the prompt and the call, lose the result: the model never answered "start" with anything usable.
    await s.truncate(first.result.sessionId, 2);
    const resumed = await s.run("again", ["answer"], { resume: first.result.sessionId });
    expect(shape(resumed.model.requests[0]!.prompt)).toEqual(["user: start | again"]);
    // Replaying that transcript gives the same shape the model saw.
    const third = await s.run("third", ["ok"], { resume: first.result.sessionId });
    expect(shape(third.model.requests[0]!.prompt)).toEqual(["user: start | again", "assistant: answer", "user: third"]);
  });

  // A torn line is a file's failure; a database has none.
  it.skipIf(kind !== "jsonl")("skips a torn last line when reading and cuts it before appending", async () => {
    const s = await setup();
    const first = await s.run("first", ["first answer"]);
    const path = transcriptFiles(s.options.sessionDir as string)[0]!;
    appendFileSync(path, '{"uuid":"torn","parentUuid":null,"sessionId":"x","ty');
    const resumed = await s.run("second", ["second answer"], { resume: first.result.sessionId });
    expect(resumed.result.isError).toBe(false);
    expect(shape(resumed.model.requests[0]!.prompt)).toEqual([
      "user: first",
      "assistant: first answer",
      "user: second",
    ]);
    const records: TranscriptRecord[] = readRecords(path); // throws if any line is torn
    expect(records.map((r) => r.type)).toEqual(["user", "assistant", "result", "user", "assistant", "result"]);
  });

  it("caps a replayed tool result the way the live run did", async () => {
    const s = await setup();
    const big = defineTool({
      name: "Big",
      description: "big",
      inputSchema: z.object({}),
      maxResultChars: 100,
      execute: () => "z".repeat(1000),
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: "Big", input: {}, id: "b1" }] }, "done"]);
    const first = resultOf(
      await collect(summon("go", { model, tools: [big], presets: [], ...s.options, plugins: s.plugins(), cwd: s.cwd })),
    );
    const again = scriptedModel(["ok"]);
    await collect(
      summon("more", {
        model: again,
        tools: [big],
        presets: [],
        ...s.options,
        plugins: s.plugins(),
        cwd: s.cwd,
        resume: first.sessionId,
      }),
    );
    const live = model.requests[1]!.prompt.find((m) => m.role === "tool");
    const replayed = again.requests[0]!.prompt.find((m) => m.role === "tool");
    expect(replayed).toEqual(live);
  });

  it("persistSession: false still resumes and forks, but writes nothing", async () => {
    const s = await setup();
    const first = await s.run("first", ["first answer"]);
    const before = await s.raw(first.result.sessionId);
    const resumed = await s.run("second", ["second answer"], { resume: first.result.sessionId, persistSession: false });
    expect(shape(resumed.model.requests[0]!.prompt)).toEqual([
      "user: first",
      "assistant: first answer",
      "user: second",
    ]);
    const forked = await s.run("branch", ["ok"], {
      resume: first.result.sessionId,
      forkSession: true,
      persistSession: false,
    });
    expect(forked.result.isError).toBe(false);
    expect(await s.raw(first.result.sessionId)).toBe(before);
    expect((await s.store.list()).map((i) => i.sessionId)).toEqual([first.result.sessionId]);
  });

  it("replays from the history stored with the last compaction, not the whole transcript", async () => {
    const s = await setup();
    // A stand-in compaction tier: once the history passes four messages, keep a summary and the last two.
    const compactor = definePlugin(() => ({
      name: "test:compactor",
      apply(kernel) {
        kernel.hooks.context.compact.tap("test:compactor", (state, run) => {
          if (state.messages.length <= 4) return state;
          run.emit({
            type: "system",
            subtype: "compact_boundary",
            tokensBefore: 100,
            tokensAfter: 10,
            trigger: "auto",
          });
          return {
            messages: [{ role: "user", content: "SUMMARY of the start" }, ...state.messages.slice(-2)],
            estimatedTokens: 10,
            changed: true,
          };
        });
      },
    }));
    const plugins = [...s.plugins(), compactor()];
    const first = await s.run(
      "one",
      [{ text: "calling", toolCalls: [{ toolName: "Echo", input: { text: "a" }, id: "c1" }] }, "answer one"],
      { plugins },
    );
    const second = await s.run("two", ["answer two"], { plugins, resume: first.result.sessionId });
    // The live run compacted before its request...
    expect(shape(second.model.requests[0]!.prompt)).toEqual([
      "user: SUMMARY of the start",
      "assistant: answer one",
      "user: two",
    ]);
    const records = (await s.store.get(first.result.sessionId))!.records;
    const boundary = records.find((r) => r.type === "system")!;
    expect(boundary.history).toHaveLength(3);
    // ...and the resumed run starts from that compacted history, then what came after it.
    const third = await s.run("three", ["answer three"], { resume: first.result.sessionId });
    expect(shape(third.model.requests[0]!.prompt)).toEqual([
      "user: SUMMARY of the start",
      "assistant: answer one",
      "user: two",
      "assistant: answer two",
      "user: three",
    ]);
  });
}
