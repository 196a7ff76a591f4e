/**
 * The Tasks extension of revision 2026-07-28 (`io.modelcontextprotocol/tasks`): a server may
 * answer a `tools/call` with a task (`resultType: "task"`) instead of the result, and the client
 * polls `tasks/get` until the task is terminal. The SDK does not speak it, so this sits on the
 * transport, under the SDK's client: on a 2026-07-28 `tools/call` it declares the extension in the
 * request's capabilities; when the answer is a task it keeps that answer from the client, polls
 * (at the server's `pollIntervalMs`), and hands the client the task's final result (or its
 * JSON-RPC error) as the answer to the original call. When the client gives up on the call (the
 * run was aborted, or the tool timed out) the task is cancelled with `tasks/cancel`.
 *
 * A task that asks for input (`input_required`) is cancelled and the call fails naming why:
 * nothing answers a task's input requests here.
 */
import type { JSONRPCMessage, Transport, TransportSendOptions } from "@modelcontextprotocol/client";
import { MODERN_REVISION } from "./revision";

/** The extension's identifier. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

/** Poll no faster than this, and no slower, whatever the server suggests [ms]. */
const MIN_POLL_MS = 10;
const MAX_POLL_MS = 30_000;
/** When the server suggests no interval [ms]. */
const DEFAULT_POLL_MS = 1000;

type Id = string | number;
type Meta = Record<string, unknown>;
interface Pending {
  /** The `_meta` of the original call (its protocol envelope), reused on the task requests. */
  meta: Meta;
  taskId?: string;
  /** True once the client gave up on the call. */
  abandoned: boolean;
  timer?: NodeJS.Timeout;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Polls tasks for one transport. */
class TaskPoller {
  #calls = new Map<Id, Pending>();
  /** Our own requests (tasks/get, tasks/cancel) by id, to the call they serve. */
  #own = new Map<string, { call: Id; method: string }>();
  #next = 0;
  /** tasks/cancel requests on their way: closing waits for them (briefly), so the server hears. */
  #cancelling = new Set<Promise<void>>();
  #deliver: ((message: JSONRPCMessage, extra?: unknown) => void) | undefined;

  constructor(
    private readonly send: (message: JSONRPCMessage, options?: TransportSendOptions) => Promise<void>,
    private readonly onError: (error: Error) => void,
  ) {}

  setDeliver(deliver: ((message: JSONRPCMessage, extra?: unknown) => void) | undefined) {
    this.#deliver = deliver;
  }

  /** An outgoing message: a 2026-07-28 tools/call declares the extension and is remembered. */
  outgoing(message: JSONRPCMessage, options: TransportSendOptions | undefined): JSONRPCMessage {
    if (!("method" in message)) return message;
    if (message.method === "notifications/cancelled" && isObject(message.params)) {
      const id = message.params.requestId as Id;
      if (this.#calls.has(id)) this.#abandon(id);
      return message;
    }
    if (message.method !== "tools/call" || !("id" in message)) return message;
    const meta = isObject(message.params?._meta) ? (message.params._meta as Meta) : undefined;
    if (meta?.[PROTOCOL_VERSION_KEY] !== MODERN_REVISION) return message;
    const capabilities = isObject(meta[CLIENT_CAPABILITIES_KEY]) ? meta[CLIENT_CAPABILITIES_KEY] : {};
    const extensions = isObject(capabilities.extensions) ? capabilities.extensions : {};
    const declared = {
      ...meta,
      [CLIENT_CAPABILITIES_KEY]: { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } },
    };
    const id = message.id;
    this.#calls.set(id, { meta: declared, abandoned: false });
    options?.requestSignal?.addEventListener("abort", () => this.#abandon(id), { once: true });
    return { ...message, params: { ...message.params, _meta: declared } } as JSONRPCMessage;
  }

  /** An incoming message: false when it was ours (a task answer, or an answer to our own request). */
  incoming(message: JSONRPCMessage): boolean {
    if (!("id" in message) || "method" in message || message.id === undefined) return true;
    const id: Id = message.id;
    const own = typeof message.id === "string" ? this.#own.get(message.id) : undefined;
    if (own) {
      this.#own.delete(message.id as string);
      if (own.method === "tasks/get") this.#onTaskState(own.call, message);
      return false;
    }
    const pending = this.#calls.get(id);
    if (!pending) return true;
    const result = "result" in message && isObject(message.result) ? message.result : undefined;
    if (result?.resultType !== "task" || typeof result.taskId !== "string") {
      this.#calls.delete(id);
      return true;
    }
    pending.taskId = result.taskId;
    if (pending.abandoned) {
      this.#cancel(id, pending);
      return false;
    }
    this.#after(id, pending, result.pollIntervalMs);
    return false;
  }

  /** Stop everything (the transport closed). */
  close() {
    for (const pending of this.#calls.values()) clearTimeout(pending.timer);
    this.#calls.clear();
    this.#own.clear();
  }

  #after(call: Id, pending: Pending, interval: unknown) {
    const ms =
      typeof interval === "number" && Number.isFinite(interval)
        ? Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, interval))
        : DEFAULT_POLL_MS;
    pending.timer = setTimeout(() => this.#request(call, pending, "tasks/get"), ms);
  }

  #request(call: Id, pending: Pending, method: "tasks/get" | "tasks/cancel") {
    if (method === "tasks/get" && pending.abandoned) return;
    const id = `ubiquity-task-${++this.#next}`;
    this.#own.set(id, { call, method });
    const message = {
      jsonrpc: "2.0",
      id,
      method,
      params: { taskId: pending.taskId, _meta: pending.meta },
    } as JSONRPCMessage;
    const sent = this.send(message, { headers: { "Mcp-Name": pending.taskId! } }).catch((error: unknown) => {
      this.#own.delete(id);
      if (method === "tasks/get")
        this.#finish(call, {
          code: -32603,
          message: `polling task ${pending.taskId} failed: ${error instanceof Error ? error.message : String(error)}`,
        });
      else this.onError(error instanceof Error ? error : new Error(String(error)));
    });
    if (method === "tasks/cancel") {
      this.#cancelling.add(sent);
      void sent.finally(() => this.#cancelling.delete(sent));
    }
  }

  /** Wait (at most `ms`) for the cancellations still being sent. */
  async drain(ms: number): Promise<void> {
    if (this.#cancelling.size === 0) return;
    await Promise.race([Promise.all(this.#cancelling), new Promise((r) => setTimeout(r, ms).unref())]);
  }

  #onTaskState(call: Id, message: JSONRPCMessage) {
    const pending = this.#calls.get(call);
    if (!pending || pending.abandoned) return;
    if ("error" in message) return this.#finish(call, message.error as { code: number; message: string });
    const task = "result" in message && isObject(message.result) ? message.result : {};
    switch (task.status) {
      case "completed": {
        const result = isObject(task.result) ? task.result : {};
        return this.#finish(call, undefined, { ...result, resultType: "complete" });
      }
      case "failed":
        return this.#finish(
          call,
          isObject(task.error)
            ? (task.error as { code: number; message: string })
            : { code: -32603, message: String(task.statusMessage ?? "the task failed") },
        );
      case "cancelled":
        return this.#finish(call, {
          code: -32603,
          message: `the server cancelled the task${task.statusMessage ? `: ${String(task.statusMessage)}` : ""}`,
        });
      case "input_required":
        this.#cancel(call, pending);
        return this.#finish(call, {
          code: -32603,
          message:
            "the task asked for input (input_required), which this client does not answer for tasks; it was cancelled",
        });
      default:
        return this.#after(call, pending, task.pollIntervalMs);
    }
  }

  /** Answer the original call, once. */
  #finish(call: Id, error?: { code: number; message: string; data?: unknown }, result?: Record<string, unknown>) {
    const pending = this.#calls.get(call);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.#calls.delete(call);
    const message = (
      error ? { jsonrpc: "2.0", id: call, error } : { jsonrpc: "2.0", id: call, result }
    ) as JSONRPCMessage;
    this.#deliver?.(message);
  }

  /** The client gave up on `call`: stop polling, cancel its task if there is one. */
  #abandon(call: Id) {
    const pending = this.#calls.get(call);
    if (!pending || pending.abandoned) return;
    pending.abandoned = true;
    clearTimeout(pending.timer);
    if (pending.taskId) this.#cancel(call, pending);
  }

  #cancel(call: Id, pending: Pending) {
    clearTimeout(pending.timer);
    this.#request(call, pending, "tasks/cancel");
    if (pending.abandoned) this.#calls.delete(call);
  }
}

/**
 * Give `transport` the Tasks extension: its `send` and `onmessage` pass through a poller (the
 * transport keeps its class, so everything that asks what it is still gets the answer).
 */
export function withTasks<T extends Transport>(transport: T): T {
  const send = transport.send.bind(transport);
  const poller = new TaskPoller(send, (error) => transport.onerror?.(error));
  let handler: Transport["onmessage"];
  const filtered: Transport["onmessage"] = (message, extra) => {
    if (poller.incoming(message)) handler?.(message, extra);
  };
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () => (handler ? filtered : undefined),
    set: (value: Transport["onmessage"]) => {
      handler = value;
      poller.setDeliver(value ? (m, extra) => value(m, extra as never) : undefined);
    },
  });
  transport.send = (message, options) => send(poller.outgoing(message, options), options);
  const close = transport.close.bind(transport);
  transport.close = async () => {
    await poller.drain(2000);
    poller.close();
    await close();
  };
  return transport;
}
