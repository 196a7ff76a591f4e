import { ConfigError } from "../../src/index";

/**
 * Tool names for MCP tools: `mcp__<server>__<tool>`. The prefix keeps them from shadowing a
 * built-in and lets one rule target a whole server (`mcp__github__*`).
 */

/** The longest tool name providers accept (Anthropic and OpenAI both stop at 64). */
export const MAX_TOOL_NAME = 64;

/** Replace what providers reject in a tool name (anything but letters, digits, `_`, `-`) with `_`. */
export function cleanNamePart(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** The name the model calls for `tool` of `server`. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${cleanNamePart(server)}__${cleanNamePart(tool)}`;
}

/**
 * Refuse server names that make tool names ambiguous: one containing the separator `__` (or
 * starting or ending with `_`, which glues to it), and two that clean to the same name
 * (`my.server` and `my_server`). A rule for `mcp__a__*` must mean exactly one server.
 */
export function checkServerNames(names: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const name of names) {
    const clean = cleanNamePart(name);
    if (clean.includes("__") || clean.startsWith("_") || clean.endsWith("_")) {
      throw new ConfigError(
        `MCP server name ${JSON.stringify(name)} contains (or touches) the separator "__" of mcp__<server>__<tool> names, so its tools could be mistaken for another server's; rename it in mcpServers`,
      );
    }
    const other = seen.get(clean);
    if (other !== undefined) {
      throw new ConfigError(
        `MCP servers ${JSON.stringify(other)} and ${JSON.stringify(name)} both give tools the prefix mcp__${clean}__, so a rule could not tell them apart; rename one of them in mcpServers`,
      );
    }
    seen.set(clean, name);
  }
}

/** Byte order, not locale order: the tool block must not depend on the machine's locale. */
export function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The name an elicitation goes to `canUseTool` under (and the terminal answerer answers). */
export const ELICITATION_CALL = "McpElicitation";
