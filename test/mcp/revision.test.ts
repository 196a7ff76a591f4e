/**
 * Protocol revisions: a 2026-07-28 server (hand-written, test/helpers/modern-mcp-server: no
 * installed SDK serves that revision) and 2025 servers (server-everything over streamable HTTP and
 * stdio) in the same run, each negotiated to its own revision; a 2026-07-28 connection ends
 * without the 2025 DELETE; the Tasks extension's long-running tool calls are polled to their
 * result and cancelled when the run is aborted.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKernel, summon, type Message } from "ubiquity";
import { scriptedModel } from "ubiquity/testing";
import mcp, { getMcpApi } from "ubiquity/plugins/mcp";
import { collect, ofType, resultOf } from "../helpers/collect";
import { startModernServer, type ModernServer } from "../helpers/modern-mcp-server";
import { everythingStdio, MARKER, processesWith, startEverythingHttp, type HttpServer } from "./helpers";

const MODERN_STDIO = fileURLToPath(new URL("./fixtures/modern-stdio-server.mjs", import.meta.url));
const modernStdio = { command: process.execPath, args: [MODERN_STDIO, MARKER] };
let modern: ModernServer;
let legacy: HttpServer;
beforeAll(async () => {
  [modern, legacy] = await Promise.all([startModernServer(), startEverythingHttp("streamableHttp")]);
});
afterAll(async () => {
  await Promise.all([modern?.close(), legacy?.stop()]);
  expect(processesWith(MARKER)).toEqual([]); // the stdio servers were reaped too
});

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** Resolves once `check` holds (looked at every few ms; the test's own timeout bounds it). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}

describe("version negotiation (protocol: auto, the default)", () => {
  it("speaks 2026-07-28 to a server of that revision and the 2025 handshake to the others, in one run", async () => {
    modern.seen.length = 0;
    const kernel = createKernel({
      presets: [],
      plugins: [mcp()],
      logger: quiet,
      mcpServers: {
        modern: { type: "http", url: modern.url },
        legacy: { type: "http", url: legacy.url },
        stdio: everythingStdio(),
        modernStdio,
      },
    });
    await kernel.ready();
    const report = getMcpApi(kernel)!.servers();
    await kernel.dispose();
    const by = Object.fromEntries(report.map((s) => [s.name, s]));
    expect(by.modern).toMatchObject({ status: "connected", protocolVersion: "2026-07-28" });
    expect(by.modern!.tools.map((t) => t.tool)).toEqual(["echo", "slow"]);
    expect(by.legacy).toMatchObject({ status: "connected", protocolVersion: expect.stringMatching(/^2025-/) });
    expect(by.stdio).toMatchObject({ status: "connected", protocolVersion: expect.stringMatching(/^2025-/) });
    expect(by.modernStdio).toMatchObject({ status: "connected", protocolVersion: "2026-07-28" });
    // The modern server: discover first, never initialize, every request stamped with the revision, no session.
    const posts = modern.seen.filter((r) => r.httpMethod === "POST");
    expect(posts[0]!.method).toBe("server/discover");
    expect(posts.map((r) => r.method)).not.toContain("initialize");
    expect(posts.map((r) => r.method)).toContain("tools/list");
    for (const r of posts) expect(r.headers["mcp-protocol-version"]).toBe("2026-07-28");
    expect(modern.seen.some((r) => r.headers["mcp-session-id"] !== undefined)).toBe(false);
    // Ending the connection: no 2025-style DELETE to the stateless server; the 2025 session was ended with one.
    expect(modern.seen.filter((r) => r.httpMethod === "DELETE")).toEqual([]);
    expect(legacy.stdout()).toMatch(/Transport closed for session [0-9a-f-]+/);
  });

  it("calls tools on both revisions (HTTP and stdio) through summon()", async () => {
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__modern__echo", input: { message: "new" }, id: "t1" }] },
      { toolCalls: [{ toolName: "mcp__legacy__echo", input: { message: "old" }, id: "t2" }] },
      { toolCalls: [{ toolName: "mcp__modernStdio__echo", input: { message: "piped" }, id: "t3" }] },
      "done",
    ]);
    const mcpServers = {
      modern: { type: "http" as const, url: modern.url },
      legacy: { type: "http" as const, url: legacy.url },
      modernStdio,
    };
    const messages = await collect(summon("go", { presets: [], plugins: [mcp()], model, mcpServers }));
    const outputs = ofType(messages, "tool_result").map((r) => r.output as { content: string; isError: boolean });
    expect(outputs[0]).toMatchObject({ content: "echo: new", isError: false });
    expect(outputs[1]).toMatchObject({ content: "Echo: old", isError: false });
    expect(outputs[2]).toMatchObject({ content: "stdio echo: piped", isError: false });
  });

  it("protocol: 2026-07-28 refuses a 2025 server; protocol: legacy cannot reach a 2026-07-28-only server", async () => {
    const statuses = async (protocol: "2026-07-28" | "legacy", url: string) => {
      const kernel = createKernel({
        presets: [],
        plugins: [mcp({ protocol, connectTimeoutMs: 10_000 })],
        logger: quiet,
        mcpServers: { s: { type: "http", url } },
      });
      await kernel.ready();
      const [server] = getMcpApi(kernel)!.servers();
      await kernel.dispose();
      return server!;
    };
    const pinned = await statuses("2026-07-28", legacy.url);
    expect(pinned.status).toBe("failed");
    expect(pinned.error).toMatch(/^failed to start: .*2026-07-28/);
    const old = await statuses("legacy", modern.url);
    expect(old.status).toBe("failed");
    expect(old.error).toContain("initialize");
    expect((await statuses("2026-07-28", modern.url)).protocolVersion).toBe("2026-07-28");
  });
});

describe("the Tasks extension (2026-07-28)", () => {
  it("a tool call answered with a task is polled to its result", async () => {
    modern.seen.length = 0;
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__modern__slow", input: { polls: 3 }, id: "t1" }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", { presets: [], plugins: [mcp()], model, mcpServers: { modern: { type: "http", url: modern.url } } }),
    );
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({ content: "done after 3 polls", isError: false });
    const call = modern.seen.find((r) => r.method === "tools/call")!;
    expect(call.params?._meta?.["io.modelcontextprotocol/clientCapabilities"]?.extensions).toHaveProperty([
      "io.modelcontextprotocol/tasks",
    ]);
    const polls = modern.seen.filter((r) => r.method === "tasks/get");
    expect(polls).toHaveLength(3);
    const [taskId] = [...modern.tasks.values()].filter((t) => t.status === "completed").map((t) => t.taskId);
    for (const p of polls) {
      expect(p.params!.taskId).toBe(taskId);
      expect(p.headers["mcp-name"]).toBe(taskId); // routed to the server holding the task
      expect(p.headers["mcp-protocol-version"]).toBe("2026-07-28");
    }
  });

  it("aborting the run cancels the task (tasks/cancel) and the call ends cancelled", async () => {
    modern.seen.length = 0;
    const controller = new AbortController();
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__modern__slow", input: { hang: true }, id: "t1" }] },
      "never reached",
    ]);
    const messages: Message[] = [];
    const run = (async () => {
      for await (const m of summon("go", {
        presets: [],
        plugins: [mcp()],
        model,
        mcpServers: { modern: { type: "http", url: modern.url } },
        abortSignal: controller.signal,
      }))
        messages.push(m);
    })();
    await until(() => modern.seen.some((r) => r.method === "tasks/get"));
    controller.abort();
    await run;
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({
      content: "Cancelled: the run was aborted while mcp__modern__slow was running.",
      isError: true,
    });
    expect(resultOf(messages)).toMatchObject({ isError: true, result: "Run aborted." });
    const cancel = modern.seen.find((r) => r.method === "tasks/cancel");
    expect(cancel).toBeDefined();
    expect(modern.tasks.get(cancel!.params!.taskId!)?.status).toBe("cancelled");
  });

  it("a task that outlasts toolTimeoutMs is cancelled and the call says it timed out", async () => {
    modern.seen.length = 0;
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__modern__slow", input: { hang: true }, id: "t1" }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", {
        presets: [],
        plugins: [mcp({ toolTimeoutMs: 300 })],
        model,
        mcpServers: { modern: { type: "http", url: modern.url } },
      }),
    );
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({
      content: expect.stringContaining("mcp__modern__slow timed out after"),
      isError: true,
    });
    const cancel = modern.seen.find((r) => r.method === "tasks/cancel");
    expect(cancel).toBeDefined();
    expect(modern.tasks.get(cancel!.params!.taskId!)?.status).toBe("cancelled");
  });

  it("a task that asks for input is cancelled, and the call fails saying why", async () => {
    modern.seen.length = 0;
    const model = scriptedModel([
      { toolCalls: [{ toolName: "mcp__modern__slow", input: { ask: true }, id: "t1" }] },
      "done",
    ]);
    const messages = await collect(
      summon("go", { presets: [], plugins: [mcp()], model, mcpServers: { modern: { type: "http", url: modern.url } } }),
    );
    expect(ofType(messages, "tool_result")[0]!.output).toMatchObject({
      content: expect.stringContaining("the task asked for input (input_required)"),
      isError: true,
    });
    const cancel = modern.seen.find((r) => r.method === "tasks/cancel");
    expect(modern.tasks.get(cancel!.params!.taskId!)?.status).toBe("cancelled");
  });
});
