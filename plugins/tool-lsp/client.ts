/**
 * One language server over stdio: JSON-RPC messages framed by `Content-Length` headers (the
 * Language Server Protocol's base protocol), requests matched to answers by id, the server's own
 * requests answered (a server that waits for `workspace/configuration` or a progress token must
 * not hang), and `textDocument/publishDiagnostics` kept per document.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";

/** An answer the server sent as an error. */
export class LspResponseError extends Error {
  override name = "LspResponseError";
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** Most diagnostics kept of one publication (the first; a block of them shows 4,000 characters at most anyway). */
const MAX_DIAGNOSTICS = 1_000;

/** Most bytes one message may have: past it the server is broken or hostile, and the connection ends. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** A diagnostic as servers publish it (the fields the tool shows). */
export interface Diagnostic {
  range: { start: { line: number; character: number } };
  severity?: number;
  message: string;
  source?: string;
  code?: string | number;
}

/** Whether `value` has the shape of a diagnostic: a message, a position, and fields of the types the LSP gives them. */
function isDiagnostic(value: unknown): value is Diagnostic {
  if (!value || typeof value !== "object") return false;
  const d = value as Record<string, unknown>;
  const start = (d.range as { start?: { line?: unknown; character?: unknown } } | null | undefined)?.start;
  return (
    typeof d.message === "string" &&
    Number.isInteger(start?.line) &&
    Number.isInteger(start?.character) &&
    (d.severity === undefined || Number.isInteger(d.severity)) &&
    (d.source === undefined || typeof d.source === "string") &&
    (d.code === undefined || typeof d.code === "string" || typeof d.code === "number")
  );
}

export class LspConnection {
  #nextId = 1;
  #buffer: Buffer = Buffer.alloc(0);
  readonly #pending = new Map<number, Pending>();
  #closed: Error | undefined;
  /** Diagnostics per document URI, as last published. */
  readonly diagnostics = new Map<string, Diagnostic[]>();
  /** How many times diagnostics were published per document URI (to tell a new publication from the last one). */
  readonly published = new Map<string, number>();
  readonly #diagnosticWaiters = new Map<string, (() => void)[]>();
  /** The version of each document last sent (set by whoever syncs documents). */
  readonly versions = new Map<string, number>();

  constructor(
    readonly child: ChildProcessWithoutNullStreams,
    /** What the server's own requests for settings are answered with (`workspace/configuration`). */
    private readonly settings: Record<string, unknown> = {},
    /** Where its `window/logMessage` and `window/showMessage` lines go (the debug log). */
    private readonly log: (text: string) => void = () => {},
  ) {
    child.stdout.on("data", (chunk: Buffer) => this.#read(chunk));
    child.on("exit", (code, signal) =>
      this.#fail(new Error(`the language server exited (${signal ?? `code ${code}`})`)),
    );
    child.on("error", (error) => this.#fail(error));
    child.stdin.on("error", (error) => this.#fail(error));
  }

  /** Why the connection ended, once it has. */
  get closed(): Error | undefined {
    return this.#closed;
  }

  request<T = unknown>(method: string, params: unknown, signal?: AbortSignal): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const abort = () => {
        this.#pending.delete(id);
        this.notify("$/cancelRequest", { id });
        reject(signal!.reason instanceof Error ? signal!.reason : new Error("aborted"));
      };
      if (signal?.aborted) return abort();
      signal?.addEventListener("abort", abort, { once: true });
      this.#pending.set(id, {
        resolve: (value) => {
          signal?.removeEventListener("abort", abort);
          resolve(value as T);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", abort);
          reject(error);
        },
      });
      this.#send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    if (!this.#closed) this.#send({ jsonrpc: "2.0", method, params });
  }

  /** Resolves at the next diagnostics published for `uri` (or when the connection ends). */
  nextDiagnostics(uri: string): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#diagnosticWaiters.set(uri, [...(this.#diagnosticWaiters.get(uri) ?? []), resolve]);
    });
  }

  #send(message: unknown) {
    const body = Buffer.from(JSON.stringify(message), "utf8");
    this.child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]));
  }

  #read(chunk: Buffer) {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    for (;;) {
      const headerEnd = this.#buffer.indexOf("\r\n\r\n");
      if (headerEnd < 0) {
        if (this.#buffer.length > 8192) this.#fail(new Error("the language server sent a header without an end"));
        return;
      }
      const header = this.#buffer.subarray(0, headerEnd).toString("ascii");
      const length = Number(/^content-length:\s*(\d+)\s*$/im.exec(header)?.[1]);
      if (!Number.isSafeInteger(length) || length > MAX_MESSAGE_BYTES) {
        this.#fail(new Error(`the language server sent a message without a valid Content-Length (${header})`));
        return;
      }
      const start = headerEnd + 4;
      if (this.#buffer.length < start + length) return;
      const body = this.#buffer.subarray(start, start + length).toString("utf8");
      this.#buffer = this.#buffer.subarray(start + length);
      let message: { id?: number | string; method?: string; params?: unknown; result?: unknown; error?: unknown };
      try {
        message = JSON.parse(body);
      } catch {
        this.#fail(new Error("the language server sent a message that is not JSON"));
        return;
      }
      this.#dispatch(message);
    }
  }

  #dispatch(message: { id?: number | string; method?: string; params?: unknown; result?: unknown; error?: unknown }) {
    if (message.method !== undefined && message.id !== undefined) {
      this.#send({ jsonrpc: "2.0", id: message.id, result: this.#answer(message.method, message.params) });
      return;
    }
    if (message.method === "textDocument/publishDiagnostics") {
      const params = message.params as { uri?: string; diagnostics?: Diagnostic[]; version?: unknown };
      if (typeof params?.uri !== "string") return;
      // Only documents the server was told of are kept (a server publishing for thousands of
      // other files grows nothing), and diagnostics of an older version than the one last sent
      // describe text that is gone.
      const sent = this.versions.get(params.uri);
      if (sent === undefined) return;
      if (typeof params.version === "number" && params.version < sent) return;
      // Only what has the shape of a diagnostic is kept: a malformed entry is not understood (dropped).
      const found = Array.isArray(params.diagnostics)
        ? (params.diagnostics as unknown[]).slice(0, MAX_DIAGNOSTICS).filter(isDiagnostic)
        : [];
      this.diagnostics.set(params.uri, found);
      this.published.set(params.uri, (this.published.get(params.uri) ?? 0) + 1);
      const waiters = this.#diagnosticWaiters.get(params.uri) ?? [];
      this.#diagnosticWaiters.delete(params.uri);
      for (const wake of waiters) wake();
      return;
    }
    if (message.method === "window/logMessage" || message.method === "window/showMessage") {
      const text = (message.params as { message?: unknown } | undefined)?.message;
      if (typeof text === "string") this.log(text);
      return;
    }
    if (typeof message.id !== "number") return; // other notifications (progress) are not needed
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (message.error) {
      const e = message.error as { message?: unknown; code?: unknown };
      pending.reject(new LspResponseError(String(e.message ?? "error"), Number(e.code ?? 0)));
    } else pending.resolve(message.result ?? null);
  }

  /** The answer to a request the server makes of us. */
  #answer(method: string, params: unknown): unknown {
    if (method === "workspace/configuration") {
      const items = (params as { items?: { section?: string }[] })?.items ?? [];
      return items.map((item) => (item.section ? sectionOf(this.settings, item.section) : this.settings) ?? null);
    }
    if (method === "workspace/workspaceFolders") return null;
    // client/registerCapability, window/workDoneProgress/create, window/showMessageRequest: accepted, nothing to do.
    return null;
  }

  #fail(error: Error) {
    if (this.#closed) return;
    this.#closed = error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    for (const waiters of this.#diagnosticWaiters.values()) for (const wake of waiters) wake();
    this.#diagnosticWaiters.clear();
  }
}

/** `a.b.c` of the settings object. */
function sectionOf(settings: Record<string, unknown>, section: string): unknown {
  let value: unknown = settings;
  for (const key of section.split(".")) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
