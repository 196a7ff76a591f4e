/**
 * The texts a failing server turns into, word for word: a tool call past toolTimeoutMs, a server
 * that never answers the handshake, one that exits while listing its tools, and a JSON-RPC error
 * in place of a result (`MCP error <code>: <message>`, as the MCP SDK 1.x worded it). Also the
 * environment a stdio server starts with.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { withEnv } from "../helpers/env";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp from "ubiquity/plugins/mcp";
import { isPassedName } from "../../plugins/_kits/process/index";
import { collect, ofType, resultOf } from "../helpers/collect";
import { everythingStdio, expectNoServerLeftAfterEachTest, MARKER } from "./helpers";

expectNoServerLeftAfterEachTest();

const ODD = fileURLToPath(new URL("./fixtures/odd-server.mjs", import.meta.url));
const odd = (mode: string) => ({ command: process.execPath, args: [ODD, mode, MARKER] });
const initOf = (messages: Awaited<ReturnType<typeof collect>>) =>
  ofType(messages, "system").find((m) => m.subtype === "init") as unknown as {
    mcpServers?: unknown;
    extra: { mcpServers: unknown };
  };

describe("MCP failure texts", () => {
  it("a call past toolTimeoutMs ends with the timeout text that names the option", async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { toolName: "mcp__everything__trigger-long-running-operation", input: { duration: 60, steps: 2 }, id: "t1" },
        ],
      },
      "done",
    ]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [mcp({ toolTimeoutMs: 1000 })],
        model,
        mcpServers: { everything: everythingStdio() },
      }),
    );
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({
      content:
        "mcp__everything__trigger-long-running-operation timed out after 1s (raise toolTimeoutMs in the ubiquity:mcp plugin options for slow tools).",
      isError: true,
    });
    expect(resultOf(messages)).toMatchObject({ subtype: "success" });
  });

  it("a server that never answers the handshake, and one that exits while listing its tools, fail to start", async () => {
    const statuses = async (connectTimeoutMs: number, mcpServers: Record<string, ReturnType<typeof odd>>) => {
      const messages = await collect(
        summon("go", { presets: [], plugins: [mcp({ connectTimeoutMs })], model: scriptedModel(["done"]), mcpServers }),
      );
      expect(resultOf(messages)).toMatchObject({ subtype: "success" });
      return initOf(messages).extra.mcpServers;
    };
    expect(await statuses(1000, { quiet: odd("silent") })).toEqual([
      {
        name: "quiet",
        status: "failed",
        error:
          "failed to start: no answer within 1s (check that mcpServers.quiet speaks MCP over stdio, or raise connectTimeoutMs)",
      },
    ]);
    // The default 30 s: a loaded machine may take more than a second to start a Node server.
    expect(await statuses(30_000, { quitter: odd("exit-on-list") })).toEqual([
      {
        name: "quitter",
        status: "failed",
        error: "failed to start: its process exited before it finished the MCP handshake",
      },
    ]);
  });

  it("a tools/list answer that breaks the MCP schema is one line naming the first problem, not screens of JSON", async () => {
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [mcp()],
        model: scriptedModel(["done"]),
        mcpServers: { bad: odd("bad-schema") },
      }),
    );
    expect(initOf(messages).extra.mcpServers).toEqual([
      {
        name: "bad",
        status: "failed",
        error:
          'failed to start: the server\'s answer to tools/list does not follow the MCP schema: tools[0].inputSchema.type: Invalid input: expected "object" (and 2 more like it); the server needs fixing (or another version of it)',
      },
    ]);
    // The same list as system/init's typed top-level field.
    expect(initOf(messages).mcpServers).toEqual(initOf(messages).extra.mcpServers);
  });

  it("a JSON-RPC error from the server reads `MCP error <code>: <message>`; the server's environment is the allow-list", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__odd__boom", input: {}, id: "t1" }] },
      { toolCalls: [{ toolName: "mcp__odd__env", input: {}, id: "t2" }] },
      { toolCalls: [{ toolName: "mcp__odd__pair", input: { pair: ["a", 1] }, id: "t3" }] },
      { toolCalls: [{ toolName: "mcp__odd__pair", input: { pair: [1, "a"] }, id: "t4" }] },
      "done",
    ]);
    // LOGNAME and USER are often unset in CI containers: set them, and one variable off the list.
    const LOGNAME = process.env.LOGNAME ?? "ubiquity-logname";
    const USER = process.env.USER ?? "ubiquity-user";
    const messages = await withEnv({ LOGNAME, USER, MCP_TEST_OFF_LIST: "1" }, () =>
      collect(
        summon("go", {
          presets: [],
          plugins: [mcp()],
          model,
          mcpServers: { odd: { ...odd("rpc-error"), env: { FROM_CONFIG: "1" } } },
        }),
      ),
    );
    const [boom, env, pairBad, pairGood] = ofType(messages, "tool_result");
    expect(boom!.output).toMatchObject({
      content: 'mcp__odd__boom failed on MCP server "odd": MCP error -32602: boom is not allowed here',
      isError: true,
    });
    const seen = JSON.parse(String(env!.output.content)) as Record<string, string>;
    // The server's draft-07 tuple schema is checked as 1.x did, before the server sees the call.
    expect(pairBad!.output).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Invalid arguments for mcp__odd__pair/),
    });
    expect(pairGood!.output).toMatchObject({ isError: false, content: 'got {"pair":[1,"a"]}' });
    const expected: Record<string, string> = {
      FROM_CONFIG: "1",
      LOGNAME,
      USER,
    };
    for (const key of ["HOME", "PATH", "SHELL", "TERM", "LANG", "TMPDIR"])
      if (process.env[key] !== undefined) expected[key] = process.env[key]!;
    expect(seen).toMatchObject(expected);
    expect(seen.MCP_TEST_OFF_LIST).toBeUndefined();
    // PYTHONSAFEPATH: set by the SDK, no variable of ours (red team p, P1).
    expect(seen.PYTHONSAFEPATH).toBe("1");
    expect(Object.keys(seen).filter((k) => !["FROM_CONFIG", "PYTHONSAFEPATH"].includes(k) && !isPassedName(k))).toEqual(
      [],
    );
  });
});
