import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createKernel, summon, type Message } from "ubiquity";
import { createRun, driveRun } from "../../src/index";
import { collect, ofType, resultOf } from "../helpers/collect";
import { scriptedModel } from "ubiquity/testing";

describe("no model configured", () => {
  beforeEach(() => {
    vi.stubEnv("UBIQUITY_MODEL", undefined);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("yields init with the model unset, then a result error naming model and UBIQUITY_MODEL", async () => {
    const messages = await collect(summon("hello"));
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init", model: null });
    const result = resultOf(messages);
    // Found while the run is set up, before any request (issue 38).
    expect(result).toMatchObject({ subtype: "error_configuration", isError: true, numTurns: 0, totalCostUsd: null });
    expect(result.result).toContain("options.model");
    expect(result.result).toContain("UBIQUITY_MODEL");
  });

  it("treats a blank UBIQUITY_MODEL as unset and reads a set one", async () => {
    vi.stubEnv("UBIQUITY_MODEL", "   ");
    expect(resultOf(await collect(summon("hello"))).result).toContain("UBIQUITY_MODEL");
    vi.stubEnv("UBIQUITY_MODEL", " test ");
    const messages = await collect(summon("hello", { presets: [] }));
    expect(messages[0]).toMatchObject({ model: "test" });
    expect(resultOf(messages).isError).toBe(false);
  });

  it("turns a bad option into a result error, never a throw", async () => {
    const messages = await collect(summon("hello", { model: "test", maxTurns: -2 } as never));
    expect(messages.map((m) => m.type)).toEqual(["system", "result"]);
    expect(resultOf(messages).result).toMatch(/maxTurns/);
  });

  it("throws only on API misuse", () => {
    expect(() => summon(42 as unknown as string)).toThrow(TypeError);
  });
});

describe("the offline test model", () => {
  it("createKernel({ plugins: [] }) with the test model completes a turn with zero tools", async () => {
    const kernel = createKernel({ plugins: [], model: "test" });
    const messages: Message[] = [];
    const run = createRun({ kernel, abortSignal: new AbortController().signal, sink: (m) => messages.push(m) });
    const result = await driveRun(run, "hello kernel");
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init", tools: [], plugins: [], model: "test" });
    expect(result).toMatchObject({ subtype: "success", numTurns: 1 });
    expect(result.result).toContain('you said "hello kernel"');
    expect(ofType(messages, "assistant")).toHaveLength(1);
  });

  it("is deterministic", async () => {
    const a = resultOf(await collect(summon("same words", { model: "test", presets: [] })));
    const b = resultOf(await collect(summon("same words", { model: "test", presets: [] })));
    expect(a.result).toBe(b.result);
    expect(a.usage).toEqual(b.usage);
  });
});

describe("an empty system prompt", () => {
  it("is not sent at all (some providers reject an empty system block)", async () => {
    const model = scriptedModel(["ok"]);
    await collect(summon("hi", { model, presets: [] }));
    expect(model.requests[0]!.prompt.filter((m) => m.role === "system")).toEqual([]);
  });
});
