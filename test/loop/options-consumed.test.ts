/**
 * Every Options field (the kernel's and the default preset's plugins' slices) is read by the kernel or some plugin. A field declared in the schema but
 * consumed nowhere fails here. Fields of features not built yet are listed as pending; the list
 * shrinks as issues land (a pending field that is now consumed fails too, so it gets removed).
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { composeConfigSchema, KernelFieldsSchema } from "../../src/index";
import { defaultPlugins } from "../../sdk/facade";

const PENDING: Record<string, string> = {};
const plugins = await defaultPlugins();

// These files set or mask options; they do not act on them.
const NOT_CONSUMERS = [
  join("src", "config", "schema.ts"),
  join("src", "runner.ts"),
  join("src", "cli.ts"),
  join("src", "redact.ts"),
];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith(".ts") && !NOT_CONSUMERS.some((n) => path.endsWith(n))) out.push(path);
  }
  return out;
}

// Comments mention options without consuming them.
const stripComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
const code = [...sources("src"), ...sources("plugins")].map((f) => stripComments(readFileSync(f, "utf8"))).join("\n");

function consumed(field: string): boolean {
  // `options.x`, or through the plugin context's typed view: `context.optionsOf(run).x`, `opts.x`.
  const access = new RegExp(`(options|optionsOf\\([\\w.]*\\)|opts)\\??\\.${field}\\b`);
  const destructure = new RegExp(
    `\\{[^}\\n]*\\b${field}\\b[^}\\n]*\\}\\s*=\\s*[\\w.?]*(options\\b|optionsOf\\([\\w.]*\\))`,
  );
  // Through the owner's slice, where no context is at hand: `readOption(mcpOptions, options, "x")`.
  const read = new RegExp(`readOption\\(\\w+, [^,()]+, "${field}"\\)`);
  return access.test(code) || destructure.test(code) || read.test(code);
}

describe("every option is consumed", () => {
  const fields = Object.keys(composeConfigSchema(plugins).schema.shape).filter((f) => !(f in KernelFieldsSchema.shape));

  it("has a consumer for each field not pending", () => {
    const missing = fields.filter((f) => !(f in PENDING) && !consumed(f));
    expect(missing).toEqual([]);
  });

  it("lists no pending field that is consumed already (shrink the list)", () => {
    const stale = Object.keys(PENDING).filter((f) => consumed(f));
    expect(stale).toEqual([]);
  });

  it("lists only real fields as pending", () => {
    expect(Object.keys(PENDING).filter((f) => !fields.includes(f))).toEqual([]);
  });
});
