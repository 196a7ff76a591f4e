/**
 * Diagnostics after edits, as Claude Code's code-intelligence plugins give them: when a tool of
 * kind `edit` changes a file a language server serves, the server is told of the new text (and
 * started first when it is not running), and the file is watched for the rest of the run: the
 * errors and warnings the server publishes for it, those not already reported while the file had
 * them, reach the model with the next tool result of the run, in a `<new-diagnostics>` block.
 *
 * Nothing waits on the edit itself: a server analyses while the model reads the edit's result,
 * and the next result carries what it found. That result waits for a server that has not yet
 * published since the edit until `timeoutMs` after the edit (to start and be told of it) and
 * `timeoutMs` after it was told; past that, results go out without waiting, and a report that
 * arrives later (a server still loading the project; a TypeScript server publishes its syntax
 * and its type errors separately) comes with the first result after it. A server that found
 * nothing may never publish.
 */
import { relative } from "node:path";
import { pathToFileURL } from "node:url";
import type { RunContext } from "../../src/index";
import type { Diagnostic, LspConnection } from "./client";

/** Default wait for a server to be told of an edit, and then for its report. */
export const DEFAULT_DIAGNOSTICS_TIMEOUT_MS = 2_000;
/** Most characters a block of diagnostics takes in a tool result. */
const MAX_BLOCK_CHARS = 4_000;
/** Most edited files watched per run (the one edited longest ago is let go). */
const MAX_WATCHED = 64;

/** One edited file. */
interface Watch {
  path: string;
  uri: string;
  server: string;
  /** Settles with the connection once the server was told of the edit (undefined: it could not be). */
  synced: Promise<{ connection: LspConnection; at: number } | undefined>;
  /** When the edit was made (performance.now()). */
  at: number;
  /** The server's publications for the file already looked at (its count when told of the edit, at first). */
  seen?: number;
  /** Whether the report after the edit was waited for already (it is only once). */
  waited?: boolean;
}

/** Tell the server of one edited file; resolves with its connection once the new text was sent. */
export type SyncFile = (path: string) => Promise<LspConnection>;

/** The files each run edited, and what was reported of each file in the session. */
export class DiagnosticsTracker {
  readonly #watched = new WeakMap<RunContext, Map<string, Watch>>();
  readonly #reported = new WeakMap<RunContext, Map<string, Set<string>>>();

  constructor(
    private readonly timeoutMs: number,
    private readonly root: (run: RunContext) => RunContext,
  ) {}

  /** `run` changed `path`: tell its server (through `sync`) and watch the file. */
  edited(run: RunContext, path: string, server: string, sync: SyncFile): void {
    const uri = pathToFileURL(path).href;
    const watch: Watch = { path, uri, server, synced: Promise.resolve(undefined), at: performance.now() };
    watch.synced = sync(path).then(
      (connection) => {
        // Counted as the text goes out: a publication from now on is about it (or a later one).
        watch.seen = connection.published.get(uri) ?? 0;
        return { connection, at: performance.now() };
      },
      () => undefined, // a server that cannot start says so through the LSP tool; an edit is not failed for it
    );
    let watched = this.#watched.get(run);
    if (!watched) this.#watched.set(run, (watched = new Map()));
    watched.delete(uri); // a newer edit of the file replaces the older, and is the newest
    watched.set(uri, watch);
    if (watched.size > MAX_WATCHED) watched.delete(watched.keys().next().value!);
  }

  /** Stop watching `run`'s files (their diagnostics may not be shown). */
  forget(run: RunContext): void {
    this.#watched.delete(run);
  }

  /** The block of new diagnostics of `run`'s edited files, or "" (see the module's note on waiting). */
  async take(run: RunContext, signal?: AbortSignal): Promise<string> {
    const watched = this.#watched.get(run);
    if (!watched?.size) return "";
    const root = this.root(run);
    let reported = this.#reported.get(root);
    if (!reported) this.#reported.set(root, (reported = new Map()));
    const sections: string[] = [];
    for (const watch of [...watched.values()]) {
      const found = await this.#published(watch, signal);
      if (!found) continue;
      const before = reported.get(watch.uri) ?? new Set<string>();
      const shown = found.filter((d) => (d.severity ?? 1) <= 2);
      // What is reported stays reported while the file has it; fixed and made again, it is new again.
      reported.set(watch.uri, new Set(shown.map(keyOf)));
      const fresh = shown.filter((d) => !before.has(keyOf(d)));
      if (fresh.length === 0) continue;
      const name = relative(run.cwd, watch.path);
      const shownName = name && !name.startsWith("..") ? name : watch.path;
      sections.push(`${watch.server} reports for ${shownName}:\n${fresh.map((d) => `  ${describe(d)}`).join("\n")}`);
    }
    if (sections.length === 0) return "";
    let body = sections.join("\n");
    if (body.length > MAX_BLOCK_CHARS) {
      const kept = body.slice(0, body.lastIndexOf("\n", MAX_BLOCK_CHARS));
      body = `${kept}\n  … ${body.split("\n").length - kept.split("\n").length} more lines`;
    }
    return `<new-diagnostics>\n${body}\n</new-diagnostics>`;
  }

  /** The file's diagnostics when the server published since they were last looked at, else undefined. */
  async #published(watch: Watch, signal?: AbortSignal): Promise<Diagnostic[] | undefined> {
    const wait = !watch.waited;
    const synced = await within(watch.synced, wait ? watch.at + this.timeoutMs : 0, signal);
    if (!synced) return undefined;
    const { connection, at } = synced;
    const count = () => connection.published.get(watch.uri) ?? 0;
    if (wait && count() === watch.seen && !connection.closed)
      await within(connection.nextDiagnostics(watch.uri), at + this.timeoutMs, signal);
    watch.waited = true;
    if (count() === watch.seen) return undefined;
    watch.seen = count();
    return connection.diagnostics.get(watch.uri);
  }
}

/** `promise`'s value, or undefined once `deadline` (performance.now() time) passed or `signal` aborted. */
function within<T>(promise: Promise<T>, deadline: number, signal?: AbortSignal): Promise<T | undefined> {
  const left = deadline - performance.now();
  if (left <= 0 || signal?.aborted) return Promise.race([promise, Promise.resolve(undefined)]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = () => {};
  const limit = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, left, undefined);
    onAbort = () => resolve(undefined);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([promise, limit]).finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  });
}

const SEVERITY = ["", "error", "warning", "info", "hint"];

/** What makes a diagnostic the same one after an edit moved it: its kind, code and message (not its line). */
const keyOf = (d: Diagnostic) => `${d.severity ?? 1}\u0000${d.source ?? ""}\u0000${d.code ?? ""}\u0000${d.message}`;

/** `3:7 error [TS2322] Type 'string' is not … (typescript)`: 1-based line and character, as the LSP tool writes positions. */
function describe(d: Diagnostic): string {
  const at = `${d.range.start.line + 1}:${d.range.start.character + 1}`;
  const code = d.code !== undefined && d.code !== "" ? ` [${d.code}]` : "";
  const source = d.source ? ` (${d.source})` : "";
  const message = d.message.replace(/\s*\n\s*/g, " ");
  return `${at} ${SEVERITY[d.severity ?? 1] ?? "error"}${code} ${message}${source}`;
}
