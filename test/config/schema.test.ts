import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import Ajv2020 from "ajv/dist/2020";
import { parse } from "yaml";
import { defaultPlugins } from "../../sdk/facade";
import { validateConfig } from "../../src/index";
import { configJsonSchemaText } from "../../loader/index";
import { repoRoot } from "../helpers/project";

const committedPath = join(repoRoot, "schema", "ubiquity.config.schema.json");
const committed = readFileSync(committedPath, "utf8");

/** The Config files guide's first ```yaml block: the config example users copy. */
function readmeYamlExample(): string {
  const readme = join(repoRoot, "docs", "guide", "config-files.md");
  if (!existsSync(readme))
    throw new Error("docs/guide/config-files.md is missing; it must show a YAML config example in a ```yaml block");
  const block = /```ya?ml\n([\s\S]*?)```/.exec(readFileSync(readme, "utf8"));
  if (!block) throw new Error("docs/guide/config-files.md has no ```yaml block; add the YAML config example");
  return block[1]!;
}

function validator() {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  // zod emits `format: "uri"` for URLs; ajv ships no format implementations without ajv-formats.
  ajv.addFormat("uri", (value: string) => URL.canParse(value));
  return ajv.compile(JSON.parse(committed) as object);
}

describe("the committed JSON Schema", () => {
  it("matches what `npm run schema` generates from the zod slices of the kernel and the default preset's plugins (run it after changing an options slice)", async () => {
    expect(committed).toBe(configJsonSchemaText(await defaultPlugins()));
  });

  it("validates the Config files guide's YAML config example, which the zod schema also accepts", async () => {
    const example = parse(readmeYamlExample()) as Record<string, unknown>;
    const validate = validator();
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    const plugins = await defaultPlugins();
    expect(() => validateConfig(example, new Set(), undefined, { plugins })).not.toThrow();
  });

  it("rejects a config with a wrong type, and an unknown key", () => {
    const validate = validator();
    expect(validate(parse("maxTurns: forty\n"))).toBe(false);
    expect(validate.errors).toContainEqual(
      expect.objectContaining({ instancePath: "/maxTurns", message: "must be integer" }),
    );
    expect(validate(parse("permissionMode: yolo\n"))).toBe(false);
    expect(validate(parse("modle: openai:gpt-5\n"))).toBe(false);
    expect(validate.errors).toContainEqual(
      expect.objectContaining({ keyword: "additionalProperties", params: { additionalProperty: "modle" } }),
    );
  });

  it("accepts the shapes JSON/YAML configs use: $schema, string specifiers, [name, options], false", () => {
    const validate = validator();
    const config = parse(
      [
        "$schema: ./node_modules/ubiquity/schema/ubiquity.config.schema.json",
        "presets: [ubiquity/presets/headless]",
        "plugins:",
        "  - ubiquity-plugin-house-rules",
        "  - [./my-plugin.ts, { verbose: true }]",
        "  - false",
        "disable: [ubiquity:memory]",
        "mcpServers:",
        "  github: { command: npx, args: [-y, '@modelcontextprotocol/server-github'] }",
      ].join("\n"),
    );
    expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
  });
});
