/**
 * The flags of `ubiquity mcp add` apart from its code (mcp-add.ts): the runner lists them under
 * `ubiquity mcp --help` with the plugin's other commands, and mcp-add.ts loads only when the
 * command runs.
 */
import type { CommandFlag } from "../../loader/index";

/** The flags of `claude mcp add` (shown under `ubiquity mcp --help`). */
export const MCP_ADD_FLAGS: Record<string, CommandFlag> = {
  transport: {
    type: "string",
    short: "t",
    value: "<stdio|sse|http>",
    description: "mcp add: the server's transport (claude's -t) [stdio, or http for a URL]",
  },
  env: {
    type: "string",
    short: "e",
    value: "<KEY=value>",
    multiple: true,
    description: "mcp add: a variable of a stdio server",
  },
  header: {
    type: "string",
    short: "H",
    value: "<'Name: value'>",
    multiple: true,
    description: "mcp add: a request header of a remote server",
  },
  scope: {
    type: "string",
    short: "s",
    value: "<local|user|project>",
    description:
      "mcp add: project writes the project's .mcp.json (claude's --scope project); the others print the entry",
  },
};
