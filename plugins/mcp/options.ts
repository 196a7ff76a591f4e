/** The options the MCP plugin reads (`mcpServers`), and the server config shape. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";
import { settingsOptions } from "../settings/api";
import { ClaudePluginsOption } from "../_kits/sources/index";
import { functionSchema } from "../_kits/authoring/index";
import { contextBudgetOptions } from "../_kits/compaction/index";
import { permissionsOptions } from "../permissions/api";
import type { OnElicitation } from "./elicitation";

/**
 * Which of a server's tools only read, in the user's words: `true` for all of them, or the
 * server's own names of those that do. A server's `readOnlyHint` is its own claim and never
 * counts (plan mode runs only read-only tools, and a read-only tool runs without asking).
 */
const ReadOnlySchema = z
  .union([z.boolean(), z.array(z.string().min(1))])
  .optional()
  .describe(
    "The server's tools that only read: true for all, or a list of the server's tool names (its readOnlyHint never counts) [false]",
  );

/**
 * Whether the server may ask for our roots (the run's cwd and additionalDirectories). Off unless
 * asked for: a server may treat roots as the folders it is allowed to touch — server-filesystem
 * replaces the folders of its command line with them — so offering them widens its reach.
 */
const RootsSchema = z
  .boolean()
  .optional()
  .describe(
    "Answer the server's roots/list with the run's cwd and additionalDirectories (it may then use them as the folders it may touch) [false]",
  );

const McpStdioSchema = z.strictObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  readOnly: ReadOnlySchema,
  roots: RootsSchema,
});
/** OAuth settings of a remote server (`false` turns OAuth off for it). */
const McpOAuthSchema = z.strictObject({
  clientId: z
    .string()
    .min(1)
    .optional()
    .describe("A client ID registered with the authorization server in advance (no registration then)"),
  clientMetadataUrl: z
    .string()
    .url()
    .optional()
    .describe(
      "The HTTPS URL of a client ID metadata document, used as the client ID where the authorization server supports them (else dynamic registration)",
    ),
  callbackPort: z
    .number()
    .int()
    .min(1)
    .max(65535)
    .optional()
    .describe("The 127.0.0.1 port `ubiquity mcp login` waits on for the redirect [a free port]"),
  scope: z.string().min(1).optional().describe("The scope to ask for [what the server's metadata names]"),
});
export type McpOAuthConfig = z.input<typeof McpOAuthSchema>;

const McpRemoteSchema = (type: "sse" | "http") =>
  z.strictObject({
    type: z.literal(type),
    url: z.string().url(),
    headers: z.record(z.string(), z.string()).optional(),
    headersHelper: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A shell command printing a JSON object of headers, run at each connect; they win over `headers` (Claude Code's headersHelper)",
      ),
    oauth: z
      .union([z.literal(false), McpOAuthSchema])
      .optional()
      .describe(
        "OAuth 2.1 (log in with `ubiquity mcp login <name>`); false turns it off [on, unless headers send an Authorization]",
      ),
    readOnly: ReadOnlySchema,
    roots: RootsSchema,
  });
/** One MCP server: stdio (`command`), `sse` or streamable `http`. */
export const McpServerSchema = z.union([McpStdioSchema, McpRemoteSchema("sse"), McpRemoteSchema("http")]);
export type McpServerConfig = z.input<typeof McpServerSchema>;

/** The MCP plugin's slice of the config schema. */
export const mcpOptions = lazyOptions(
  [
    "mcpServers",
    "strictMcpConfig",
    "permissionPromptTool",
    "trust",
    "claudePlugins",
    "onElicitation",
    "mcpToolSearch",
    "canUseTool",
    "maxContextTokens",
  ],
  () => ({
    mcpServers: z.record(z.string(), McpServerSchema).optional(),
    strictMcpConfig: z
      .boolean()
      .optional()
      .describe(
        "Start only the servers of mcpServers: none from the project's .mcp.json or from Claude Code plugins (claude's --strict-mcp-config) [false]",
      ),
    permissionPromptTool: z
      .string()
      .regex(/^mcp__.+__.+$/, "an MCP tool's name: mcp__<server>__<tool>")
      .optional()
      .describe(
        'An MCP tool that answers the calls needing a decision when no one is asked (claude\'s --permission-prompt-tool): called with { tool_name, input, tool_use_id }, it answers {"behavior":"allow","updatedInput"?} or {"behavior":"deny","message"}; anything else denies',
      ),
    trust: settingsOptions.shape.trust,
    claudePlugins: ClaudePluginsOption,
    onElicitation: functionSchema<OnElicitation>("onElicitation")
      .optional()
      .describe(
        "Answers an MCP server's request for input (a form or a URL to open); without it (and without canUseTool) requests are declined",
      ),
    mcpToolSearch: z
      .union([z.boolean(), z.number().gt(0).lt(1)])
      .optional()
      .describe(
        "Defer MCP tools behind a search tool when their definitions exceed this share of the context window; true always, false never [0.1]",
      ),
    // Read here too: elicitation falls back to canUseTool, tool search sizes against the window.
    canUseTool: permissionsOptions.shape.canUseTool,
    maxContextTokens: contextBudgetOptions.shape.maxContextTokens,
  }),
);
export type McpOptions = z.input<typeof mcpOptions>;
export type McpResolvedOptions = ResolvedOptions & Readonly<McpOptions>;
