/**
 * A stdio MCP server as a child this program owns: started through the process kit's
 * `spawnOwned` (its own process group, under the reaper, remembered until it exits), so it and
 * whatever it started end with this program however the program ends, SIGKILL included. The
 * SDK's StdioClientTransport started it in our own process group, out of every reaper's reach.
 *
 * Closing it is graceful, as the SDK's was: stdin closed, then SIGTERM to its process group after
 * a grace, then SIGKILL to everything it started (through the reaper).
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { PassThrough, type Readable } from "node:stream";
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { spawnOwned, type OwnedChild, type OwnedSpawn } from "../_kits/process/index";

// Between closing its stdin and SIGTERM, and between SIGTERM and SIGKILL (the SDK's own figures).
const CLOSE_GRACE_MS = 2000;
// After SIGKILL, how long to wait for the process (and the reaper around it) to be gone: only a
// stuck process takes this long, but a loaded machine can take seconds, and close() promises the
// server is gone when it resolves.
const KILLED_BOUND_MS = 30_000;

/** `promise`, or "late" after `ms` (the timer never holds the program open). */
function within(promise: Promise<void>, ms: number): Promise<void | "late"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((done) => {
    timer = setTimeout(done, ms, "late");
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** True when `command` names a file (relative to `cwd` with a slash, else on PATH). */
function onPath(command: string, path: string, cwd: string): boolean {
  const isFile = (p: string) => statSync(p, { throwIfNoEntry: false })?.isFile() === true;
  if (command.includes("/")) return isFile(resolve(cwd, command));
  return path.split(":").some((dir) => dir.startsWith("/") && isFile(resolve(dir, command)));
}

/** The stdio transport (see the file comment); `pid` and `stderr` make the SDK treat it as stdio. */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server's pid once started (kept after close). */
  spawnedPid: number | undefined;
  readonly #spec: OwnedSpawn;
  readonly #stderr = new PassThrough();
  readonly #buffer = new ReadBuffer();
  #owned: OwnedChild | undefined;
  #exited = false;
  #closing: Promise<void> | undefined;

  constructor(spec: OwnedSpawn) {
    this.#spec = spec;
  }

  /** The server's stderr (available before start, so no early line is lost). */
  get stderr(): Readable {
    return this.#stderr;
  }

  /** The server's pid while it runs (the program itself, not the reaper that watches it). */
  get pid(): number | null {
    return this.#exited ? null : (this.spawnedPid ?? null);
  }

  async start(): Promise<void> {
    if (this.#owned) throw new Error("the stdio transport was already started");
    const spec = this.#spec;
    // Under the reaper the spawn itself always succeeds: a missing program is found here, named
    // as the spawn would have named it.
    const path = spec.env?.PATH ?? process.env.PATH ?? "";
    if (!spec.contained && !onPath(spec.command, path, spec.cwd ?? process.cwd()))
      throw Object.assign(new Error(`spawn ${spec.command} ENOENT`), { code: "ENOENT", path: spec.command });
    const owned = spawnOwned(spec);
    this.#owned = owned;
    const child = owned.child;
    await new Promise<void>((done, fail) => {
      child.once("spawn", done);
      child.once("error", (error) => {
        fail(error);
        this.onerror?.(error);
      });
    });
    child.stdin!.on("error", (error) => this.onerror?.(error));
    child.stdout!.on("error", (error) => this.onerror?.(error));
    child.stdout!.on("data", (chunk: Buffer) => {
      try {
        this.#buffer.append(chunk);
        for (let message = this.#buffer.readMessage(); message; message = this.#buffer.readMessage())
          this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
        void this.close();
      }
    });
    child.stderr!.pipe(this.#stderr);
    void owned.exited.then(() => (this.#exited = true));
    child.once("close", () => {
      this.#exited = true;
      this.onclose?.();
    });
    // Under the reaper: its first lines name the server's pid (a few ms); until then, or if it
    // ended first, the pid is the reaper's.
    if (owned.report && child.stdio[3]) {
      const named = new Promise<void>((done) => {
        const check = () => owned.programPid() !== undefined && done();
        child.stdio[3]!.on("data", check);
        check();
      });
      await Promise.race([named, owned.exited]);
    }
    this.spawnedPid = owned.programPid() ?? child.pid;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#owned?.child.stdin;
    if (!stdin || this.#closing || this.#exited) return Promise.reject(new Error("Not connected"));
    return new Promise((done) => {
      if (stdin.write(serializeMessage(message))) done();
      else stdin.once("drain", done);
    });
  }

  /** Close: stdin first, SIGTERM to its group after a grace, then SIGKILL to all it started. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const owned = this.#owned;
    if (owned && !this.#exited) {
      owned.child.stdin?.end();
      if ((await within(owned.exited, CLOSE_GRACE_MS)) === "late") {
        owned.signal("SIGTERM");
        if ((await within(owned.exited, CLOSE_GRACE_MS)) === "late") {
          owned.kill();
          await within(owned.exited, KILLED_BOUND_MS);
        }
      }
    }
    this.#buffer.clear();
  }
}
