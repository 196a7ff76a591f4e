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

/** Byte order, not locale order: the tool block must not depend on the machine's locale. */
export function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
