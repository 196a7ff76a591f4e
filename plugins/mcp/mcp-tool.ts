/** An MCP server's tool as a Ubiquity Tool, so it goes through the same funnel as the built-ins. */
import type { z } from "zod";
import { describeError, Tool, type ToolContext, type ToolOutput } from "../../src/index";
import type { McpConnection, McpRemoteTool } from "./connection";
import { jsonSchemaInput, type McpToolInput } from "./input-schema";
import { mcpToolName } from "./names";
import { runSeesImages } from "../model/api";
import { asCaller } from "./callers";
import { progressReporter } from "./notifications";

/** What the model reads about a tool whose server claims it only reads, when the user's config does not say so. */
const READ_ONLY_CLAIM =
  "(Its server marks this tool read-only. That is the server's own claim: plan mode does not run it unless the user's config lists it as read-only.)";

/** True when the server annotates the tool `readOnlyHint: true`. */
export function claimsReadOnly(remote: McpRemoteTool): boolean {
  return remote.annotations?.readOnlyHint === true;
}

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
    // Verbatim (a description rewritten per run would break the prompt cache), plus the server's
    // read-only claim in the prompt, where it informs and decides nothing.
    const description = remote.description ?? remote.title ?? `Tool ${remote.name} of MCP server ${server.name}.`;
    this.description =
      claimsReadOnly(remote) && !this.isReadOnly() ? `${description}\n\n${READ_ONLY_CLAIM}` : description;
    this.jsonSchema = remote.inputSchema as Record<string, unknown>;
    this.inputSchema = jsonSchemaInput(this.jsonSchema, (error) => {
      server.logger.debug(
        `[mcp ${server.name}] the input schema of ${remote.name} does not compile (${describeError(error)}); the server validates its own input`,
      );
    });
  }

  /**
   * Read-only only when the user's config says so (`readOnly: true` on the server, or a list
   * naming this tool): a server's `readOnlyHint` is its own word, and a lying server would run
   * in plan mode and without asking.
   */
  override isReadOnly(): boolean {
    const readOnly = this.server.config.readOnly;
    return readOnly === true || (Array.isArray(readOnly) && readOnly.includes(this.remote.name));
  }

  call(input: McpToolInput, ctx: ToolContext): Promise<ToolOutput> {
    const onprogress = progressReporter(this.server, this.name, ctx);
    return asCaller(this.server, ctx.run, () =>
      this.server.call(this.remote.name, this.name, input, ctx.abortSignal, runSeesImages(ctx.run).sees, onprogress),
    );
  }
}
