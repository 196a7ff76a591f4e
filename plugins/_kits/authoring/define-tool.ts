/** `defineTool`: a `Tool` from an object, the seed's style. The kernel takes `Tool`s, however made. */
import type { z } from "zod";
import { Tool, type ToolContext, type ToolOutput, type ToolKind, type ToolPermission } from "../../../src/index";

type Awaitable<T> = T | Promise<T>;

/**
 * The result of a Claude Agent SDK `tool()` handler (an MCP `CallToolResult` of text blocks), which
 * `execute` may return as it is: its text blocks, a line apart, are the tool's content.
 */
export interface TextBlocksResult {
  content: readonly { type: "text"; text: string }[];
  isError?: boolean | undefined;
}

/** The object form of a tool, for `defineTool()`. */
export interface ToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  inputSchema: S;
  /** The call: its text (a string), a `ToolOutput`, or a Claude Agent SDK `tool()` handler's `{ content: [{ type: "text", text }] }`. */
  execute(input: z.output<S>, ctx: ToolContext): Awaitable<ToolOutput | TextBlocksResult | string>;
  isReadOnly?: boolean | ((input: z.output<S>) => boolean) | undefined;
  isConcurrencySafe?: boolean | ((input: z.output<S>) => boolean) | undefined;
  checkPermissions?(input: z.output<S>, ctx: ToolContext): Awaitable<ToolPermission>;
  permissionRuleContent?(input: z.output<S>): string[] | undefined;
  validateInput?(input: z.output<S>, ctx: ToolContext): Awaitable<string | undefined>;
  maxResultChars?: number | undefined;
  /** Longest a call may run (ms; `Infinity`: no limit) [toolTimeoutMs]. */
  timeoutMs?: number | undefined;
  /** What the tool does (`read`, `search`, `edit`, `execute`, `network`, `other`). */
  kind?: ToolKind | undefined;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Define a tool from an object; returns a `Tool` instance. */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): Tool<S> {
  if (!TOOL_NAME.test(spec.name)) {
    throw new TypeError(
      `defineTool: invalid tool name ${JSON.stringify(spec.name)}; use 1-64 letters, digits, "_" or "-"`,
    );
  }
  if (typeof spec.execute !== "function") throw new TypeError(`defineTool(${spec.name}): execute must be a function`);
  const flag = (v: boolean | ((i: z.output<S>) => boolean) | undefined, input: z.output<S>) =>
    typeof v === "function" ? v(input) : (v ?? false);
  class DefinedTool extends Tool<S> {
    readonly name = spec.name;
    readonly description = spec.description;
    readonly inputSchema = spec.inputSchema;
    override maxResultChars = spec.maxResultChars;
    override timeoutMs = spec.timeoutMs;
    override kind = spec.kind;
    override isReadOnly(input: z.output<S>) {
      return flag(spec.isReadOnly, input);
    }
    override isConcurrencySafe(input: z.output<S>) {
      return flag(spec.isConcurrencySafe, input);
    }
    override checkPermissions(input: z.output<S>, ctx: ToolContext) {
      return spec.checkPermissions?.(input, ctx);
    }
    override permissionRuleContent(input: z.output<S>) {
      return spec.permissionRuleContent?.(input);
    }
    override validateInput(input: z.output<S>, ctx: ToolContext) {
      return spec.validateInput?.(input, ctx);
    }
    async call(input: z.output<S>, ctx: ToolContext): Promise<ToolOutput> {
      const out = await spec.execute(input, ctx);
      if (typeof out === "string") return { content: out };
      return Array.isArray(out?.content) ? fromTextBlocks(spec.name, out as TextBlocksResult) : (out as ToolOutput);
    }
  }
  return new DefinedTool();
}

/**
 * A `tool()` handler's result, kept as it was when the tool was ported from the Claude Agent SDK:
 * it reached the model as "it returned no content". Text blocks are the content; a block of another
 * kind (an image, a resource) is refused by name rather than dropped.
 */
function fromTextBlocks(name: string, out: TextBlocksResult): ToolOutput {
  const other = out.content.find((b) => b?.type !== "text" || typeof b.text !== "string");
  if (other !== undefined)
    throw new TypeError(
      `${name}'s execute returned a content block of type ${JSON.stringify((other as { type?: unknown } | null)?.type)}: a tool's content here is text (a string, or { content: string, isError? }); describe anything else in the text`,
    );
  return { content: out.content.map((b) => b.text).join("\n"), ...(out.isError === true ? { isError: true } : {}) };
}
