/** server-everything over streamable HTTP (and SSE), bound to 127.0.0.1. */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createServer } from "node:net";
import { summon } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp from "ubiquity/plugins/mcp";
import { collect, ofType, resultOf } from "../helpers/collect";
import { alive, MARKER, processesWith, startEverythingHttp, type HttpServer } from "./helpers";

let http: HttpServer;
let sse: HttpServer;

beforeAll(async () => {
  [http, sse] = await Promise.all([startEverythingHttp("streamableHttp"), startEverythingHttp("sse")]);
});
afterAll(async () => {
  await Promise.all([http?.stop(), sse?.stop()]);
  expect(processesWith(MARKER)).toEqual([]);
});

/** A loopback port nothing listens on (it was free a moment ago). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function echoOver(server: Record<string, unknown>) {
  const model = scriptedModel([
    { toolCalls: [{ toolName: "mcp__remote__echo", input: { message: "over the wire" }, id: "t1" }] },
    "done",
  ]);
  return collect(summon("echo", { presets: [], plugins: [mcp()], model, mcpServers: { remote: server } } as never));
}

describe("server-everything over HTTP on 127.0.0.1", () => {
  it("listens on the loopback interface only", () => {
    expect(http.host).toBe("127.0.0.1");
    expect(sse.host).toBe("127.0.0.1");
  });

  it("streamable HTTP: lists the tools in init, calls one through summon(), ends its session at dispose", async () => {
    const messages = await echoOver({ type: "http", url: http.url });
    const init = messages[0]!;
    expect(init.type === "system" && init.subtype === "init" && init.extra.mcpServers).toEqual([
      { name: "remote", status: "connected", tools: expect.any(Number) },
    ]);
    expect(init.type === "system" && init.subtype === "init" && init.tools).toContain("mcp__remote__echo");
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({
      content: "Echo: over the wire",
      isError: false,
    });
    expect(resultOf(messages)).toMatchObject({ subtype: "success" });
    expect(alive(http.child.pid!)).toBe(true); // a remote server is not ours to stop
    // ...but its session is: kernel.dispose ended it (DELETE), so the server freed it.
    // The server says so on its stdout, which may reach this process after the DELETE's answer.
    await vi.waitFor(() => expect(http.stdout()).toMatch(/Transport closed for session [0-9a-f-]+/));
  });

  it("SSE: the same call over the older transport", async () => {
    const messages = await echoOver({ type: "sse", url: sse.url });
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({
      content: "Echo: over the wire",
      isError: false,
    });
  });

  it("reports an unreachable server as failed and the run succeeds", async () => {
    const messages = await echoOver({ type: "http", url: `http://127.0.0.1:${await closedPort()}/mcp` });
    const init = messages[0]!;
    expect(init.type === "system" && init.subtype === "init" && init.extra.mcpServers).toEqual([
      { name: "remote", status: "failed", error: expect.stringMatching(/^failed to start: .*ECONNREFUSED/) },
    ]);
    // The model still called the tool: it hears the tool is unknown, and the run ends normally.
    expect(ofType(messages, "tool_result")[0]!.output.isError).toBe(true);
    expect(resultOf(messages)).toMatchObject({ subtype: "success" });
  });

  it("over streamable HTTP: a resource mention, a prompt command and a form elicitation work as over stdio", async () => {
    const { default: commands } = await import("ubiquity/plugins/commands");
    const asked: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__remote__trigger-elicitation-request", input: {}, id: "e" }] },
      "done",
    ]);
    const messages = await collect(
      summon("/mcp__remote__simple-prompt", {
        presets: [],
        plugins: [mcp(), commands()],
        model,
        mcpServers: { remote: { type: "http", url: http.url } },
        onElicitation: (request) => {
          asked.push(request.mode);
          return { action: "decline" };
        },
      }),
    );
    expect(resultOf(messages)).toMatchObject({ subtype: "success" });
    expect(asked).toEqual(["form"]);
    expect(ofType(messages, "tool_result")[0]!.output.content).toContain("User declined");
    const read = scriptedModel(["ok"]);
    await collect(
      summon("see @remote:demo://resource/dynamic/text/3", {
        presets: [],
        plugins: [mcp()],
        model: read,
        mcpServers: { remote: { type: "http", url: http.url } },
      }),
    );
    expect(JSON.stringify(read.requests[0]!.prompt)).toContain(
      "Contents of the MCP resource remote:demo://resource/dynamic/text/3",
    );
  });
});
