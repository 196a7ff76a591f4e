/** What the MCP plugin adds to `system/init`: each configured server's status, typed. */
import type { McpServerStatus } from "./servers";

declare module "../../src/messages" {
  interface InitFields {
    /**
     * Each configured MCP server's status (connected with its tool count, or failed with why);
     * absent when the run has no servers. The same list as `extra.mcpServers`, typed.
     */
    mcpServers?: McpServerStatus[];
  }
}
