/**
 * The language servers of one session: each started on the first call for a file it serves (a
 * run that never calls LSP starts none), initialized with the workspace folder, told of every
 * document before it is asked about it (opened once, then its whole text again when it changed
 * on disk), and shut down with the session — `shutdown`, `exit`, then its process group killed,
 * so no server outlives the session. A server that crashed starts again on the next call, up to
 * `maxRestarts` times.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { openJudged } from "../_kits/file-tools/index";
import { spawnOwned } from "../_kits/process/index";
import { LspConnection } from "./client";
import type { NamedServer } from "./config";

/** How a server's process is started: the sandbox's wrap, the environment, the folder. */
export interface ServerLaunch {
  /** The spawn as it must happen (sandboxed when the sandbox is on). */
  wrap(spec: { command: string; args: string[]; cwd: string; env: Record<string, string> }): {
    command: string;
    args: string[];
    cwd: string;
    env?: Record<string, string | undefined>;
    contained?: boolean;
  };
  env(server: NamedServer): Record<string, string>;
  /** Where it runs (the workspace folder when trusted). */
  cwd: string;
  /** The workspace folder sent in `initialize`. */
  root: string;
  /** Its stderr, for the debug log. */
  stderr(server: string, text: string): void;
}

interface Running {
  connection: LspConnection;
  ready: Promise<void>;
  /** uri → the version sent and the file's state when it was sent. */
  documents: Map<string, { version: number; mtimeMs: number; size: number }>;
  forget: () => void;
  /** Settles once the process has exited and been reaped. */
  exited: Promise<void>;
}

const DEFAULT_STARTUP_MS = 60_000;
const DEFAULT_SHUTDOWN_MS = 5_000;
const DEFAULT_MAX_RESTARTS = 3;
/** Largest document sent to a server (its whole text goes in one message). */
const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;

export class LspServers {
  readonly #running = new Map<string, Running>();
  readonly #restarts = new Map<string, number>();
  #closed = false;

  constructor(private readonly launch: ServerLaunch) {}

  /** The connection to `server`, started and initialized if it is not, with `path` opened and current. */
  async connect(server: NamedServer, path: string, languageId: string, signal?: AbortSignal): Promise<LspConnection> {
    if (this.#closed) throw new Error("the session has ended; its language servers are shut down");
    let running = this.#running.get(server.name);
    if (running?.connection.closed) {
      const used = this.#restarts.get(server.name) ?? 0;
      const max = server.config.maxRestarts ?? DEFAULT_MAX_RESTARTS;
      if (server.config.restartOnCrash === false || used >= max)
        throw new Error(
          `the language server ${server.name} stopped (${running.connection.closed.message}) and is not started again (${server.config.restartOnCrash === false ? "restartOnCrash: false" : `maxRestarts: ${max}`})`,
        );
      this.#restarts.set(server.name, used + 1);
      running.forget();
      running = undefined;
    }
    if (!running) {
      running = this.#start(server);
      this.#running.set(server.name, running);
    }
    await abortable(running.ready, signal);
    await this.#sync(running, path, languageId);
    return running.connection;
  }

  #start(server: NamedServer): Running {
    const env = this.launch.env(server);
    // Looked up first: a missing program is named with the fix, never left to how its exit is seen.
    if (!onPath(server.config.command, env.PATH ?? process.env.PATH ?? "", this.launch.cwd)) throw notFound(server);
    let wrapped: ReturnType<ServerLaunch["wrap"]>;
    try {
      wrapped = this.launch.wrap({
        command: server.config.command,
        args: server.config.args ?? [],
        cwd: this.launch.cwd,
        env,
      });
    } catch (error) {
      // The sandbox looks the program up before it starts anything.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw notFound(server);
      throw error;
    }
    // Its own process group, under the reaper outside the sandbox (which ends what the server
    // leaves behind, a child in a session of its own too), remembered until it exits: it ends
    // with this program however the program ends.
    const owned = spawnOwned(wrapped);
    const child = owned.child as unknown as ChildProcessWithoutNullStreams;
    let lastStderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      lastStderr = (lastStderr + chunk.toString("utf8")).slice(-2000);
      this.launch.stderr(server.name, chunk.toString("utf8"));
    });
    const connection = new LspConnection(child, server.config.settings ?? {}, (text) =>
      this.launch.stderr(server.name, text),
    );
    const forget = () => owned.kill();
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const root = resolve(this.launch.root, server.config.workspaceFolder ?? ".");
    const rootUri = pathToFileURL(root).href;
    const startup = server.config.startupTimeout ?? DEFAULT_STARTUP_MS;
    const ready = withTimeout(
      connection
        .request("initialize", {
          processId: process.pid,
          clientInfo: { name: "ubiquity" },
          rootUri,
          rootPath: root,
          workspaceFolders: [{ uri: rootUri, name: root.split("/").pop() || root }],
          initializationOptions: server.config.initializationOptions,
          capabilities: CLIENT_CAPABILITIES,
        })
        .then(() => connection.notify("initialized", {})),
      startup,
      () =>
        new Error(
          `the language server ${server.name} did not answer initialize within ${startup} ms (startupTimeout); is "${server.config.command}" a language server started for stdio (e.g. with --stdio)?`,
        ),
    ).catch((error: Error) => {
      forget();
      // Not found: the spawn's ENOENT, the reaper's failed exec (127), bwrap's failed execvp.
      if (
        (error as NodeJS.ErrnoException).code === "ENOENT" ||
        /ENOENT|\(code 127\)/.test(String(connection.closed?.message)) ||
        /execvp .*: No such file or directory/.test(lastStderr)
      )
        throw notFound(server);
      throw new Error(
        `the language server ${server.name} could not start: ${connection.closed?.message ?? error.message}`,
      );
    });
    child.on("error", () => {}); // reported through the connection
    return { connection, ready, documents: new Map(), forget, exited };
  }

  /** Tell the server of `path` (open it, or send its new text when it changed on disk). */
  async #sync(running: Running, path: string, languageId: string): Promise<void> {
    const uri = pathToFileURL(path).href;
    // The judged file, opened with no link followed and read through that one descriptor: a name
    // stat-ed, then read again, could lead to another file (or /dev/zero) by then (red team zc).
    const opened = await openJudged(path, path);
    if (!opened) throw new Error(`${path} does not exist`);
    let text: string;
    const info = opened.info;
    try {
      // Red team 2026-12-05 (LSP): reading a FIFO named x.ts blocked a worker thread for good (four
      // such calls stall every file operation of the process); a huge file would be read whole.
      if (info.size > MAX_DOCUMENT_BYTES)
        throw new Error(`${path} has ${info.size} bytes, more than a language server is sent (${MAX_DOCUMENT_BYTES})`);
      const known = running.documents.get(uri);
      if (known && known.mtimeMs === info.mtimeMs && known.size === info.size) return;
      text = await opened.handle.readFile("utf8");
    } finally {
      await opened.handle.close();
    }
    const known = running.documents.get(uri);
    if (!known) {
      running.connection.notify("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text } });
      running.documents.set(uri, { version: 1, mtimeMs: info.mtimeMs, size: info.size });
      running.connection.versions.set(uri, 1);
      return;
    }
    const version = known.version + 1;
    running.connection.notify("textDocument/didChange", {
      textDocument: { uri, version },
      contentChanges: [{ text }],
    });
    running.documents.set(uri, { version, mtimeMs: info.mtimeMs, size: info.size });
    running.connection.versions.set(uri, version);
  }

  /** Shut every server down: `shutdown` and `exit` within its shutdownTimeout, then its process group is killed. */
  async close(servers: readonly NamedServer[]): Promise<void> {
    this.#closed = true;
    await Promise.all(
      [...this.#running].map(async ([name, running]) => {
        const limit = servers.find((s) => s.name === name)?.config.shutdownTimeout ?? DEFAULT_SHUTDOWN_MS;
        if (!running.connection.closed) {
          await withTimeout(
            running.ready.then(() => running.connection.request("shutdown", null)),
            limit,
            () => new Error("shutdown timed out"),
          ).catch(() => {});
          running.connection.notify("exit", null);
        }
        // Killed (its whole process group) and reaped before the session's end is reported.
        running.forget();
        await withTimeout(running.exited, limit, () => new Error("not reaped")).catch(() => {});
      }),
    );
    this.#running.clear();
  }
}

/** Is `command` a file (a path), or a file in one of PATH's absolute folders? */
function onPath(command: string, path: string, cwd: string): boolean {
  const isFile = (p: string) => statSync(p, { throwIfNoEntry: false })?.isFile() === true;
  if (command.includes("/")) return isFile(resolve(cwd, command));
  return path.split(":").some((dir) => dir.startsWith("/") && isFile(resolve(dir, command)));
}

function notFound(server: NamedServer): Error {
  return new Error(
    `the language server ${server.name} could not start: "${server.config.command}" was not found; install it or fix "command" in ${server.source}`,
  );
}

/** What we tell servers we understand: plain text hovers and markdown, hierarchical symbols, links. */
const CLIENT_CAPABILITIES = {
  general: { positionEncodings: ["utf-16"] },
  textDocument: {
    synchronization: { didSave: false, dynamicRegistration: false },
    hover: { contentFormat: ["markdown", "plaintext"] },
    definition: { linkSupport: true },
    implementation: { linkSupport: true },
    references: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    callHierarchy: {},
    publishDiagnostics: { relatedInformation: false },
  },
  workspace: { symbol: {}, workspaceFolders: true, configuration: true },
  window: { workDoneProgress: false },
};

function withTimeout<T>(promise: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
    timer.unref?.();
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
