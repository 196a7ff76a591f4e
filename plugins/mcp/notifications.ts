/**
 * What servers tell us besides answers: progress on a call (an event, and the call's timeout
 * counts from the latest), log lines (to the logger at their level, and an event), `list_changed`
 * (tools re-listed and re-registered, prompts re-listed, the cache-break detector told which
 * server changed the prefix), and our roots when a server the config gives them (`roots: true`)
 * asks (the run's folders, as file URLs).
 */
import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import { type Kernel, redactText, secretsOf, secretsOfRun, type ToolContext } from "../../src/index";
import type { McpConnection } from "./connection";
import type { McpLogEvent } from "./events";
import "./events";

/** What to do when a server's lists change (set by the plugin: re-register, re-list). */
export interface ListChangeHandlers {
  tools(connection: McpConnection): Promise<void>;
  prompts(connection: McpConnection): Promise<void>;
}

/** Emits `mcp.progress` for one call, or nothing when the call has no run to report to. */
export function progressReporter(connection: McpConnection, tool: string, ctx: ToolContext) {
  const kernel = ctx.run?.kernel;
  if (!kernel) return undefined;
  return (p: { progress: number; total?: number; message?: string }) =>
    kernel.emit({
      type: "mcp.progress",
      server: connection.name,
      tool,
      toolUseId: ctx.toolUseId,
      progress: p.progress,
      ...(p.total !== undefined ? { total: p.total } : {}),
      ...(p.message !== undefined ? { message: redactText(p.message, secretsOfRun(ctx.run!)) } : {}),
    });
}

const LOUD = new Set(["error", "critical", "alert", "emergency"]);

/** The roots a server sees: the run's cwd and its additional directories, as `file://` URLs. */
export function rootsOf(kernel: Kernel): { uri: string; name: string }[] {
  const { cwd, additionalDirectories } = kernel.options;
  return [cwd, ...(additionalDirectories ?? [])].map((dir) => ({ uri: pathToFileURL(dir).href, name: dir }));
}

/** Install the notification handlers and the roots handler on a client before it connects. */
export function installNotifications(
  client: Client,
  connection: McpConnection,
  kernel: Kernel,
  owner: string,
  lists: ListChangeHandlers,
): void {
  client.setNotificationHandler("notifications/message", (notification) => {
    const { level, logger, data } = notification.params;
    // Masked as the logger masks its line: the event reaches a program's own taps (red team zl, ZL3).
    const message = redactText(typeof data === "string" ? data : JSON.stringify(data), secretsOf(kernel.options));
    const line = `[mcp ${connection.name}${logger ? ` ${logger}` : ""}] ${level}: ${message}`;
    if (LOUD.has(level)) kernel.logger.warn(line);
    else kernel.logger.debug(line);
    kernel.emit({
      type: "mcp.log",
      server: connection.name,
      level: level as McpLogEvent["level"],
      ...(logger ? { logger } : {}),
      message,
    });
  });
  const changed = (kind: "tools" | "prompts" | "resources", then?: (c: McpConnection) => Promise<void>) => async () => {
    kernel.logger.debug(`[${owner}] MCP server "${connection.name}" changed its ${kind}`);
    await then?.(connection);
    kernel.emit({ type: "mcp.list_changed", server: connection.name, kind });
  };
  client.setNotificationHandler("notifications/tools/list_changed", changed("tools", lists.tools));
  client.setNotificationHandler("notifications/prompts/list_changed", changed("prompts", lists.prompts));
  client.setNotificationHandler("notifications/resources/list_changed", changed("resources"));
  if (connection.config.roots) client.setRequestHandler("roots/list", () => ({ roots: rootsOf(kernel) }));
}
