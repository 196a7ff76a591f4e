/**
 * A server of MCP revision 2026-07-28 only, over streamable HTTP on 127.0.0.1, written by hand
 * (no installed SDK serves this revision): stateless JSON-RPC over POST, `server/discover`, every
 * request checked for the `_meta` protocol-version envelope, no sessions (GET and DELETE answer
 * 405), `initialize` unknown. Tools: `echo`, and `slow`, which becomes a task (the Tasks
 * extension) when the request declares the extension: the task completes after `polls` polls of
 * `tasks/get` (or never, with `hang`), and `tasks/cancel` cancels it. It records what arrived.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

const REVISION = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";

/** The params of the requests this server reads (the `_meta` envelope, a tool call, a task id). */
export interface ModernParams {
  _meta?: {
    "io.modelcontextprotocol/protocolVersion"?: string;
    "io.modelcontextprotocol/clientCapabilities"?: { extensions?: Record<string, unknown> };
  };
  name?: string;
  arguments?: Record<string, unknown>;
  taskId?: string;
}

export interface ModernRequest {
  httpMethod: string;
  method?: string;
  headers: IncomingMessage["headers"];
  params?: ModernParams;
}

interface TaskState {
  taskId: string;
  status: "working" | "completed" | "cancelled" | "input_required";
  pollsLeft: number;
  hang: boolean;
  /** Ask the client for input (an elicitation) at the first poll. */
  ask: boolean;
  text: string;
  createdAt: string;
}

export interface ModernServer {
  url: string;
  seen: ModernRequest[];
  tasks: Map<string, TaskState>;
  close(): Promise<void>;
}

const tools = [
  {
    name: "echo",
    description: "Echo the message",
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
  },
  {
    name: "slow",
    description: "A long job: runs as a task",
    inputSchema: {
      type: "object",
      properties: { polls: { type: "number" }, hang: { type: "boolean" }, ask: { type: "boolean" } },
    },
    execution: { taskSupport: "optional" },
  },
];

export async function startModernServer(): Promise<ModernServer> {
  const seen: ModernRequest[] = [];
  const tasks = new Map<string, TaskState>();
  const server = createServer(async (req, res) => {
    const record: ModernRequest = { httpMethod: req.method ?? "", headers: req.headers };
    seen.push(record);
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
    let text = "";
    for await (const chunk of req) text += String(chunk);
    const message = JSON.parse(text) as { id?: string | number; method?: string; params?: ModernParams };
    record.method = message.method;
    record.params = message.params;
    if (message.id === undefined) return void res.writeHead(202).end();
    const reply = (body: Record<string, unknown>) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...body }));
    const result = (value: Record<string, unknown>) => reply({ result: { resultType: "complete", ...value } });
    const error = (code: number, text: string, data?: unknown) =>
      reply({ error: { code, message: text, ...(data ? { data } : {}) } });
    const meta = message.params?._meta ?? {};
    if (message.method === "initialize")
      return error(-32601, "Method not found: initialize (this server speaks 2026-07-28 only)");
    if (meta["io.modelcontextprotocol/protocolVersion"] !== REVISION) {
      return error(-32022, "Unsupported protocol version", {
        supported: [REVISION],
        requested: meta["io.modelcontextprotocol/protocolVersion"] ?? null,
      });
    }
    const declaresTasks = Boolean(meta["io.modelcontextprotocol/clientCapabilities"]?.extensions?.[TASKS]);
    const now = new Date().toISOString();
    const taskView = (t: TaskState) => ({
      taskId: t.taskId,
      status: t.status,
      createdAt: t.createdAt,
      lastUpdatedAt: now,
      ttlMs: 60_000,
      pollIntervalMs: 10,
      ...(t.status === "completed" ? { result: { content: [{ type: "text", text: t.text }], isError: false } } : {}),
      ...(t.status === "input_required"
        ? {
            inputRequests: {
              name: {
                method: "elicitation/create",
                params: {
                  mode: "form",
                  message: "Your name?",
                  requestedSchema: { type: "object", properties: { name: { type: "string" } } },
                },
              },
            },
          }
        : {}),
    });
    switch (message.method) {
      case "server/discover":
        return result({
          supportedVersions: [REVISION],
          capabilities: { tools: {}, extensions: { [TASKS]: {} } },
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "1.0.0" } },
        });
      case "tools/list":
        // A listing carries its freshness (ttlMs, cacheScope) in this revision.
        return result({ tools, ttlMs: 0, cacheScope: "private" });
      case "tools/call": {
        const { name, arguments: args = {} } = message.params ?? {};
        if (name === "echo") return result({ content: [{ type: "text", text: `echo: ${String(args.message)}` }] });
        if (name !== "slow") return error(-32602, `Unknown tool: ${String(name)}`);
        if (!declaresTasks)
          return error(-32021, "Missing required client capability", {
            requiredCapabilities: { extensions: { [TASKS]: {} } },
          });
        const task: TaskState = {
          taskId: randomUUID(),
          status: "working",
          pollsLeft: Number(args.polls ?? 3),
          hang: Boolean(args.hang),
          ask: Boolean(args.ask),
          text: `done after ${Number(args.polls ?? 3)} polls`,
          createdAt: now,
        };
        tasks.set(task.taskId, task);
        return reply({ result: { resultType: "task", ...taskView(task) } });
      }
      case "tasks/get": {
        if (!declaresTasks) return error(-32021, "Missing required client capability");
        const task = tasks.get(message.params?.taskId ?? "");
        if (!task) return error(-32602, "Failed to retrieve task: Task not found");
        if (task.status === "working" && task.ask) task.status = "input_required";
        else if (task.status === "working" && !task.hang && --task.pollsLeft <= 0) task.status = "completed";
        return result(taskView(task));
      }
      case "tasks/cancel": {
        const task = tasks.get(message.params?.taskId ?? "");
        if (!task) return error(-32602, "Task not found");
        if (task.status === "working" || task.status === "input_required") task.status = "cancelled";
        return result({});
      }
      default:
        return error(-32601, `Method not found: ${String(message.method)}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    seen,
    tasks,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
