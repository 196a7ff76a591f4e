/**
 * Resources, prompts, elicitation and progress against server-everything (from npm, over stdio):
 * the same paths as features.test.ts, on a server we did not write.
 */
import { describe, expect, it } from "vitest";
import { summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp, { type McpElicitation } from "ubiquity/plugins/mcp";
import commands from "ubiquity/plugins/commands";
import { collect, ofType, resultOf } from "../helpers/collect";
import { everythingStdio, expectNoServerLeftAfterEachTest } from "./helpers";

expectNoServerLeftAfterEachTest();

const call = (toolName: string, input: Record<string, unknown>, id: string) => ({ toolName, input, id });
const results = (messages: Message[]) =>
  Object.fromEntries(ofType(messages, "tool_result").map((r) => [r.toolUseId, r.output]));
const userText = (model: ReturnType<typeof scriptedModel>, i: number) =>
  JSON.stringify(model.requests[i]!.prompt.filter((m) => m.role === "user"));

describe("server-everything: beyond tools", () => {
  it("resources: listed, read, and mentioned in a prompt", async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          call("ListMcpResources", { server: "everything" }, "list"),
          call("ReadMcpResource", { server: "everything", uri: "demo://resource/dynamic/text/2" }, "read"),
        ],
      },
      "done",
    ]);
    const messages = await collect(
      summon("look at @everything:demo://resource/dynamic/text/1", {
        presets: [],
        plugins: [mcp()],
        model,
        mcpServers: { everything: everythingStdio() },
      }),
    );
    const out = results(messages);
    expect(out.list!.content).toContain(
      "everything:demo://resource/static/document/architecture.md — architecture.md (text/markdown)",
    );
    expect(out.list!.content).toContain("everything:demo://resource/dynamic/text/{resourceId}");
    expect(out.read).toMatchObject({
      isError: false,
      content: expect.stringContaining("[resource demo://resource/dynamic/text/2"),
    });
    expect(userText(model, 0)).toContain(
      "Contents of the MCP resource everything:demo://resource/dynamic/text/1 (mentioned in the prompt)",
    );
  });

  it("prompts: /mcp__everything__args-prompt fills its arguments; a missing one is refused", async () => {
    const model = scriptedModel(["ok"]);
    const messages = await collect(
      summon("/mcp__everything__args-prompt Paris France", {
        presets: [],
        plugins: [mcp(), commands()],
        model,
        mcpServers: { everything: everythingStdio() },
      }),
    );
    expect(resultOf(messages)).toMatchObject({ subtype: "success" });
    expect(userText(model, 0)).toContain("Paris");
    expect(userText(model, 0)).toContain("France");
    const never = scriptedModel(["never"]);
    const refused = await collect(
      summon("/mcp__everything__args-prompt", {
        presets: [],
        plugins: [mcp(), commands()],
        model: never,
        mcpServers: { everything: everythingStdio() },
      }),
    );
    expect(resultOf(refused)).toMatchObject({
      isError: true,
      result: expect.stringContaining("/mcp__everything__args-prompt needs city"),
    });
  });

  it("elicitation: the form and URL requests reach onElicitation; progress arrives as events", async () => {
    const asked: McpElicitation[] = [];
    const events: { type: string }[] = [];
    const spy = {
      name: "spy",
      apply: (kernel: { hooks: { event: { tap(n: string, f: (e: { type: string }) => void): void } } }) =>
        kernel.hooks.event.tap("spy", (e) => void events.push(e)),
    };
    const model = scriptedModel([
      { toolCalls: [call("mcp__everything__trigger-elicitation-request", {}, "form")] },
      {
        toolCalls: [call("mcp__everything__trigger-url-elicitation", { url: "https://example.test/authorize" }, "url")],
      },
      { toolCalls: [call("mcp__everything__trigger-long-running-operation", { duration: 1, steps: 2 }, "long")] },
      "done",
    ]);
    const out = results(
      await collect(
        summon("ask", {
          presets: [],
          plugins: [mcp(), spy as never],
          model,
          mcpServers: { everything: everythingStdio() },
          onElicitation: (request: McpElicitation) => {
            asked.push(request);
            return { action: "decline" };
          },
        }),
      ),
    );
    expect(out.form!.content).toContain("User declined to provide the requested information");
    expect(out.url!.content).toContain("User declined to open the URL");
    expect(asked.map((a) => [a.server, a.mode])).toEqual([
      ["everything", "form"],
      ["everything", "url"],
    ]);
    expect(asked[0]!.requestedSchema).toMatchObject({ type: "object" });
    expect(asked[1]!.url).toBe("https://example.test/authorize");
    expect(out.long).toMatchObject({ isError: false });
    expect(events.filter((e) => e.type === "mcp.progress").length).toBeGreaterThan(0);
  });

  it("elicitation without a handler is declined (nobody can answer it)", async () => {
    const model = scriptedModel([
      { toolCalls: [call("mcp__everything__trigger-elicitation-request", {}, "form")] },
      "done",
    ]);
    const out = results(
      await collect(
        summon("ask", { presets: [], plugins: [mcp()], model, mcpServers: { everything: everythingStdio() } }),
      ),
    );
    expect(out.form!.content).toContain("User declined to provide the requested information");
  });
});
