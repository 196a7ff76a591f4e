/** server-everything over stdio: tools, calls through summon(), results, status, clean-up. */
import { describe, expect, it } from "vitest";
import { createKernel, summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp, { getMcpApi } from "ubiquity/plugins/mcp";
import { collect, ofType, resultOf } from "../helpers/collect";
import { alive, everythingStdio, MARKER, expectNoServerLeftAfterEachTest } from "./helpers";
import { modelLayer } from "../model/helpers";

expectNoServerLeftAfterEachTest();

const call = (toolName: string, input: Record<string, unknown>, id: string) => ({ toolName, input, id });

function run(prompt: string, turns: Parameters<typeof scriptedModel>[0], mcpServers: Record<string, unknown>) {
  const model = scriptedModel(turns);
  return { model, messages: collect(summon(prompt, { presets: [], plugins: [mcp()], model, mcpServers } as never)) };
}

const initOf = (messages: Message[]) => {
  const init = messages[0];
  if (init?.type !== "system" || init.subtype !== "init") throw new Error("first message is not init");
  return init;
};

describe("server-everything over stdio", () => {
  it("connects at kernel.ready and registers each tool as mcp__everything__<tool>, sorted, read-only only by the user's readOnly list", async () => {
    const kernel = createKernel({
      presets: [],
      plugins: [mcp()],
      mcpServers: { everything: { ...everythingStdio(), readOnly: ["get-sum"] } },
    });
    await kernel.ready();
    const [server] = getMcpApi(kernel)!.servers();
    try {
      expect(server).toMatchObject({ name: "everything", transport: "stdio", status: "connected" });
      const names = server!.tools.map((t) => t.name);
      expect(names).toContain("mcp__everything__echo");
      expect(names).toEqual([...names].sort());
      expect(names.every((n) => n.startsWith("mcp__everything__"))).toBe(true);
      // Its tools, then the resource tools (server-everything offers resources).
      expect(
        kernel.registries.tools
          .entries()
          .filter((e) => e.owner === "ubiquity:mcp")
          .map((e) => e.name),
      ).toEqual([...names, "ListMcpResources", "ReadMcpResource"]);
      const tool = (name: string) => server!.tools.find((t) => t.tool === name)!;
      // The server's readOnlyHint is reported, and decides nothing: only the config's list does.
      expect(tool("echo")).toMatchObject({ readOnly: false, readOnlyHint: true });
      expect(tool("get-sum")).toMatchObject({ readOnly: true, readOnlyHint: true });
      expect(tool("toggle-simulated-logging")).toMatchObject({ readOnly: false, readOnlyHint: false });
      expect(kernel.registries.tools.get("mcp__everything__echo")!.jsonSchema).toMatchObject({ required: ["message"] });
      expect(server!.pid).toBeGreaterThan(0);
    } finally {
      await kernel.dispose();
    }
    expect(alive(server!.pid!)).toBe(false); // closed and reaped at kernel.dispose
  });

  it("calls a tool through summon(): a tool_use/tool_result pair, and init lists the server with its tool count", async () => {
    const { model, messages } = run(
      "echo hi",
      [{ toolCalls: [call("mcp__everything__echo", { message: "hi" }, "t1")] }, "done"],
      {
        everything: everythingStdio(),
      },
    );
    const all = await messages;
    const init = initOf(all);
    expect(init.extra.mcpServers).toEqual([
      { name: "everything", status: "connected", tools: init.tools.filter((n) => n.startsWith("mcp__")).length },
    ]);
    expect(ofType(all, "tool_use")).toEqual([
      expect.objectContaining({ toolName: "mcp__everything__echo", toolInput: { message: "hi" }, toolUseId: "t1" }),
    ]);
    expect(ofType(all, "tool_result")).toEqual([
      expect.objectContaining({
        toolUseId: "t1",
        output: { content: "Echo: hi", isError: false, metadata: { mcpServer: "everything", mcpTool: "echo" } },
      }),
    ]);
    expect(resultOf(all)).toMatchObject({ subtype: "success", result: "done" });
    // The model was offered the server's own schema.
    const offered = model.requests[0]!.tools!.find((t) => t.name === "mcp__everything__echo") as {
      inputSchema: unknown;
      description?: string;
    };
    expect(offered.inputSchema).toEqual({
      type: "object",
      properties: { message: { type: "string", description: "Message to echo" } },
      required: ["message"],
    });
    // Verbatim, plus the server's read-only claim, which the model reads and the engine does not.
    expect(offered.description).toBe(
      "Echoes back the input string\n\n(Its server marks this tool read-only. That is the server's own claim: plan mode does not run it unless the user's config lists it as read-only.)",
    );
  });

  it("describes images, embedded resources and resource links, and marks the server's isError results", async () => {
    const { messages } = run(
      "show",
      [
        {
          toolCalls: [
            call("mcp__everything__get-tiny-image", {}, "img"),
            call("mcp__everything__get-resource-reference", { resourceType: "Text", resourceId: 1 }, "res"),
            call("mcp__everything__get-resource-links", { count: 2 }, "links"),
            call("mcp__everything__gzip-file-as-resource", { name: "x.gz", data: "ftp://example.test/x" }, "err"),
          ],
        },
        "done",
      ],
      { everything: everythingStdio() },
    );
    const results = Object.fromEntries(ofType(await messages, "tool_result").map((r) => [r.toolUseId, r.output]));
    expect(results.img!.isError).toBe(false);
    expect(results.img!.content).toMatch(/\[image image\/png, [\d.]+ (B|KB): returned by the tool, not shown here\]/);
    expect(results.res!.isError).toBe(false);
    expect(results.res!.content).toMatch(
      /\[resource demo:\/\/resource\/dynamic\/text\/1 \(text\/plain\)\]\nResource 1: This is a plaintext resource/,
    );
    expect(results.links!.content).toMatch(
      /\[resource link Text Resource 2 <demo:\/\/resource\/dynamic\/text\/2> \(text\/plain\): Resource 2: plaintext resource\]/,
    );
    expect(results.err!.isError).toBe(true);
    expect(results.err!.content).toMatch(/Unsupported URL protocol/);
  });

  it("attaches an image result for a model that sees images (the tool_result text says so and keeps no base64)", async () => {
    const model = scriptedModel([{ toolCalls: [call("mcp__everything__get-tiny-image", {}, "img")] }, "a tiny image"], {
      modelId: "vision",
    });
    const options = {
      presets: [],
      plugins: [...modelLayer().plugins, mcp()],
      model,
      mcpServers: { everything: everythingStdio() },
      modelCapabilities: { "scripted:vision": { images: true } },
    };
    const messages = await collect(summon("show", options as never));
    const [result] = ofType(messages, "tool_result");
    expect(result!.output.content).toMatch(/\[image image\/png, [\d.]+ (B|KB): attached to this result\]/);
    const sent = (model.requests[1]!.prompt as Array<{ role: string; content: unknown }>).filter(
      (m) => m.role === "tool",
    );
    const data = JSON.stringify(sent).match(/"data":"([A-Za-z0-9+/=]{40,})"/)?.[1];
    expect(data, JSON.stringify(sent).slice(0, 400)).toBeDefined();
    expect(Buffer.from(data!, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(JSON.stringify(result)).not.toContain(data!.slice(0, 40));
  });

  it("refuses input that breaks the server's JSON Schema before the server sees it", async () => {
    const { messages } = run(
      "echo",
      [{ toolCalls: [call("mcp__everything__echo", { text: "wrong key" }, "t1")] }, "ok"],
      {
        everything: everythingStdio(),
      },
    );
    const [result] = ofType(await messages, "tool_result");
    expect(result!.output.isError).toBe(true);
    expect(result!.output.content).toMatch(
      /^Invalid arguments for mcp__everything__echo: .*must have required property 'message'/s,
    );
  });

  it("keeps the tool block byte-stable: servers sorted by name, tools by name, whatever the config order", async () => {
    const a = run("x", ["ok"], { zeta: everythingStdio(), alpha: everythingStdio() });
    await a.messages;
    const b = run("x", ["ok"], { alpha: everythingStdio(), zeta: everythingStdio() });
    await b.messages;
    const block = (m: typeof a.model) => JSON.stringify(m.requests[0]!.tools);
    expect(block(a.model)).toBe(block(b.model));
    const names = a.model.requests[0]!.tools!.map((t) => t.name);
    expect(names.indexOf("mcp__alpha__trigger-long-running-operation")).toBeLessThan(names.indexOf("mcp__zeta__echo"));
    // The servers' tools sorted, then the resource tools.
    expect(names.slice(-2)).toEqual(["ListMcpResources", "ReadMcpResource"]);
    expect(names.slice(0, -2)).toEqual([...names.slice(0, -2)].sort());
  });

  it("reports a server whose command does not exist as failed, and the run still succeeds", async () => {
    const { messages } = run(
      "echo",
      [{ toolCalls: [call("mcp__everything__echo", { message: "still here" }, "t1")] }, "done"],
      {
        everything: everythingStdio(),
        ghost: { command: `ubiquity-no-such-server-${MARKER}` },
      },
    );
    const all = await messages;
    expect(initOf(all).extra.mcpServers).toEqual([
      { name: "everything", status: "connected", tools: expect.any(Number) },
      {
        name: "ghost",
        status: "failed",
        error: expect.stringMatching(
          /failed to start: command not found: ubiquity-no-such-server-.* \(check mcpServers\.ghost\.command and PATH\)/,
        ),
      },
    ]);
    expect(initOf(all).tools.some((t) => t.startsWith("mcp__ghost__"))).toBe(false);
    expect(ofType(all, "tool_result")[0]!.output).toMatchObject({ content: "Echo: still here", isError: false });
    expect(resultOf(all)).toMatchObject({ subtype: "success", isError: false });
  });
});
