/**
 * The config's JSON Schema, generated from the one zod schema. Editors use it (`$schema` in
 * YAML/JSON configs); `ubiquity schema` prints it; `npm run schema` commits it.
 */
import { z } from "zod";
import { ConfigSchema } from "./schema";

/** The JSON Schema of a config file, as an object. Fields only code can supply render as `{}`. */
export function configJsonSchema(): Record<string, unknown> {
  // io "input": a config file is what users write, before defaults and transforms.
  const schema = z.toJSONSchema(ConfigSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  const { $schema, ...rest } = schema;
  return { $schema, title: "Ubiquity config", ...rest };
}

/** The JSON Schema as the committed file's text (2-space JSON, trailing newline). */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
