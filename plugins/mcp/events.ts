/** The mcp plugin's events on the kernel's `event` firehose. */

/** A server's progress on a tool call (`notifications/progress`). */
export interface McpProgressEvent {
  type: "mcp.progress";
  server: string;
  /** The tool's name as the model calls it (`mcp__<server>__<tool>`). */
  tool: string;
  toolUseId: string;
  progress: number;
  total?: number;
  message?: string;
}

/** A server's log line (`notifications/message`), at the server's own level. */
export interface McpLogEvent {
  type: "mcp.log";
  server: string;
  level: "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
  logger?: string;
  /** The server's data, as text. */
  message: string;
}

/** A server changed its tools, prompts or resources (`notifications/<kind>/list_changed`). */
export interface McpListChangedEvent {
  type: "mcp.list_changed";
  server: string;
  kind: "tools" | "prompts" | "resources";
}

declare module "../../src/hooks" {
  interface PluginEvents {
    "mcp.progress": McpProgressEvent;
    "mcp.log": McpLogEvent;
    "mcp.list_changed": McpListChangedEvent;
  }
}
