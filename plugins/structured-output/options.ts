/** The options the structured-output plugin reads, and the typed messages of a run that has one. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { Message, ResolvedOptions, ResultMessage } from "../../src/index";

/** How the final value is asked for: the provider's response format, a final `StructuredOutput` tool call, or chosen per model. */
export const OUTPUT_MODES = ["auto", "native", "tool"] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];

/** A JSON Schema object (as a config file carries it). */
export type JsonSchemaObject = Record<string, unknown>;

/** Duck-typed zod check (several copies of zod may coexist, so no instanceof). */
export function isZodSchema(value: unknown): value is z.ZodType {
  const v = value as { safeParse?: unknown; _zod?: unknown } | null;
  return typeof v === "object" && v !== null && typeof v.safeParse === "function" && v._zod !== undefined;
}

/** An output schema: a zod schema (code) or a JSON Schema object (code or config files). */
export const OutputSchemaSchema = z
  .union([z.custom<z.ZodType>(isZodSchema, { message: "expected a zod schema" }), z.record(z.string(), z.unknown())])
  .describe(
    "The final answer's shape: a JSON Schema (or a zod schema, in code); the value is in result.structuredOutput",
  );
export type OutputSchema = z.input<typeof OutputSchemaSchema>;

/** The structured-output plugin's slice of the config schema. */
export const structuredOutputOptions = lazyOptions(
  ["outputSchema", "outputMode", "maxStructuredOutputRetries"],
  () => ({
    outputSchema: OutputSchemaSchema.optional(),
    outputMode: z
      .enum(OUTPUT_MODES)
      .optional()
      .describe("['auto': native for OpenAI models with an object schema, the StructuredOutput tool otherwise]"),
    maxStructuredOutputRetries: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe("How often an invalid value is sent back before the run fails [3]"),
  }),
);
export type StructuredOutputOptions = z.input<typeof structuredOutputOptions>;
export type StructuredOutputResolvedOptions = ResolvedOptions & Readonly<StructuredOutputOptions>;

/** The `result` of a run whose `outputSchema` gives the value type `T`. */
export type StructuredResultMessage<T> = Omit<ResultMessage, "structuredOutput"> & {
  /** The validated final value; absent when the run failed. */
  structuredOutput?: T;
};

/** The messages of a run whose `outputSchema` gives the value type `T`: its `result` carries `structuredOutput: T`. */
export type StructuredMessage<T> = Exclude<Message, ResultMessage> | StructuredResultMessage<T>;
