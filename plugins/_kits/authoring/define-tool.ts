/** `defineTool`: a `Tool` from an object, the seed's style. The kernel takes `Tool`s, however made. */
import type { z } from "zod";
import { Tool, type ToolContext, type ToolOutput, type ToolKind, type ToolPermission } from "../../../src/index";

type Awaitable<T> = T | Promise<T>;

/** The object form of a tool, for `defineTool()`. */
export interface ToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  inputSchema: S;
  execute(input: z.output<S>, ctx: ToolContext): Awaitable<ToolOutput | string>;
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
      return typeof out === "string" ? { content: out } : out;
    }
  }
  return new DefinedTool();
}
