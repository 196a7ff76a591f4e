import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { summon, defineTool, definePlugin, createKernel, type Message } from "ubiquity";
import { createRun, driveRun } from "../../src/index";
import type { RunContext } from "ubiquity/plugin";
import { scriptedModel } from "ubiquity/testing";
import sessions from "ubiquity/plugins/sessions";
import { collect, ofType, resultOf } from "../helpers/collect";
import { echo, tempDirs } from "./helpers";
import { BACKENDS, backendMissing, useBackend, type BackendFixture } from "./backends";

const temp = tempDirs();

describe.each(BACKENDS)("transcripts (%s store)", (kind) => {
  const fresh = useBackend(kind);
  if (backendMissing(kind)) it.skip(`skipped: ${backendMissing(kind)}`, () => {});
  else tests(fresh);
});

function tests(fresh: () => Promise<BackendFixture>) {
  it("appends one record per persisted message, chained, without system/init and stream_event", async () => {
    const b = await fresh();
    const cwd = temp("ubq-project-");
    const model = scriptedModel([
      { text: "calling", toolCalls: [{ toolName: "Echo", input: { text: "hi" }, id: "c1" }] },
      "done",
    ]);
    const messages = await collect(
      summon("say hi", {
        model,
        tools: [echo],
        presets: [],
        ...b.options,
        plugins: b.plugins(),
        cwd,
        includePartialMessages: true,
      }),
    );
    expect(ofType(messages, "stream_event").length).toBeGreaterThan(0);
    const listed = await b.store.list();
    expect(listed).toHaveLength(1);
    const sessionId = resultOf(messages).sessionId;
    expect(listed[0]!.sessionId).toBe(sessionId);
    const records = (await b.store.get(sessionId))!.records;
    expect(records.map((r) => r.type)).toEqual(["user", "assistant", "tool_use", "tool_result", "assistant", "result"]);
    const persisted = messages.filter(
      (m) => m.type !== "stream_event" && !(m.type === "system" && m.subtype === "init"),
    );
    expect(records.map((r) => r.uuid)).toEqual(persisted.map((m) => m.uuid));
    expect(records[0]!.parentUuid).toBeNull();
    for (let i = 1; i < records.length; i++) expect(records[i]!.parentUuid).toBe(records[i - 1]!.uuid);
    for (const r of records) {
      expect(r).toMatchObject({ sessionId, cwd, type: r.message.type });
      expect(Number.isNaN(Date.parse(r.timestamp))).toBe(false);
    }
  });

  it("records the context turn.prompt put ahead of the prompt, and a refused prompt as blocked", async () => {
    const b = await fresh();
    const cwd = temp("ubq-project-");
    const addContext = definePlugin(() => ({
      name: "test:context",
      apply(kernel) {
        kernel.hooks.turn.prompt.tap("test:context", (prompt) =>
          prompt.text === "no"
            ? { ...prompt, blocked: "not today" }
            : { ...prompt, context: [...prompt.context, "remember the milk"] },
        );
      },
    }));
    const model = scriptedModel(["ok"]);
    const first = await collect(
      summon("hello", { model, presets: [], ...b.options, plugins: [...b.plugins(), addContext()], cwd }),
    );
    const records = (await b.store.get(resultOf(first).sessionId))!.records;
    expect(records[0]).toMatchObject({ type: "user", context: ["remember the milk"], message: { text: "hello" } });
    expect(records[0]!.blocked).toBeUndefined();
    // The model saw exactly that shape.
    expect(model.requests[0]!.prompt.at(-1)).toMatchObject({
      role: "user",
      content: [
        { type: "text", text: "remember the milk" },
        { type: "text", text: "hello" },
      ],
    });

    const blocked = await collect(
      summon("no", {
        model: scriptedModel([]),
        presets: [],
        ...b.options,
        plugins: [...b.plugins(), addContext()],
        cwd,
        resume: resultOf(first).sessionId,
      }),
    );
    expect(resultOf(blocked).result).toMatch(/Prompt blocked: not today/);
    const after = (await b.store.get(resultOf(first).sessionId))!.records;
    expect(after.at(-2)).toMatchObject({ type: "user", blocked: "not today", message: { text: "no" } });
  });

  it("a run that fails before its prompt leaves no transcript", async () => {
    const b = await fresh();
    const messages = await collect(
      summon("hi", {
        presets: [],
        ...b.options,
        plugins: b.plugins(),
        cwd: temp("ubq-project-"),
        model: "nope:nothing",
      }),
    );
    expect(resultOf(messages).isError).toBe(true);
    expect(await b.store.list()).toEqual([]);
  });

  it("keeps a subagent's records on their own chain, and replay leaves them out", async () => {
    const b = await fresh();
    const cwd = temp("ubq-project-");
    let main: RunContext | undefined;
    const delegate = defineTool({
      name: "Delegate",
      description: "Runs a subagent.",
      inputSchema: z.object({}),
      async execute() {
        const sub = createRun({
          kernel: main!.kernel,
          abortSignal: main!.abortSignal,
          sink: () => {},
          parent: main,
          agent: { agentId: "a1", agentType: "helper", parentToolUseId: "d1" },
        });
        const result = await driveRun(sub, "side task");
        return `subagent said: ${result.result}`;
      },
    });
    const model = scriptedModel(({ request }) => {
      const last = request.prompt.at(-1)!;
      const said = last.role === "user" ? last.content.map((p) => (p.type === "text" ? p.text : "")).join("") : "";
      if (said === "side task") return "side done";
      return last.role === "tool" ? "main done" : { toolCalls: [{ toolName: "Delegate", input: {}, id: "d1" }] };
    });
    const kernel = createKernel({ model, tools: [delegate], presets: [], ...b.options, plugins: b.plugins(), cwd });
    const sink: Message[] = [];
    main = createRun({ kernel, abortSignal: new AbortController().signal, sink: (m) => sink.push(m) });
    const result = await driveRun(main, "delegate it");
    expect(result.isError).toBe(false);
    await kernel.dispose();
    const records = (await b.store.get(result.sessionId))!.records;
    const sub = records.filter((r) => r.message.agentId === "a1");
    expect(sub.map((r) => r.type)).toEqual(["user", "assistant", "result"]);
    expect(sub[0]!.parentUuid).toBeNull();
    expect(sub[1]!.parentUuid).toBe(sub[0]!.uuid);
    const mainChain = records.filter((r) => r.message.agentId === undefined);
    expect(mainChain.map((r) => r.type)).toEqual([
      "user",
      "assistant",
      "tool_use",
      "tool_result",
      "assistant",
      "result",
    ]);
    for (let i = 1; i < mainChain.length; i++) expect(mainChain[i]!.parentUuid).toBe(mainChain[i - 1]!.uuid);

    const again = scriptedModel(["ok"]);
    await collect(
      summon("next", {
        model: again,
        tools: [delegate],
        presets: [],
        ...b.options,
        plugins: b.plugins(),
        cwd,
        resume: result.sessionId,
      }),
    );
    const replayed = JSON.stringify(again.requests[0]!.prompt);
    expect(replayed).not.toContain("side task");
    expect(replayed).toContain("subagent said: side done");
  });

  it("two runs of one kernel resuming the same session at once: one appends, the other forks (see faults.test.ts)", async () => {
    const b = await fresh();
    const cwd = temp("ubq-project-");
    const first = resultOf(
      await collect(
        summon("start", { model: scriptedModel(["started"]), presets: [], ...b.options, plugins: b.plugins(), cwd }),
      ),
    );
    // Each run's model call waits until both runs have made theirs: the two are under way at once
    // however loaded the machine is (a short delay alone let one finish before the other began).
    const scripted = scriptedModel(() => ({ text: "answer", delayMs: 20 }));
    let arrived = 0;
    let bothArrived!: () => void;
    const both = new Promise<void>((resolve) => (bothArrived = resolve));
    const held = <T>(call: () => PromiseLike<T>): Promise<T> => {
      if (++arrived === 2) bothArrived();
      return both.then(call);
    };
    const slowModel: typeof scripted = Object.assign(Object.create(scripted), {
      doGenerate: (o: Parameters<typeof scripted.doGenerate>[0]) => held(() => scripted.doGenerate(o)),
      doStream: (o: Parameters<typeof scripted.doStream>[0]) => held(() => scripted.doStream(o)),
    });
    const kernel = createKernel({
      model: slowModel,
      presets: [],
      ...b.options,
      plugins: b.plugins(),
      cwd,
      resume: first.sessionId,
    });
    const run = () =>
      driveRun(createRun({ kernel, abortSignal: new AbortController().signal, sink: () => {} }), "again");
    const results = await Promise.all([run(), run()]);
    expect(results.map((r) => r.isError)).toEqual([false, false]);
    await kernel.dispose();
    const listed = await b.store.list();
    expect(listed).toHaveLength(2);
    for (const { sessionId } of listed) {
      const records = (await b.store.get(sessionId))!.records;
      expect(records.filter((r) => r.type === "result")).toHaveLength(2);
      expect(records.filter((r) => r.type === "user" && r.blocked === undefined)).toHaveLength(2);
    }
  });
}

describe("transcript files (JSONL store)", () => {
  it("persistSession: false writes nothing", async () => {
    const sessionDir = temp();
    const model = scriptedModel(["hello"]);
    const messages = await collect(
      summon("hi", { model, presets: [], plugins: [sessions()], sessionDir, persistSession: false }),
    );
    expect(resultOf(messages).isError).toBe(false);
    expect(readdirSync(sessionDir)).toEqual([]);
  });

  it("files the transcript under <sessionDir>/<project-slug>/<sessionId>.jsonl", async () => {
    const sessionDir = temp();
    const cwd = temp("ubq-project-");
    const messages = await collect(
      summon("hi", { model: scriptedModel(["hello"]), presets: [], plugins: [sessions()], sessionDir, cwd }),
    );
    const [folder] = readdirSync(sessionDir);
    expect(folder).toMatch(/^-tmp-ubq-project-.*-[0-9a-f]{8}$/);
    expect(readdirSync(join(sessionDir, folder!))).toEqual([`${resultOf(messages).sessionId}.jsonl`]);
  });

  it("writes user and assistant lines as Claude Code does (role, content), and reads them back as they were", async () => {
    const sessionDir = temp();
    const first = await collect(
      summon("what is 2+2?", { model: scriptedModel(["4"]), presets: [], plugins: [sessions()], sessionDir }),
    );
    const sessionId = resultOf(first).sessionId;
    const [folder] = readdirSync(sessionDir);
    const lines = readFileSync(join(sessionDir, folder!, `${sessionId}.jsonl`), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; message: { role?: string; content?: unknown } });
    // What a hook script does with `jq 'select(.type=="user") | .message.content'`.
    const user = lines.find((l) => l.type === "user")!;
    expect(user.message).toMatchObject({ role: "user", content: "what is 2+2?" });
    const assistant = lines.find((l) => l.type === "assistant")!;
    expect(assistant.message).toMatchObject({ role: "assistant", content: [{ type: "text", text: "4" }] });
    // Resuming reads the prompt back as the SDK message it was: text, no string content.
    const model = scriptedModel(["again"]);
    await collect(summon("more", { model, presets: [], plugins: [sessions()], sessionDir, resume: sessionId }));
    const replayed = model.requests[0]!.prompt.filter((m) => m.role === "user");
    expect(JSON.stringify(replayed[0])).toContain("what is 2+2?");
    expect(replayed).toHaveLength(2);
  });
});
