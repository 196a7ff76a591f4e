/** Real MCP servers from node_modules for the tests, and the checks that none outlives a test. */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, expect } from "vitest";
import type { McpServerConfig } from "ubiquity";

const require = createRequire(import.meta.url);
const binOf = (pkg: string) => {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> };
  return join(dirname(manifest), Object.values(bin)[0]!);
};

/** server-everything's bin: `node <bin> stdio|sse|streamableHttp`. */
export const EVERYTHING_BIN = binOf("@modelcontextprotocol/server-everything");
/** server-filesystem's bin: `node <bin> <allowed dir>...`. */
export const FILESYSTEM_BIN = binOf("@modelcontextprotocol/server-filesystem");

/** A string put on every server command line of one test file, to find its processes. */
export const MARKER = `ubiquity-mcp-test-${randomUUID()}`;

/** server-everything over stdio (run by this Node, never downloaded); the marker is an ignored argument. */
export function everythingStdio(): McpServerConfig {
  return { command: process.execPath, args: [EVERYTHING_BIN, "stdio", MARKER] };
}

/** A temp folder for server-filesystem, named with the marker (it is the server's argument). */
export function markedTempDir(): string {
  return mkdtempSync(join(tmpdir(), `${MARKER}-`));
}

/** server-filesystem over stdio, allowed to touch `dir` only. */
export function filesystemStdio(dir: string): McpServerConfig {
  return { command: process.execPath, args: [FILESYSTEM_BIN, dir] };
}

/** Pids of running processes whose command line contains `needle` (from /proc). */
export function processesWith(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!cmdline.includes(needle)) continue;
      // A zombie has an empty cmdline; a live process reports its state as something else than Z.
      const state = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.[0];
      if (state !== "Z") pids.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return pids;
}

/**
 * After every test of the file: no server process carrying this file's marker is left running.
 * A sandboxed server runs in bubblewrap's PID namespace: close() resolves when bwrap is gone, and
 * the kernel then ends the namespace's processes, which /proc can still show as running for a
 * moment on a busy machine. What is still there after 30 s was left behind.
 */
export function expectNoServerLeftAfterEachTest(): void {
  afterEach(async () => {
    for (let waited = 0; processesWith(MARKER).length > 0 && waited < 30_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processesWith(MARKER)).toEqual([]);
  }, 60_000);
}

/** True while `pid` runs. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** server-everything's streamable HTTP mode, bound to 127.0.0.1 on a free port. */
export interface HttpServer {
  url: string;
  host: string;
  child: ChildProcess;
  /** What the server printed on stdout so far (its request log). */
  stdout(): string;
  stop(): Promise<void>;
}

const LOOPBACK = pathToFileURL(fileURLToPath(new URL("./fixtures/loopback.mjs", import.meta.url))).href;

/** Start server-everything in `mode` (`streamableHttp` or `sse`) on 127.0.0.1. */
export function startEverythingHttp(mode: "streamableHttp" | "sse" = "streamableHttp"): Promise<HttpServer> {
  const child = spawn(process.execPath, ["--import", LOOPBACK, EVERYTHING_BIN, mode, MARKER], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => void (out += chunk.toString()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  };
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      err += chunk.toString();
      const m = /UBIQUITY_TEST_LISTENING (\S+) (\d+)/.exec(err);
      if (m)
        resolve({
          url: `http://127.0.0.1:${m[2]}/${mode === "sse" ? "sse" : "mcp"}`,
          host: m[1]!,
          child,
          stdout: () => out,
          stop,
        });
    });
    child.once("exit", (code) =>
      reject(new Error(`server-everything ${mode} exited (${code}) before listening: ${err}`)),
    );
  });
}

/** Remove a temp folder. */
export function removeDir(dir: string) {
  rmSync(dir, { recursive: true, force: true });
}
