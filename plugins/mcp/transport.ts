/** The SDK transport for one server config: stdio (a child process), SSE, or streamable HTTP. */
import { resolve } from "node:path";
import { SSEClientTransport, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { buildSubprocessEnv, type SubprocessEnvOptions } from "../_kits/process/index";
import type { McpServerConfig } from "./options";
import type { SpawnSpec } from "../sandbox/api";

/** Rewrites the spawn of a stdio server (ubiquity:sandbox wraps it). */
export type SpawnWrap = (spec: SpawnSpec) => SpawnSpec;

/** How a server is reached. */
export type McpTransportKind = "stdio" | "sse" | "http";

/** The transport kind of a config (`command` means stdio). */
export function transportKind(config: McpServerConfig): McpTransportKind {
  return "command" in config ? "stdio" : config.type;
}

/** One line saying where a server is: its command line, or its URL. */
export function describeTarget(config: McpServerConfig): string {
  if ("command" in config) return [config.command, ...(config.args ?? [])].join(" ");
  return config.url;
}

/**
 * The SDK's stdio transport, remembering the child's pid: the SDK forgets it as soon as close
 * starts, and a child that ignores the close sequence must still be found and reaped.
 */
export class StdioTransport extends StdioClientTransport {
  /** The child's pid once spawned (kept after close). */
  spawnedPid: number | undefined;
  override async start(): Promise<void> {
    await super.start();
    this.spawnedPid = this.pid ?? undefined;
  }
}

/**
 * The variables a stdio server inherits from our process: our own list (the one MCP SDK 1.x
 * used), not the SDK's current default, so an SDK release cannot widen or narrow it.
 */
const INHERITED =
  process.platform === "win32"
    ? ["APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"]
    : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/** The inherited variables that are set (a value starting with `()` is a shell function: skipped). */
function inheritedEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED) {
    const value = process.env[key];
    if (value !== undefined && !value.startsWith("()")) env[key] = value;
  }
  return env;
}

/**
 * A stdio server's environment: a short safe list (HOME, LOGNAME, PATH, SHELL, TERM, USER),
 * scrubbed like every subprocess's, then the run's `env`, then the server's own `env` (the most
 * specific, so it wins). The process's other variables, credentials included, never reach it.
 * It is always passed to the transport, so the SDK's own default environment never applies.
 */
export function serverEnv(config: { env?: Record<string, string> }, options: SubprocessEnvOptions): Record<string, string> {
  return buildSubprocessEnv(options, { parent: inheritedEnvironment(), add: [config.env] });
}

/**
 * Build the transport. A stdio server runs in the run's cwd (or its own `cwd`, relative to it)
 * with `serverEnv`; its stderr goes to `onStderr` rather than the user's terminal.
 */
export function createTransport(config: McpServerConfig, cwd: string, onStderr: (text: string) => void, environment: SubprocessEnvOptions = {}, wrap: SpawnWrap = (s) => s): Transport {
  if ("command" in config) {
    const spec = wrap({ command: config.command, args: config.args ?? [], env: serverEnv(config, environment), cwd: config.cwd ? resolve(cwd, config.cwd) : cwd });
    const transport = new StdioTransport({
      command: spec.command,
      args: spec.args,
      env: (spec.env as Record<string, string> | undefined) ?? {},
      cwd: spec.cwd,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => onStderr(chunk.toString("utf8")));
    return transport;
  }
  const requestInit = config.headers ? { headers: config.headers } : undefined;
  const url = new URL(config.url);
  return config.type === "sse" ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
}
