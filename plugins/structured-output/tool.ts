/**
 * The `StructuredOutput` tool: the final answer as a tool call whose input is the value, for
 * providers without a native response format. Its input is checked here, not by the funnel, so
 * an invalid value comes back to the model with the schema's own error and counts as an attempt.
 * A schema whose root is no object is offered wrapped as `{ value }` (tool inputs are objects).
 */
import { z } from "zod";
import { Tool, type ToolOutput } from "../../src/index";
import { STRUCTURED_OUTPUT_TOOL } from "./names";
import type { CompiledSchema } from "./schema";

/** What the tool reports to the plugin for each call. */
export type Submit = (verdict: { ok: true; value: unknown } | { ok: false; error: string }) => ToolOutput;

/** The StructuredOutput tool of one run. */
export class StructuredOutputTool extends Tool<z.ZodType<Record<string, unknown>>> {
  readonly name = STRUCTURED_OUTPUT_TOOL;
  readonly description =
    "Give your final answer as structured data: call this once, when the task is done, with the answer as the input. " +
    "The input must match the schema; an invalid value is refused with the reason, and you call again with a corrected one. The run ends when a value is accepted.";
  readonly inputSchema = z.record(z.string(), z.unknown());
  override jsonSchema: Record<string, unknown>;

  constructor(
    private readonly compiled: CompiledSchema,
    private readonly submit: Submit,
  ) {
    super();
    this.jsonSchema = compiled.isObject ? compiled.jsonSchema : wrap(compiled.jsonSchema);
  }

  // Giving the answer changes nothing: it runs in every permission mode, plan included.
  override isReadOnly(): boolean {
    return true;
  }

  async call(input: Record<string, unknown>): Promise<ToolOutput> {
    if (!this.compiled.isObject && !("value" in input))
      return this.submit({ ok: false, error: 'the input must be { "value": <the answer> }' });
    return this.submit(this.compiled.check(this.compiled.isObject ? input : input.value));
  }
}

/**
 * `schema` as the `value` of an object schema. Its `$ref`s are resolved against the root, so the
 * definitions move up to the wrapper's root and a ref into the schema itself ("#", "#/items")
 * points under `properties/value`.
 */
function wrap(schema: Record<string, unknown>): Record<string, unknown> {
  const { $defs, definitions, ...rest } = schema;
  const rebase = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rebase);
    if (typeof node !== "object" || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node))
      out[key] = key === "$ref" && typeof value === "string" ? rebaseRef(value) : rebase(value);
    return out;
  };
  const rebaseRef = (ref: string) =>
    ref === "#"
      ? "#/properties/value"
      : /^#\/(?!\$defs\/|definitions\/)/.test(ref)
        ? `#/properties/value/${ref.slice(2)}`
        : ref;
  return {
    type: "object",
    properties: { value: rebase(rest) },
    required: ["value"],
    additionalProperties: false,
    ...($defs !== undefined && { $defs: rebase($defs) }),
    ...(definitions !== undefined && { definitions: rebase(definitions) }),
  };
}
