/**
 * A `HarnessV1SandboxProvider` for this machine. `HarnessAgent` needs a sandbox to create a
 * session in, while Ubiquity runs in-process and its tools work on local folders: this provider
 * gives every session a folder under `root` (`<root>/<harnessId>-<sessionId>`, or
 * `sandboxConfig.workDir`) and runs the framework's own commands (`pwd`, `mkdir -p`) with bash.
 * It isolates nothing: Ubiquity's permission rules and its `sandbox` option are the boundary.
 */
import { spawn as spawnChild } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { Readable } from "node:stream";
import type { HarnessV1NetworkSandboxSession, HarnessV1SandboxProvider } from "@ai-sdk/harness";

type SandboxSession = ReturnType<HarnessV1NetworkSandboxSession["restricted"]>;
type ProcessOptions = Parameters<SandboxSession["run"]>[0];
type SandboxProcess = Awaited<ReturnType<SandboxSession["spawn"]>>;

/** Options of `localSandbox()`. */
export interface LocalSandboxOptions {
  /** The folder sessions are created under (made if missing) [process.cwd()]. */
  root?: string;
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function localSession(root: string, id: string): HarnessV1NetworkSandboxSession {
  const at = (path: string) => (isAbsolute(path) ? path : resolve(root, path));
  const write = async (path: string, bytes: Uint8Array | string) => {
    await mkdir(dirname(at(path)), { recursive: true });
    await writeFile(at(path), bytes);
  };
  const spawn = async ({ command, workingDirectory, env, abortSignal }: ProcessOptions): Promise<SandboxProcess> => {
    const child = spawnChild("bash", ["-c", command], {
      cwd: at(workingDirectory ?? root),
      env: { ...process.env, ...env },
      signal: abortSignal,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<{ exitCode: number }>((done, fail) => {
      child.once("error", fail);
      child.once("close", (code) => done({ exitCode: code ?? 1 }));
    });
    exited.catch(() => undefined);
    return {
      pid: child.pid,
      stdout: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      stderr: Readable.toWeb(child.stderr) as ReadableStream<Uint8Array>,
      wait: () => exited,
      kill: async () => void child.kill(),
    };
  };
  const session: SandboxSession = {
    description: `A folder on this machine: ${root}. Commands run with bash, unsandboxed.`,
    readFile: async ({ path }) => {
      const bytes = await readOrNull(at(path));
      return bytes ? (Readable.toWeb(Readable.from([bytes])) as ReadableStream<Uint8Array>) : null;
    },
    readBinaryFile: async ({ path }) => {
      const bytes = await readOrNull(at(path));
      return bytes ? new Uint8Array(bytes) : null;
    },
    readTextFile: async ({ path, encoding, startLine, endLine }) => {
      const bytes = await readOrNull(at(path));
      if (!bytes) return null;
      const text = new TextDecoder(encoding ?? "utf-8").decode(bytes);
      if (startLine === undefined && endLine === undefined) return text;
      return text
        .split("\n")
        .slice((startLine ?? 1) - 1, endLine)
        .join("\n");
    },
    writeFile: async ({ path, content }) => write(path, await bytesOf(content)),
    writeBinaryFile: async ({ path, content }) => write(path, content),
    writeTextFile: async ({ path, content }) => write(path, content),
    spawn,
    run: async (options) => {
      const child = await spawn(options);
      const [stdout, stderr, { exitCode }] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.wait(),
      ]);
      return { exitCode, stdout, stderr };
    },
  };
  const noPorts = async (): Promise<never> => {
    throw new Error("localSandbox() exposes no ports: Ubiquity runs in this process and needs none.");
  };
  return {
    ...session,
    id,
    defaultWorkingDirectory: root,
    ports: [],
    getPortEndpoint: noPorts,
    getPortUrl: noPorts,
    // The folders are the user's: stopping or destroying a session leaves them as they are.
    stop: async () => {},
    destroy: async () => {},
    restricted: () => session,
  };
}

/** A sandbox provider whose sessions are folders on this machine, for `new HarnessAgent({ harness: ubiquityHarness(), sandbox: localSandbox() })`. */
export function localSandbox(options: LocalSandboxOptions = {}): HarnessV1SandboxProvider {
  const root = resolve(options.root ?? process.cwd());
  const open = async ({ sessionId }: { sessionId?: string } = {}) => {
    mkdirSync(root, { recursive: true });
    return localSession(root, sessionId ?? randomUUID());
  };
  return {
    specificationVersion: "harness-sandbox-v1",
    providerId: "ubiquity-local",
    createSession: open,
    resumeSession: open,
  };
}
