/** What the structured-output plugin adds to the `ubiquity` runner: `run --output-schema <file>`, `--output-mode <mode>`. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describeError } from "../../src/index";
import { UsageError } from "../../loader/index";
import type { RunFlag } from "../../loader/index";
import { OUTPUT_MODES } from "./options";

/** Read a JSON Schema file for `--output-schema` (the user's own file: trust does not apply). */
export function readSchemaFile(spec: string): Record<string, unknown> {
  const path = resolve(spec);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`--output-schema ${spec}: cannot read the file (${describeError(error)})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--output-schema ${path}: not valid JSON (${describeError(error)})`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    throw new UsageError(`--output-schema ${path}: expected a JSON Schema object`);
  return data as Record<string, unknown>;
}

/** `--json-schema` as `claude -p` takes it: the schema's JSON itself (or, not starting with `{`, a file). */
export function readInlineSchema(spec: string): Record<string, unknown> {
  if (!spec.trimStart().startsWith("{")) return readSchemaFile(spec);
  let data: unknown;
  try {
    data = JSON.parse(spec);
  } catch (error) {
    throw new UsageError(
      `--json-schema: not valid JSON (${describeError(error)}); pass the schema itself, e.g. --json-schema '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}'`,
    );
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    throw new UsageError("--json-schema: expected a JSON Schema object");
  return data as Record<string, unknown>;
}

/** `run --json-schema`, `--output-schema`, `--output-mode`. */
export const structuredOutputFlags: Record<string, RunFlag> = {
  "json-schema": {
    type: "string",
    value: "<json>",
    group: "Prompt and output",
    claude: "--json-schema",
    description:
      "A JSON Schema, inline: the final answer is a JSON value that validates (in the result's structuredOutput); as --output-schema",
    apply: (o, v, values) => {
      if (values?.["output-schema"] !== undefined)
        throw new UsageError("--json-schema and --output-schema both give the schema; pass one");
      o.outputSchema = readInlineSchema(String(v));
    },
  },
  "output-schema": {
    type: "string",
    value: "<file>",
    group: "Prompt and output",
    description:
      "A JSON Schema file: the final answer is a JSON value that validates (in the result's structuredOutput)",
    apply: (o, v) => void (o.outputSchema = readSchemaFile(String(v))),
  },
  "output-mode": {
    type: "string",
    value: "<mode>",
    group: "Prompt and output",
    description: `How --output-schema is asked for: ${OUTPUT_MODES.join(", ")} (auto: the provider's native format for OpenAI, the StructuredOutput tool otherwise)`,
    apply: (o, v) => {
      if (!(OUTPUT_MODES as readonly string[]).includes(String(v)))
        throw new UsageError(`--output-mode must be one of ${OUTPUT_MODES.join(", ")}, not ${JSON.stringify(v)}`);
      o.outputMode = String(v);
    },
  },
};
