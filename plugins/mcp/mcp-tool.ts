/** An MCP server's tool as a Ubiquity Tool, so it goes through the same funnel as the built-ins. */
import type { z } from "zod";
import { describeError, Tool, type ToolContext, type ToolOutput } from "../../src/index";
import type { McpConnection, McpRemoteTool } from "./connection";
import { jsonSchemaInput, type McpToolInput } from "./input-schema";
import { mcpToolName } from "./names";
import { runSeesImages } from "../model/api";

/** `mcp__<server>__<tool>`: one tool of one server. */
export class McpTool extends Tool<z.ZodType<McpToolInput>> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: z.ZodType<McpToolInput>;
  override jsonSchema: Record<string, unknown>;

  constructor(
    readonly server: McpConnection,
    readonly remote: McpRemoteTool,
  ) {
    super();
    this.name = mcpToolName(server.name, remote.name);
    // Verbatim: a description rewritten per run would break the prompt cache.
    this.description = remote.description ?? remote.title ?? `Tool ${remote.name} of MCP server ${server.name}.`;
    this.jsonSchema = remote.inputSchema as Record<string, unknown>;
    this.inputSchema = jsonSchemaInput(this.jsonSchema, (error) => {
      server.logger.debug(`[mcp ${server.name}] the input schema of ${remote.name} does not compile (${describeError(error)}); the server validates its own input`);
    });
  }

  /** Read-only only when the server says so: a server that says nothing may change things. */
  override isReadOnly(): boolean {
    return this.remote.annotations?.readOnlyHint === true;
  }

  call(input: McpToolInput, ctx: ToolContext): Promise<ToolOutput> {
    return this.server.call(this.remote.name, this.name, input, ctx.abortSignal, runSeesImages(ctx.run).sees);
  }
}
