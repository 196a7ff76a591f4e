/**
 * The config's JSON Schema, generated from the zod slices: the kernel's fields plus the
 * `options` slice of each plugin in a list (`composeConfigSchema`). Editors use it (`$schema` in
 * YAML/JSON configs); `ubiquity schema` prints it and `npm run schema` commits it, both for the
 * default preset's plugins.
 */
import { z } from "zod";
import { composeConfigSchema, type Plugin } from "../src/index";

/**
 * The JSON Schema of a config file for `plugins` (the kernel's fields alone without them), as an
 * object. Fields only code can supply render as `{}`.
 */
export function configJsonSchema(plugins: readonly Pick<Plugin, "name" | "options">[] = []): Record<string, unknown> {
  // io "input": a config file is what users write, before defaults and transforms.
  const schema = z.toJSONSchema(composeConfigSchema(plugins).schema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  const { $schema, ...rest } = schema;
  return { $schema, title: "Ubiquity config", ...rest };
}

/** The JSON Schema as the committed file's text (2-space JSON, trailing newline). */
export function configJsonSchemaText(plugins: readonly Pick<Plugin, "name" | "options">[] = []): string {
  return `${JSON.stringify(configJsonSchema(plugins), null, 2)}\n`;
}
