/**
 * What other plugins use of the mcp plugin without loading it (or the MCP SDK): the parser of
 * `.mcp.json` and `mcpServers` entries, which the settings plugin applies to its files too.
 */
export {
  parseMcpConfig,
  readMcpConfigEntries,
  type ParseMcpConfigOptions,
  type McpConfigEntries,
  type McpServerProblem,
} from "./config";
export { McpServerSchema, type McpServerConfig } from "./options";
export { mcpToolName } from "./names";
