/**
 * The servers of one kernel: connected together at `kernel.ready`, their tools registered in a
 * fixed order (servers by name, each server's tools by name) so the tool block is byte-stable
 * however the connections raced, and closed together at `kernel.dispose`.
 */
import { type Kernel, redactText, secretsOf } from "../../src/index";
import type { McpServerConfig } from "./options";
import { McpConnection, type McpConnectionOptions } from "./connection";
import { claimsReadOnly, McpTool } from "./mcp-tool";
import { byName, checkServerNames, MAX_TOOL_NAME } from "./names";
import { describeTarget, type McpTransportKind } from "./transport";

/** A server's status as `system/init` reports it (`extra.mcpServers`). */
export type McpServerStatus =
  | { name: string; status: "connected"; tools: number }
  | { name: string; status: "failed"; error: string };

/** One tool in a server report. */
export interface McpToolReport {
  /** The name the model calls (`mcp__<server>__<tool>`). */
  name: string;
  /** The server's own name for it. */
  tool: string;
  /** The user's config lists it as read-only (`mcpServers.<name>.readOnly`). */
  readOnly: boolean;
  /** The server annotates it `readOnlyHint` (its own claim; decides nothing). */
  readOnlyHint: boolean;
  description: string;
}

/** Everything `ubiquity mcp list` shows about one server. */
export interface McpServerReport {
  name: string;
  transport: McpTransportKind;
  /** The command line (stdio) or the URL. */
  target: string;
  status: "pending" | "connected" | "failed";
  error?: string;
  /** The stdio server's process id while it runs. */
  pid?: number;
  /** The protocol revision negotiated with the server (2026-07-28, or a 2025 one). */
  protocolVersion?: string;
  tools: McpToolReport[];
}

/** Every configured server of a kernel. */
export class McpServers {
  readonly connections: McpConnection[];
  #tools = new Map<McpConnection, McpTool[]>();

  constructor(
    servers: Record<string, McpServerConfig>,
    options: McpConnectionOptions,
    private readonly owner: string,
  ) {
    checkServerNames(Object.keys(servers));
    this.connections = Object.entries(servers)
      .map(([name, config]) => new McpConnection(name, config, options))
      .sort(byName);
  }

  /** Connect every server in parallel, then register the tools of those that answered. */
  async connect(kernel: Kernel): Promise<void> {
    await Promise.all(this.connections.map((c) => c.connect()));
    const taken = new Map<string, string>();
    for (const connection of this.connections) {
      if (connection.status === "failed") {
        const message = `MCP server "${connection.name}" ${connection.error}`;
        kernel.logger.warn(message);
        // Its error quotes the server's stderr: the event leaves masked, as the logger's line does (red team zl, ZL3).
        kernel.emit({ type: "warning", source: this.owner, message: redactText(message, secretsOf(kernel.options)) });
        continue;
      }
      this.#register(kernel, connection, taken);
    }
  }

  /** Register a server's tools (skipping a name too long or taken by another server's tool). */
  #register(kernel: Kernel, connection: McpConnection, taken: Map<string, string>): void {
    const tools: McpTool[] = [];
    for (const remote of connection.tools) {
      const tool = new McpTool(connection, remote);
      const clash = taken.get(tool.name);
      const skip =
        tool.name.length > MAX_TOOL_NAME
          ? `its name ${tool.name} is longer than ${MAX_TOOL_NAME} characters; shorten the server's name in mcpServers`
          : clash
            ? `its name ${tool.name} is already taken by ${clash} (names are cleaned to letters, digits, _ and -)`
            : undefined;
      if (skip) {
        const message = `MCP server "${connection.name}": tool ${remote.name} is not offered: ${skip}`;
        kernel.logger.warn(message);
        kernel.emit({ type: "warning", source: this.owner, message });
        continue;
      }
      taken.set(tool.name, `${connection.name}/${remote.name}`);
      tools.push(tool);
      kernel.registries.tools.register(tool.name, tool, this.owner);
    }
    this.#tools.set(connection, tools);
  }

  /**
   * A server changed its tools (`tools/list_changed`): list them again and re-register them in
   * place of the old ones; the next turn's tool list has them. False when they could not be listed.
   */
  async refreshTools(kernel: Kernel, connection: McpConnection): Promise<boolean> {
    if (!(await connection.relistTools())) return false;
    for (const tool of this.#tools.get(connection) ?? []) kernel.registries.tools.unregister(tool.name);
    const taken = new Map<string, string>();
    for (const [other, tools] of this.#tools)
      if (other !== connection) for (const t of tools) taken.set(t.name, `${other.name}/${t.remote.name}`);
    this.#register(kernel, connection, taken);
    return true;
  }

  /** The tools registered for each server. */
  toolsOf(connection: McpConnection): readonly McpTool[] {
    return this.#tools.get(connection) ?? [];
  }

  /** Close every server in parallel; stdio processes are reaped when this resolves. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }

  /** The status of each server, for `system/init`. */
  statuses(): McpServerStatus[] {
    return this.connections.map((c) =>
      c.status === "connected"
        ? { name: c.name, status: "connected", tools: this.#tools.get(c)?.length ?? 0 }
        : { name: c.name, status: "failed", error: c.error ?? "not connected (kernel.ready has not run)" },
    );
  }

  /** Everything known about each server, for `ubiquity mcp list`. */
  report(): McpServerReport[] {
    return this.connections.map((c) => ({
      name: c.name,
      transport: c.kind,
      target: describeTarget(c.config),
      status: c.status,
      ...(c.error ? { error: c.error } : {}),
      ...(c.pid !== undefined ? { pid: c.pid } : {}),
      ...(c.protocolVersion ? { protocolVersion: c.protocolVersion } : {}),
      tools: (this.#tools.get(c) ?? []).map((t) => ({
        name: t.name,
        tool: t.remote.name,
        readOnly: t.isReadOnly(),
        readOnlyHint: claimsReadOnly(t.remote),
        description: t.description,
      })),
    }));
  }
}
