/**
 * The opt-in habits: verify-before-stop sends a model that changed something back once to run
 * the checks (the configured command, else the ones it named), and the loop detector nudges,
 * then stops, a model repeating one call. Real tools on temp folders; the scripted model stands
 * in for the LLM. Neither is in the default preset; the `harness` preset has both.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, summon, type Message, type SummonOptions } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import verifyBeforeStop, { namedChecks } from "../../plugins/verify-before-stop/index";
import loopDetector, { canonical } from "../../plugins/loop-detector/index";
import harnessPreset from "../../presets/harness";
import defaultPreset from "../../presets/default";
import { tempDir } from "../tools/helpers";

async function drain(prompt: string, options: SummonOptions): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of summon(prompt, options)) out.push(m);
  return out;
}

/** The last user message text of each model request. */
function lastUserTexts(model: ReturnType<typeof scriptedModel>): string[] {
  return model.requests.map((r) => {
    const users = r.prompt.filter((m) => m.role === "user");
    const last = users.at(-1);
    return last && Array.isArray(last.content) ? last.content.map((p) => ("text" in p ? p.text : "")).join("") : "";
  });
}

describe("verify-before-stop", () => {
  it("sends a model that wrote a file back once, naming the checks it mentioned", async () => {
    const cwd = tempDir();
    const model = scriptedModel([
      {
        toolCalls: [
          {
            toolName: "Write",
            input: { file_path: join(cwd, "sum.js"), content: "module.exports = (a, b) => a + b;\n" },
            id: "w",
          },
        ],
      },
      "Wrote sum.js. You can check it with `npm test` and `npx tsc --noEmit`; see `sum.js`.",
      "Ran npm test: 3 passed.",
    ]);
    const messages = await drain("add sum", {
      model,
      cwd,
      permissionMode: "bypassPermissions",
      persistSession: false,
      plugins: [verifyBeforeStop()],
    });
    expect(messages.at(-1)).toMatchObject({ type: "result", result: "Ran npm test: 3 passed." });
    expect(model.requests).toHaveLength(3);
    const sentBack = lastUserTexts(model)[2]!;
    expect(sentBack).toContain("run the checks you named (`npm test`, `npx tsc --noEmit`)");
    expect(sentBack).not.toContain("sum.js");
    expect(existsSync(join(cwd, "sum.js"))).toBe(true);
  });

  it("asks for the configured command; never twice in a stretch; not when nothing changed", async () => {
    const cwd = tempDir();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "Write", input: { file_path: join(cwd, "a.txt"), content: "a\n" }, id: "w" }] },
      "done",
      "still done",
    ]);
    await drain("go", {
      model,
      cwd,
      permissionMode: "bypassPermissions",
      persistSession: false,
      plugins: [verifyBeforeStop({ command: "make check" })],
    });
    expect(model.requests).toHaveLength(3);
    expect(lastUserTexts(model)[2]).toMatch(/^Before you finish, verify your work: run `make check`\./);

    const readOnly = scriptedModel(["just an answer"]);
    await drain("what is 2+2?", {
      model: readOnly,
      cwd,
      persistSession: false,
      plugins: [verifyBeforeStop({ command: "make check" })],
    });
    expect(readOnly.requests).toHaveLength(1);
  });

  it("finds checks in prose: commands in backticks, not file names", () => {
    expect(
      namedChecks("Run `npm test`, then `pytest -q tests/` and `cargo clippy`; edit `src/a.ts` or `README.md`."),
    ).toEqual(["npm test", "pytest -q tests/", "cargo clippy"]);
  });
});

describe("loop detector", () => {
  it("nudges at the third identical call and stops the run at the fifth, naming the call", async () => {
    const cwd = tempDir();
    const same = (id: string) => ({ toolCalls: [{ toolName: "Glob", input: { pattern: "*.md", path: cwd }, id }] });
    // The same input with its keys in another order is the same call.
    const reordered = (id: string) => ({
      toolCalls: [{ toolName: "Glob", input: { path: cwd, pattern: "*.md" }, id }],
    });
    const model = scriptedModel([same("g1"), reordered("g2"), same("g3"), same("g4"), same("g5"), "never reached"]);
    const messages = await drain("find docs", { model, cwd, persistSession: false, plugins: [loopDetector()] });
    const results = messages.filter((m): m is Extract<Message, { type: "tool_result" }> => m.type === "tool_result");
    expect(results.map((r) => r.toolUseId)).toEqual(["g1", "g2", "g3", "g4", "g5"]);
    expect(results[1]!.output.content).not.toContain("this exact call");
    expect(results[2]!.output.content).toContain("[You have now made this exact call 3 times in this task");
    expect(results[4]!.output.isError).toBe(true);
    expect(results[4]!.output.content).toMatch(
      /^Loop detected: Glob was called 5 times with the same input in this stretch of work, getting the same result each time/,
    );
    const result = messages.at(-1)!;
    expect(result).toMatchObject({
      type: "result",
      isError: true,
      result: expect.stringMatching(/Loop detected: Glob was called 5 times/),
    });
    expect(model.requests).toHaveLength(5);
  });

  it("never stops a call whose result changes (re-running the tests after each fix is work, not a loop)", async () => {
    let runs = 0;
    const tests = defineTool({
      name: "RunTests",
      description: "Runs the tests.",
      inputSchema: z.object({ suite: z.string() }),
      execute: () => `run ${++runs}: ${runs < 6 ? "1 failing" : "all pass"}`,
    });
    const call = (id: string) => ({ toolCalls: [{ toolName: "RunTests", input: { suite: "unit" }, id }] });
    const model = scriptedModel([call("t1"), call("t2"), call("t3"), call("t4"), call("t5"), call("t6"), "fixed"]);
    const messages = await drain("fix it", { model, presets: [], tools: [tests], plugins: [loopDetector()] });
    expect(messages.at(-1)).toMatchObject({ type: "result", isError: false, result: "fixed" });
    const results = messages.filter((m): m is Extract<Message, { type: "tool_result" }> => m.type === "tool_result");
    expect(results).toHaveLength(6);
    expect(results.some((r) => r.output.content.includes("this exact call"))).toBe(false);
  });

  it("compares inputs canonically (key order aside, types kept) and refuses a stop before the nudge", async () => {
    expect(canonical({ b: [1, { d: 2, c: 3 }], a: null })).toBe(canonical({ a: null, b: [1, { c: 3, d: 2 }] }));
    expect(canonical({ a: 1 })).not.toBe(canonical({ a: "1" }));
    expect(() => loopDetector({ nudgeAfter: 4, stopAfter: 4 })).toThrow(/stopAfter must be greater than nudgeAfter/);
  });
});

describe("presets", () => {
  it("the default preset has neither; the harness preset adds both", () => {
    const names = (p: typeof defaultPreset) => (p.plugins ?? []).map((x) => (x ? x.name : ""));
    expect(names(defaultPreset)).not.toContain("ubiquity:verify-before-stop");
    expect(names(defaultPreset)).not.toContain("ubiquity:loop-detector");
    expect(names(harnessPreset)).toEqual(["ubiquity:verify-before-stop", "ubiquity:loop-detector"]);
    expect(harnessPreset.presets).toEqual([defaultPreset]);
  });
});
