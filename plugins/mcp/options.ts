/** The options the MCP plugin reads (`mcpServers`), and the server config shape. */
import { z } from "zod";
import type { ResolvedOptions } from "../../src/index";

const McpStdioSchema = z.strictObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});
const McpRemoteSchema = (type: "sse" | "http") =>
  z.strictObject({
    type: z.literal(type),
    url: z.string().url(),
    headers: z.record(z.string(), z.string()).optional(),
  });
/** One MCP server: stdio (`command`), `sse` or streamable `http`. */
export const McpServerSchema = z.union([McpStdioSchema, McpRemoteSchema("sse"), McpRemoteSchema("http")]);
export type McpServerConfig = z.input<typeof McpServerSchema>;

/** The MCP plugin's slice of the config schema. */
export const mcpOptions = z.strictObject({
  mcpServers: z.record(z.string(), McpServerSchema).optional(),
});
export type McpOptions = z.input<typeof mcpOptions>;
export type McpResolvedOptions = ResolvedOptions & Readonly<McpOptions>;
