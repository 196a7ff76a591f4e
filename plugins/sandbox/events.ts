/** The sandbox's event on the kernel's `event` firehose. */

/** A write, read or connection refused by the OS sandbox (ubiquity:sandbox). */
export interface SandboxViolationEvent {
  type: "sandbox.violation";
  /** What was refused: a write, a read, or a network connection. */
  kind: "write" | "read" | "network";
  /** What ran: `bash`, `hook` or `mcp` (undefined when the proxy cannot tell). */
  source?: "bash" | "hook" | "mcp" | "lsp";
  /** One line saying what was refused. */
  detail: string;
  /** The Bash command or hook command, when known. */
  command?: string;
  toolUseId?: string;
}

declare module "../../src/hooks" {
  interface PluginEvents {
    "sandbox.violation": SandboxViolationEvent;
  }
}
