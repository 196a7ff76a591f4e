/** Parity: the message stream, the result, max turns and the no-model error (seed README: "The message stream"). */
import { afterEach, describe, expect, it, vi } from "vitest";
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { summon, registerAlias } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";
import { tempDirs } from "../helpers/temp-dirs";
import { call, run } from "./helpers";

const temp = tempDirs();
afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the message stream", () => {
  it("starts with system/init naming the model and tools, streams tool_use/tool_result/assistant, ends with result", async () => {
    const cwd = realpathSync(temp());
    writeFileSync(join(cwd, "a.ts"), "x\n");
    const model = scriptedModel([{ text: "Looking.", ...call("Glob", { pattern: "*.ts" }) }, "One file: a.ts"]);
    const messages = await run("what ts files?", { model, cwd });
    const first = messages[0]!;
    expect(first).toMatchObject({ type: "system", subtype: "init" });
    if (first.type !== "system" || first.subtype !== "init") throw new Error("no init");
    expect(first.model).toContain("scripted");
    expect(first.tools).toEqual(expect.arrayContaining(["Read", "Write", "Edit", "Bash", "Glob", "Grep", "TodoWrite"]));
    const use = ofType(messages, "tool_use")[0]!;
    expect(use).toMatchObject({ toolName: "Glob", toolInput: { pattern: "*.ts" } });
    const res = ofType(messages, "tool_result")[0]!;
    expect(res.toolUseId).toBe(use.toolUseId);
    expect(res.output.content).toContain("a.ts");
    expect(ofType(messages, "assistant").map((m) => m.text)).toContain("One file: a.ts");
    const result = resultOf(messages);
    expect(result).toMatchObject({ subtype: "success", isError: false, result: "One file: a.ts", numTurns: 2 });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    for (const m of messages) expect(m.sessionId).toBe(result.sessionId);
  });

  it("includePartialMessages adds stream_event deltas ahead of the assistant message; off by default", async () => {
    const cwd = temp();
    const text = "streamed answer in parts";
    const on = await run("hi", { model: scriptedModel([{ text, chunkSize: 4 }]), cwd, includePartialMessages: true });
    const events = on.map((m, i) => ({ m, i })).filter(({ m }) => m.type === "stream_event");
    expect(events.length).toBeGreaterThan(1);
    const assistantAt = on.findIndex((m) => m.type === "assistant");
    expect(events.every(({ i }) => i < assistantAt)).toBe(true);
    const deltas = events.map(({ m }) => (m as { delta: unknown }).delta);
    const joined = deltas.map((d) => (typeof d === "string" ? d : ((d as { text?: string }).text ?? ""))).join("");
    expect(joined).toBe(text);
    const off = await run("hi", { model: scriptedModel([text]), cwd });
    expect(ofType(off, "stream_event")).toHaveLength(0);
  });

  it("a run that exhausts maxTurns ends with error_max_turns", async () => {
    const cwd = temp();
    const model = scriptedModel(() => call("Glob", { pattern: "*" }, `g${Math.random()}`));
    const messages = await run("loop", { model, cwd, maxTurns: 2 });
    const result = resultOf(messages);
    expect(result).toMatchObject({ subtype: "error_max_turns", isError: true });
    expect(result.numTurns).toBe(2);
    expect(model.requests).toHaveLength(2);
  });

  it("with neither model nor UBIQUITY_MODEL the run fails with a result naming both", async () => {
    vi.stubEnv("UBIQUITY_MODEL", undefined);
    const messages = await collect(summon("hi", { cwd: temp(), persistSession: false }));
    expect(messages[0]).toMatchObject({ type: "system" });
    const result = resultOf(messages);
    expect(result.isError).toBe(true);
    expect(result.result).toMatch(/model/);
    expect(result.result).toContain("UBIQUITY_MODEL");
  });

  it("unset model reads UBIQUITY_MODEL; an alias names a role", async () => {
    vi.stubEnv("UBIQUITY_MODEL", "parity-role");
    registerAlias("parity-role", "test");
    const result = resultOf(await collect(summon("hi", { cwd: temp(), persistSession: false, persistTodos: false })));
    expect(result.isError).toBe(false);
  });

  it("UBIQUITY_MODEL_ALIASES maps roles from the environment", async () => {
    vi.stubEnv("UBIQUITY_MODEL_ALIASES", "fastparity=test,big=openai:gpt-5");
    const messages = await collect(
      summon("hi", { model: "fastparity", cwd: temp(), persistSession: false, persistTodos: false }),
    );
    expect(resultOf(messages).isError).toBe(false);
    const init = messages[0] as { model?: string };
    expect(init.model).toContain("test");
  });

  it("totalCostUsd is null (never 0) when a response was unpriced, a number when priced", async () => {
    const cwd = temp();
    const unpriced = resultOf(
      await run("hi", { model: scriptedModel([{ text: "ok", usage: { inputTokens: 1000, outputTokens: 100 } }]), cwd }),
    );
    expect(unpriced.totalCostUsd).toBeNull();
    const priced = resultOf(
      await run("hi", {
        model: scriptedModel([{ text: "ok", usage: { inputTokens: 1_000_000, outputTokens: 1_000_000 } }]),
        cwd,
        modelPricing: { scripted: { input: 2, output: 10 } },
      }),
    );
    expect(priced.totalCostUsd).toBeCloseTo(12, 6);
  });

  it("every tool_use is answered by exactly one tool_result, also for an unknown tool and invalid input", async () => {
    const cwd = temp();
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "Nope", input: {}, id: "u1" },
          { toolName: "Read", input: { nothing: 1 }, id: "u2" },
        ],
      },
      "done",
    ]);
    const messages = await run("go", { model, cwd });
    const results = ofType(messages, "tool_result");
    for (const id of ["u1", "u2"]) {
      expect(results.filter((r) => r.toolUseId === id)).toHaveLength(1);
      expect(results.find((r) => r.toolUseId === id)!.output.isError).toBe(true);
    }
    expect(resultOf(messages).subtype).toBe("success");
  });
});
