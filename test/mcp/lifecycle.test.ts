/** MCP calls in the funnel (user hooks), a server dying mid-call, abort of an in-flight call. */
import { describe, expect, it } from "vitest";
import { definePlugin, summon, type HookInput, type Logger, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp, { getMcpApi } from "ubiquity/plugins/mcp";
import hooksPlugin from "ubiquity/plugins/hooks";
import { collect, ofType, resultOf } from "../helpers/collect";
import { alive, everythingStdio, expectNoServerLeftAfterEachTest } from "./helpers";

expectNoServerLeftAfterEachTest();

const LONG = "mcp__everything__trigger-long-running-operation";
// One minute of work: a call that ends within half of it was cut short, however loaded the machine.
const long = (id: string) => ({ toolName: LONG, input: { duration: 60, steps: 2 }, id });

/** Records warnings, so a test can see what the plugin reported. */
function recordingLogger(warnings: string[]): Logger {
  const noop = () => {};
  return { debug: noop, info: noop, error: noop, warn: (...args: unknown[]) => void warnings.push(args.join(" ")) };
}

describe("user hooks on MCP calls", () => {
  it("PreToolUse (glob matcher) rewrites the input the server gets or blocks the call; PostToolUse sees the output", async () => {
    const pre: HookInput[] = [];
    const post: HookInput[] = [];
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__everything__echo", input: { message: "original" }, id: "t1" }] },
      { toolCalls: [{ toolName: "mcp__everything__get-sum", input: { a: 1, b: 2 }, id: "t2" }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [hooksPlugin(), mcp()],
        model,
        mcpServers: { everything: everythingStdio() },
        hooks: {
          PreToolUse: [
            {
              matcher: "mcp__everything__*",
              hooks: [
                (input) => {
                  pre.push(structuredClone(input));
                  if (input.toolName === "mcp__everything__get-sum")
                    return { decision: "block", reason: "no sums today" };
                  return { updatedInput: { message: "rewritten by a hook" } };
                },
              ],
            },
          ],
          PostToolUse: [
            { matcher: "mcp__everything__echo", hooks: [(input) => void post.push(structuredClone(input))] },
          ],
        },
      }),
    );
    expect(pre.map((i) => [i.toolName, i.toolInput])).toEqual([
      ["mcp__everything__echo", { message: "original" }],
      ["mcp__everything__get-sum", { a: 1, b: 2 }],
    ]);
    const results = ofType(messages, "tool_result");
    expect(results[0]!.output).toMatchObject({ content: "Echo: rewritten by a hook", isError: false });
    expect(ofType(messages, "tool_use")[0]!.toolInput).toEqual({ message: "rewritten by a hook" });
    expect(results[1]!.output).toMatchObject({ content: "no sums today", isError: true });
    expect(post).toEqual([
      expect.objectContaining({
        hookEventName: "PostToolUse",
        toolName: "mcp__everything__echo",
        toolOutput: "Echo: rewritten by a hook",
      }),
    ]);
    expect(resultOf(messages)).toMatchObject({ subtype: "success" });
  });
});

describe("a server that dies", () => {
  it("killed mid-call: that call gets an error result, later calls hear its tools are unavailable, the run goes on", async () => {
    const killed: number[] = [];
    // Kills the server 150 ms into the long call, as a crash would.
    const killer = definePlugin(() => ({
      name: "test:killer",
      apply(kernel) {
        kernel.hooks.tool.beforeCall.tap("test:killer", (state, call) => {
          if (call.toolName === LONG) {
            const pid = getMcpApi(kernel)!.servers()[0]!.pid!;
            killed.push(pid);
            setTimeout(() => process.kill(pid, "SIGKILL"), 150);
          }
          return state;
        });
      },
    }));
    const warnings: string[] = [];
    const model = scriptedModel([
      { toolCalls: [long("t1")] },
      { toolCalls: [{ toolName: "mcp__everything__echo", input: { message: "anyone?" }, id: "t2" }] },
      "carried on",
    ]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [mcp(), killer()],
        model,
        mcpServers: { everything: everythingStdio() },
        logger: recordingLogger(warnings),
      }),
    );
    const [during, after] = ofType(messages, "tool_result");
    expect(during!.output.isError).toBe(true);
    expect(during!.output.content).toMatch(
      /^mcp__everything__trigger-long-running-operation did not complete: MCP server "everything" stopped during the run \(its process exited\)/,
    );
    expect(after!.output).toEqual({
      content: expect.stringMatching(
        /^mcp__everything__echo is unavailable: MCP server "everything" stopped during the run \(its process exited\)/,
      ),
      isError: true,
      metadata: {},
    });
    expect(resultOf(messages)).toMatchObject({ subtype: "success", isError: false, result: "carried on" });
    expect(warnings.some((w) => w.includes('MCP server "everything" stopped during the run'))).toBe(true);
    expect(alive(killed[0]!)).toBe(false);
  });
});

describe("abortSignal", () => {
  it("cancels an in-flight MCP call: the call ends at once with an error result and the run ends aborted", async () => {
    const controller = new AbortController();
    const model = scriptedModel([{ toolCalls: [long("t1")] }, "never reached"]);
    const messages: Message[] = [];
    for await (const m of summon("go", {
      presets: [],
      plugins: [mcp()],
      model,
      mcpServers: { everything: everythingStdio() },
      abortSignal: controller.signal,
    })) {
      messages.push(m);
      if (m.type === "tool_use") setTimeout(() => controller.abort(), 200);
    }
    const [result] = ofType(messages, "tool_result");
    expect(result!.output).toMatchObject({
      content: `Cancelled: the run was aborted while ${LONG} was running.`,
      isError: true,
    });
    expect(resultOf(messages)).toMatchObject({ isError: true, result: "Run aborted." });
  });
});
