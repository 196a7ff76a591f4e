/**
 * One MCP server for the life of a kernel: connect (never throws: a failure becomes the
 * server's status), list its tools, call them, notice when it dies, close and reap it.
 */
import {
  Client,
  type ClientCapabilities,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type Tool as RemoteTool,
  type Transport,
} from "@modelcontextprotocol/client";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { describeError, type Logger, type ToolOutput } from "../../src/index";
import { copiedParentVariables, type SubprocessEnvOptions } from "../_kits/process/index";
import type { McpServerConfig } from "./options";
import { createTransport, StdioTransport, transportKind, type McpTransportKind, type SpawnWrap } from "./transport";
import { toToolOutput } from "./content";
import { byName } from "./names";
import { reap } from "./reap";
import { mcpSchemaValidator } from "./input-schema";
import { runHeadersHelper } from "./headers-helper";
import { endSession, negotiatedRevision, versionNegotiation, type McpProtocolMode } from "./revision";
import { withTasks } from "./tasks";
import { isLoginRequired, McpLoginRequired, refreshIfExpired, runProvider, type McpOAuthProvider } from "./oauth";

/** What servers see of us in `initialize`. */
const CLIENT_INFO = { name: "ubiquity", version: "0.1.0" };

/** A tool as the server listed it. */
export type McpRemoteTool = RemoteTool;

/** Where a server stands: `failed` covers both a failed start and a server that died later. */
export type McpConnectionStatus = "pending" | "connected" | "failed";

/** Timeouts and surroundings of a connection. */
export interface McpConnectionOptions {
  /** The run's cwd: stdio servers start there. */
  cwd: string;
  connectTimeoutMs: number;
  toolTimeoutMs: number;
  logger: Logger;
  /** The run options that shape a stdio server's environment (`env`, `subprocessEnv`). */
  environment?: SubprocessEnvOptions;
  /** Rewrites a stdio server's spawn (the sandbox wraps it). */
  wrap?: SpawnWrap;
  /** False when the run's folder is not trusted: stdio servers then start outside it [true]. */
  trusted?: boolean;
  /** How the protocol revision is chosen (./revision) ["auto"]. */
  protocol?: McpProtocolMode;
  /** What we tell servers we can do beyond tools (elicitation, roots). */
  capabilities?: ClientCapabilities;
  /** Installs request and notification handlers on a client before it connects (features.ts). */
  prepare?: (client: Client, connection: McpConnection) => void;
}

const STDERR_KEPT = 4000;

/** The absolute paths a process said it could not find (Node's module errors, a shell's, ENOENT). */
export function hiddenPaths(stderr: string): string[] {
  const patterns = [
    /Cannot find module '(\/[^']+)'/g,
    /ENOENT: no such file or directory, \w+ '(\/[^']+)'/g,
    /(\/[^\s:'"]+): No such file or directory/g,
  ];
  return [...new Set(patterns.flatMap((re) => [...stderr.matchAll(re)].map((m) => m[1]!)))];
}
const MAX_TOOL_PAGES = 100;

/** The JSON-RPC codes MCP SDK 1.x gave its own timeout and closed-connection errors. */
const LEGACY_CODES: Partial<Record<SdkErrorCode, number>> = {
  [SdkErrorCode.ConnectionClosed]: -32000,
  [SdkErrorCode.RequestTimeout]: -32001,
};

/** True for the SDK's error `code` (a timeout, a closed connection). */
function isSdkError(error: unknown, code: SdkErrorCode): boolean {
  return error instanceof SdkError && error.code === code;
}

/**
 * An SDK error in the words MCP SDK 1.x used (`MCP error <code>: <message>` for a server's
 * JSON-RPC error, a timeout or a closed connection; `Streamable HTTP error: <message>` for the
 * streamable HTTP transport's own errors), so the texts we build from it stay the same.
 */
function describeMcpError(error: unknown, kind: McpTransportKind): string {
  if (error instanceof ProtocolError) return `MCP error ${error.code}: ${error.message}`;
  if (isSdkError(error, SdkErrorCode.InvalidResult)) return invalidResult((error as Error).message);
  if (kind === "http" && error instanceof SdkError && error.code.startsWith("CLIENT_HTTP_"))
    return `Streamable HTTP error: ${error.message}`;
  const legacy = error instanceof SdkError ? LEGACY_CODES[error.code] : undefined;
  return legacy === undefined
    ? describeError(error)
    : `MCP error ${legacy}: ${error instanceof Error ? error.message : ""}`;
}

/**
 * The SDK's "Invalid result for tools/list: [ …the schema's issues as pretty JSON… ]" (screens
 * of it for a server whose every tool breaks one rule) in one line: the first problem and how many more.
 */
function invalidResult(message: string): string {
  const m = /^Invalid result for (\S+): (\[[\s\S]*\])$/.exec(message);
  let issues: { path?: (string | number)[]; message?: string }[] = [];
  try {
    issues = m ? (JSON.parse(m[2]!) as typeof issues) : [];
  } catch {
    // Not the issues' JSON: the message as it is.
  }
  if (!Array.isArray(issues) || issues.length === 0) return message;
  const where = (path: (string | number)[] = []) =>
    path.reduce<string>((out, p) => (typeof p === "number" ? `${out}[${p}]` : out ? `${out}.${p}` : p), "");
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more like it)` : "";
  return `the server's answer to ${m![1]} does not follow the MCP schema: ${where(first.path)}: ${first.message}${more}; the server needs fixing (or another version of it)`;
}

/** The innermost cause of `error` (a failed fetch's `ECONNREFUSED` under the probe's own words). */
function rootCause(error: unknown): unknown {
  let e = error;
  for (let depth = 0; depth < 4; depth++) {
    const next = (e as { cause?: unknown } | undefined)?.cause;
    if (!next) break;
    e = next;
  }
  return e;
}

/** The words of a server that needs `ubiquity mcp login`. */
function loginError(name: string): Error {
  return new McpLoginRequired(name);
}

/** One configured server. */
export class McpConnection {
  status: McpConnectionStatus = "pending";
  /** Why the server is `failed`, in words that name the fix. */
  error: string | undefined;
  /** The server's tools, sorted by name. */
  tools: McpRemoteTool[] = [];
  readonly kind: McpTransportKind;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #stderr = "";
  /** The last spawn ran in the sandbox. */
  #contained = false;
  #closing = false;
  /** True once the transport closed (whoever closed it). */
  #closed = false;
  #shutdown: Promise<void> | undefined;
  /** The OAuth client of a remote server (./oauth), when it uses OAuth. */
  #oauth: McpOAuthProvider | undefined;
  #oauthHadTokens = false;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {
    this.kind = transportKind(config);
  }

  /** Where this server's diagnostics go. */
  get logger(): Logger {
    return this.options.logger;
  }

  /** The protocol revision the connection negotiated (e.g. 2026-07-28, 2025-11-25). */
  get protocolVersion(): string | undefined {
    return negotiatedRevision(this.#client);
  }

  /** The server's process id (stdio only), while it has one. */
  get pid(): number | undefined {
    return this.#transport instanceof StdioTransport ? (this.#transport.pid ?? undefined) : undefined;
  }

  /**
   * A server's `env` that copies this process's environment (`{ ...process.env, API_KEY }`) does
   * not hand it the credentials it copied (buildSubprocessEnv, red team zj ZJ1): said, with how
   * to pass one on purpose, so a server that misses its key is not a mystery.
   */
  #warnOnCopiedEnvironment(env: Record<string, string> | undefined): void {
    const copied = env ? copiedParentVariables(env) : [];
    if (!copied.length) return;
    const shown = copied.slice(0, 5).join(", ") + (copied.length > 5 ? `, … (${copied.length} in all)` : "");
    this.options.logger.warn(
      `MCP server "${this.name}": its env copies this process's environment, so the variables it copied that the allow-list keeps back (credentials, provider keys) are not passed: ${shown}. Name in its env only what the server needs (env: { API_KEY: process.env.API_KEY }).`,
    );
  }

  /** Start the server (or reach it) and list its tools. Never throws. */
  async connect(): Promise<void> {
    const { connectTimeoutMs, cwd, environment = {}, trusted = true } = this.options;
    try {
      const config = await this.#withHelperHeaders();
      if ("command" in config) this.#warnOnCopiedEnvironment(config.env);
      this.#oauth = runProvider(this.name, config, "command" in config ? undefined : config.headers);
      if (this.#oauth) {
        this.#oauthHadTokens = await this.#oauth.store.hasTokens();
        await refreshIfExpired(this.#oauth);
      }
      const transport = withTasks(
        createTransport(
          config,
          cwd,
          (text) => this.#onStderr(text),
          environment,
          this.options.wrap &&
            ((spec) => {
              const wrapped = this.options.wrap!(spec);
              this.#contained = wrapped.contained === true;
              return wrapped;
            }),
          trusted,
          this.#oauth,
        ),
      );
      // listMaxPages: the auto-aggregating listTools walks at most as many pages as 1.x's loop did.
      // Roots only for a server the config lets have them (they may widen what it touches).
      const capabilities = { ...this.options.capabilities, ...(this.config.roots ? { roots: {} } : {}) };
      const client = new Client(CLIENT_INFO, {
        capabilities,
        listMaxPages: MAX_TOOL_PAGES,
        jsonSchemaValidator: mcpSchemaValidator(),
        versionNegotiation: versionNegotiation(
          this.options.protocol ?? "auto",
          this.kind === "stdio",
          connectTimeoutMs,
        ),
      });
      this.#transport = transport;
      this.#client = client;
      client.onclose = () => this.#onClosed();
      this.options.prepare?.(client, this);
      await client.connect(transport, { timeout: connectTimeoutMs });
      const tools = client.getServerCapabilities()?.tools ? await this.#listTools(client) : [];
      this.tools = tools.sort(byName);
      this.status = "connected";
    } catch (error) {
      this.status = "failed";
      this.error = this.#startFailure(error);
      this.#closing = true; // what follows is our own clean-up, not a death to report
      await this.#close();
    }
  }

  /** The config with the headers its `headersHelper` printed (they win over the static ones). */
  async #withHelperHeaders(): Promise<McpServerConfig> {
    const config = this.config;
    if ("command" in config || !config.headersHelper) return config;
    const { cwd, environment, wrap, trusted } = this.options;
    const dynamic = await runHeadersHelper(
      config.headersHelper,
      { name: this.name, url: config.url },
      { cwd, environment, wrap, trusted },
    );
    return { ...config, headers: { ...config.headers, ...dynamic } };
  }

  /** The SDK client while the server is connected (resources, prompts and the other features use it). */
  get client(): Client | undefined {
    return this.status === "connected" ? this.#client : undefined;
  }

  /** List the server's tools again (after its `tools/list_changed`); false when it could not be listed. */
  async relistTools(): Promise<boolean> {
    const client = this.client;
    if (!client) return false;
    try {
      this.tools = (await this.#listTools(client)).sort(byName);
      return true;
    } catch (error) {
      this.options.logger.warn(
        `MCP server "${this.name}" changed its tools but could not list them: ${describeMcpError(error, this.kind)}`,
      );
      return false;
    }
  }

  /** A failure of a request to this server, in the words tool results use. */
  describe(error: unknown): string {
    return describeMcpError(error, this.kind);
  }

  /** Call `tool` with `args`; every failure becomes an error result naming what happened. */
  async call(
    tool: string,
    exposed: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    seesImages = false,
    onprogress?: (progress: { progress: number; total?: number; message?: string }) => void,
  ): Promise<ToolOutput> {
    const client = this.#client;
    if (this.status !== "connected" || !client) {
      return {
        content: `${exposed} is unavailable: MCP server "${this.name}" ${this.error ?? "is not connected"}. Do not call its tools again in this run.`,
        isError: true,
      };
    }
    try {
      // A server's progress notifications keep a slow call alive (the timeout counts from the last one).
      const progress = onprogress ? { onprogress, resetTimeoutOnProgress: true } : {};
      const result = await client.callTool(
        { name: tool, arguments: args },
        { signal, timeout: this.options.toolTimeoutMs, ...progress },
      );
      const output = toToolOutput(result, this.name, tool, seesImages);
      return output.isError ? { ...output, content: output.content + this.#readOnlyNote(output.content) } : output;
    } catch (error) {
      if (signal.aborted)
        return { content: `Cancelled: the run was aborted while ${exposed} was running.`, isError: true };
      if (this.#died()) {
        return {
          content: `${exposed} did not complete: MCP server "${this.name}" ${this.error}. Its tools are unavailable for the rest of this run.`,
          isError: true,
        };
      }
      if (isLoginRequired(error))
        return {
          content: `${exposed} failed: MCP server "${this.name}" ${describeError(loginError(this.name))}`,
          isError: true,
        };
      if (isSdkError(error, SdkErrorCode.RequestTimeout)) {
        const seconds = Math.round(this.options.toolTimeoutMs / 1000);
        return {
          content: `${exposed} timed out after ${seconds}s (raise toolTimeoutMs in the ubiquity:mcp plugin options for slow tools).`,
          isError: true,
        };
      }
      return {
        content: `${exposed} failed on MCP server "${this.name}": ${describeMcpError(error, this.kind)}`,
        isError: true,
      };
    }
  }

  /** Close the connection; a stdio server's process is gone (reaped) when this resolves. */
  close(): Promise<void> {
    this.#closing = true;
    return this.#close();
  }

  #close(): Promise<void> {
    this.#shutdown ??= (async () => {
      const transport = this.#transport;
      try {
        // Tell a streamable HTTP server the session is over, so it frees it now (a 2025 session only).
        if (this.status === "connected") await endSession(this.#client, transport);
        await this.#client?.close();
      } catch (error) {
        this.options.logger.debug(`[mcp ${this.name}] close: ${describeError(error)}`);
      }
      const pid = transport instanceof StdioTransport ? transport.spawnedPid : undefined;
      if (pid !== undefined && !(await reap(pid)))
        this.options.logger.warn(`MCP server "${this.name}" (pid ${pid}) did not exit after SIGKILL`);
    })();
    return this.#shutdown;
  }

  /**
   * Every page of the server's tools (the SDK walks the pages and keeps the list for its
   * output-schema checks). The SDK answers a closed connection with an empty list rather than an
   * error: a server gone before or while listing fails to start, as it did with 1.x.
   */
  async #listTools(client: Client): Promise<McpRemoteTool[]> {
    const closed = () => new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed");
    if (this.#closed) throw closed();
    const { tools } = await client.listTools(undefined, {
      timeout: this.options.connectTimeoutMs,
      cacheMode: "refresh",
    });
    if (this.#closed) throw closed();
    return [...tools];
  }

  /** True once the server stopped (checked after an await, where the status may have changed). */
  #died(): boolean {
    return this.status === "failed";
  }

  #onClosed() {
    this.#closed = true;
    if (this.#closing || this.status !== "connected") return;
    this.status = "failed";
    this.error = `stopped during the run (${this.kind === "stdio" ? "its process exited" : "the connection closed"})${this.#stderrTail()}`;
    this.options.logger.warn(`MCP server "${this.name}" ${this.error}`);
  }

  #onStderr(text: string) {
    this.#stderr = (this.#stderr + text).slice(-STDERR_KEPT);
    for (const line of text.split("\n")) if (line.trim()) this.options.logger.debug(`[mcp ${this.name}] ${line}`);
  }

  /** The server's last stderr lines, for failure messages (and why a file it missed is missing). */
  #stderrTail(): string {
    const lines = this.#stderr
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .slice(-3);
    return lines.length ? `; its stderr ended with: ${lines.join(" | ").slice(-500)}${this.#hiddenFile()}` : "";
  }

  /**
   * A sandboxed server that missed a file which exists here ("Cannot find module '/tmp/x/…'",
   * "…: No such file or directory"): the sandbox hid it. Its tail alone said only "not found".
   */
  #hiddenFile(): string {
    if (!this.#contained) return "";
    const missed = hiddenPaths(this.#stderr).find((p) => existsSync(p));
    if (!missed) return "";
    return `; ${missed} exists, but the sandbox hides it from the server (sandboxed processes get a private /tmp and see of the home folder only toolchains and caches): install the server in the project or a system folder, or make its folder readable with sandbox.filesystem.allowRead in the config (["${dirname(missed)}"]); --no-sandbox runs every server unsandboxed`;
  }

  /**
   * A sandboxed server's error that a refused write caused ("EROFS: read-only file system, open
   * '…/node_modules/@modelcontextprotocol/server-memory/dist/memory.jsonl'"): servers that keep
   * their data beside their own code or in the home folder fail so, where Claude Code runs them
   * unsandboxed. The model and the user read why, and the ways out. "" for any other error.
   */
  #readOnlyNote(content: string): string {
    if (!this.#contained || !/Read-only file system|EROFS/.test(content)) return "";
    return `\n[MCP server "${this.name}" runs in the OS sandbox, which lets it write only the run's folders and a private /tmp, never its own package folder, node_modules or the home folder: point the server's data at a path under the project (its own setting, often an environment variable in its "env"), add the folder to sandbox.filesystem.allowWrite, or run without the sandbox (--no-sandbox)]`;
  }

  #startFailure(error: unknown): string {
    const untrusted = this.options.trusted === false && this.kind === "stdio";
    const note = untrusted
      ? "; the folder is not trusted, so the server ran outside it (trust it with `ubiquity trust .`, or give the server an absolute cwd)"
      : "";
    return this.#failure(error) + note;
  }

  #failure(error: unknown): string {
    // The server answered 401 and no stored token (or refresh) satisfied it: only a login helps.
    if (this.#oauth?.authAttempted) {
      // Without a stored token, why the SDK could not go on alone (no registration in a run) does not matter.
      const why = isLoginRequired(error) || !this.#oauthHadTokens ? "" : ` (${describeMcpError(error, this.kind)})`;
      return `failed to start: ${loginError(this.name).message}${why}`;
    }
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const where = `mcpServers.${this.name}`;
    if ("command" in this.config && code === "ENOENT") {
      return `failed to start: command not found: ${this.config.command} (check ${where}.command and PATH)`;
    }
    // The server went away while answering the revision probe (server/discover): it closed, as in a handshake.
    const closedInProbe =
      isSdkError(error, SdkErrorCode.EraNegotiationFailed) &&
      (this.#closed || /\b(connection|transport) (was )?closed\b/.test((error as Error).message));
    if (isSdkError(error, SdkErrorCode.ConnectionClosed) || closedInProbe) {
      const how = this.kind === "stdio" ? "its process exited" : "the connection closed";
      return `failed to start: ${how} before it finished the MCP handshake${this.#stderrTail()}`;
    }
    if (isSdkError(error, SdkErrorCode.RequestTimeout)) {
      return `failed to start: no answer within ${Math.round(this.options.connectTimeoutMs / 1000)}s (check that ${where} speaks MCP over ${this.kind}, or raise connectTimeoutMs)`;
    }
    const cause = rootCause(error);
    const detail =
      cause !== error
        ? `${describeMcpError(error, this.kind)} (${describeMcpError(cause, this.kind)})`
        : describeMcpError(error, this.kind);
    // A remote server that refused the credentials the config sends itself (OAuth is not used then).
    if (
      isSdkError(error, SdkErrorCode.ClientHttpAuthentication) ||
      isSdkError(error, SdkErrorCode.ClientHttpForbidden)
    ) {
      return `failed to start: ${detail}; check the Authorization header of ${where} (headers or headersHelper)`;
    }
    return `failed to start: ${detail}${this.#stderrTail()}`;
  }
}
