/**
 * Tools are bounded (issue 37, failure 9): every call has a time limit (`toolTimeoutMs`, the
 * tool's own `timeoutMs`, `toolTimeouts` per name), and abort ends a call even when the tool
 * ignores its signal: the call is abandoned, answered with an error `tool_result`, and the run
 * moves on (or ends, when aborted). A custom tool that never settles kept the run forever.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineTool, summon, type SummonOptions } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import { collect, ofType, resultOf } from "../helpers/collect";

/** Never settles and never looks at its signal; `started` resolves when it was called. */
function stubborn(name = "Stubborn", extra: { timeoutMs?: number } = {}) {
  let started!: () => void;
  const called = new Promise<void>((resolve) => (started = resolve));
  const tool = defineTool({
    name,
    description: "Hangs.",
    inputSchema: z.object({}),
    ...extra,
    execute: () => {
      started();
      return new Promise<string>(() => undefined);
    },
  });
  return { tool, called };
}

/** Stops as soon as its signal aborts, saying why. */
const polite = defineTool({
  name: "Polite",
  description: "Waits for its signal.",
  inputSchema: z.object({}),
  execute: (_input, ctx) =>
    new Promise<string>((resolve) =>
      ctx.abortSignal.addEventListener("abort", () => resolve(`stopped: ${(ctx.abortSignal.reason as Error).name}`), {
        once: true,
      }),
    ),
});

const callThen = (toolName: string) =>
  scriptedModel([{ toolCalls: [{ toolName, input: {}, id: "call-1" }] }, "moved on"]);

/**
 * The run on a fake clock (setTimeout only): the time limits and the 2 s grace pass as the test
 * advances the clock, so what is proven is what happens when they expire, not how long that takes.
 */
async function runWith(toolName: string, options: SummonOptions) {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const model = callThen(toolName);
  let done = false;
  const running = collect(summon("go", { presets: [], model, ...options })).finally(() => (done = true));
  while (!done) await vi.advanceTimersByTimeAsync(50);
  const messages = await running;
  return { messages, model, results: ofType(messages, "tool_result"), result: resultOf(messages) };
}

afterEach(() => vi.useRealTimers());

describe("a tool call's time limit", () => {
  it("a tool that ignores its signal is abandoned at toolTimeoutMs: one error tool_result, and the run moves on", async () => {
    const { tool } = stubborn();
    const { results, result, model } = await runWith("Stubborn", { tools: [tool], toolTimeoutMs: 200 });
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ toolUseId: "call-1", output: { isError: true } });
    expect(results[0]!.output.content).toMatch(
      /^Stubborn timed out after 0\.2 s .* did not stop within 2\.0 s of being asked: the call was abandoned/,
    );
    expect(model.played).toBe(2);
    expect(result).toMatchObject({ isError: false, result: "moved on" });
  });

  it("a tool that stops when asked is reported as timed out and stopped, with its own last words", async () => {
    const { results, result } = await runWith("Polite", { tools: [polite], toolTimeoutMs: 200 });
    expect(results[0]!.output.isError).toBe(true);
    expect(results[0]!.output.content).toBe(
      "Polite timed out after 0.2 s (its limit: toolTimeoutMs or toolTimeouts.Polite) and was stopped.\nstopped: ToolTimeoutError",
    );
    expect(result.result).toBe("moved on");
  });

  it("the tool's own timeoutMs wins over toolTimeoutMs, and toolTimeouts wins over both", async () => {
    const own = await runWith("Stubborn", {
      tools: [stubborn("Stubborn", { timeoutMs: 100 }).tool],
      toolTimeoutMs: 600_000,
    });
    expect(own.results[0]!.output.content).toMatch(/^Stubborn timed out after 0\.1 s/);
    const named = await runWith("Stubborn", {
      tools: [stubborn("Stubborn", { timeoutMs: 600_000 }).tool],
      toolTimeouts: { Stubborn: 300 },
    });
    expect(named.results[0]!.output.content).toMatch(/^Stubborn timed out after 0\.3 s/);
  });
});

describe("abort", () => {
  it("ends a call whose tool ignores its signal: the call is abandoned and answered, the run ends aborted", async () => {
    const { tool, called } = stubborn();
    const controller = new AbortController();
    void called.then(() => controller.abort());
    const { results, result, model } = await runWith("Stubborn", { tools: [tool], abortSignal: controller.signal });
    expect(results).toHaveLength(1);
    expect(results[0]!.output).toMatchObject({ isError: true });
    expect(results[0]!.output.content).toMatch(
      /^The run was aborted and Stubborn did not stop within 2\.0 s of being asked: the call was abandoned/,
    );
    expect(result.isError).toBe(true);
    expect(model.played).toBe(1);
  });

  it("a tool that stops when the run aborts keeps its own result (as before)", async () => {
    const controller = new AbortController();
    const tool = defineTool({
      name: "Polite",
      description: "Waits for its signal.",
      inputSchema: z.object({}),
      execute: (_input, ctx) => {
        setImmediate(() => controller.abort());
        return new Promise<string>((resolve) =>
          ctx.abortSignal.addEventListener("abort", () => resolve("stopped by the abort"), { once: true }),
        );
      },
    });
    const { results, result } = await runWith("Polite", { tools: [tool], abortSignal: controller.signal });
    expect(results[0]!.output.content).toBe("stopped by the abort");
    expect(result.isError).toBe(true);
  });
});

describe("a call that ended", () => {
  // Every run's signal aborts when the run ends; a finished call's bound used to arm its 2 s grace
  // timer then, holding the process past the result (issue 40: exit within 50 ms of the result).
  it("leaves no timer behind when the run ends: nothing keeps the process alive after the result", () => {
    const dist = (path: string) => JSON.stringify(pathToFileURL(join(import.meta.dirname, "../../dist", path)).href);
    const program = `const { summon, defineTool } = await import(${dist("sdk/index.mjs")});
const { scriptedModel } = await import(${dist("src/testing/index.mjs")});
const { z } = await import("zod");
const quick = defineTool({ name: "Quick", description: "Answers at once.", inputSchema: z.object({}), execute: () => "ok" });
const model = scriptedModel([{ toolCalls: [{ toolName: "Quick", input: {}, id: "c1" }] }, "done"]);
for await (const m of summon("hi", { model, presets: [], tools: [quick] })) if (m.type === "result" && m.isError) throw new Error(m.result);
setImmediate(() => console.log(JSON.stringify(process.getActiveResourcesInfo())));`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", program], {
      cwd: import.meta.dirname,
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(child.status, child.stderr).toBe(0);
    // What is left is the child's own stdio (a pipe here); no timer, socket or process.
    expect(
      (JSON.parse(child.stdout.trim()) as string[]).filter(
        (resource) => resource !== "PipeWrap" && resource !== "TTYWrap",
      ),
    ).toEqual([]);
  });

  // The same with the default preset and its built-in tools, the last turn's a Bash command: each
  // command left its 200 ms pipe-drain timer pending, so `ubiquity run` ended up to 200 ms late.
  it("leaves nothing behind with the default preset once Bash, Glob, Grep, Read, Write, Edit and TodoWrite ran", () => {
    const dist = (path: string) => JSON.stringify(pathToFileURL(join(import.meta.dirname, "../../dist", path)).href);
    const dir = mkdtempSync(join(tmpdir(), "ubq-exit-"));
    try {
      writeFileSync(join(dir, "a.txt"), "alpha\n");
      const calls = [
        { toolName: "Glob", input: { pattern: "*.txt" } },
        { toolName: "Grep", input: { pattern: "alpha" } },
        { toolName: "Read", input: { file_path: join(dir, "a.txt") } },
        { toolName: "Edit", input: { file_path: join(dir, "a.txt"), old_string: "alpha", new_string: "beta" } },
        { toolName: "Write", input: { file_path: join(dir, "b.txt"), content: "b\n" } },
        {
          toolName: "TodoWrite",
          input: { todos: [{ content: "check", status: "completed", activeForm: "Checking" }] },
        },
        { toolName: "Bash", input: { command: "cat a.txt b.txt; (sleep 0; echo bg) &" } },
      ];
      const program = `const { summon } = await import(${dist("sdk/index.mjs")});
const { scriptedModel } = await import(${dist("src/testing/index.mjs")});
const calls = ${JSON.stringify(calls)};
const model = scriptedModel([...calls.map((call) => ({ toolCalls: [call] })), "done"]);
const errors = [];
for await (const m of summon("hi", { model, permissionMode: "bypassPermissions" })) {
  if (m.type === "user" && m.toolResult?.isError) errors.push(m.toolResult.content);
  if (m.type === "result" && m.isError) throw new Error(m.result);
}
// One loop turn first: a child whose exit was just seen closes its handle in that turn's close
// phase, after this check phase (under load the result can come in the very turn of the exit).
// Anything still there a turn later holds the exit.
setImmediate(() => setImmediate(() => console.log(JSON.stringify({ errors, left: process.getActiveResourcesInfo() }))));`;
      const child = spawnSync(process.execPath, ["--input-type=module", "-e", program], {
        cwd: dir,
        env: { ...process.env, HOME: dir },
        encoding: "utf8",
        timeout: 240_000,
      });
      expect(child.status, child.stderr).toBe(0);
      const { errors, left } = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as {
        errors: string[];
        left: string[];
      };
      expect(errors).toEqual([]);
      expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("beta\n");
      expect(left.filter((resource) => resource !== "PipeWrap" && resource !== "TTYWrap")).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
