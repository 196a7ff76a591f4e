/**
 * The public entries against their reviewed API reports (api/), without a build: every entry of
 * package.json `exports` has a committed report, and the values each entry exports at run time
 * are the values its report lists — so `npm test` catches an added or removed export early, and
 * `npm run api:check` (CI, after the build) catches any change of a signature. Also the issue 45
 * bounds: internals are no export of `ubiquity`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** The runtime entries: specifier → source module and report. */
function entries(): { specifier: string; source: string; report: string }[] {
  const list = [
    { specifier: "ubiquity", source: "sdk/index.ts", report: "api/ubiquity.api.md" },
    { specifier: "ubiquity/plugin", source: "sdk/plugin.ts", report: "api/ubiquity-plugin.api.md" },
    { specifier: "ubiquity/testing", source: "src/testing/index.ts", report: "api/ubiquity-testing.api.md" },
    { specifier: "ubiquity/harness", source: "harness/index.ts", report: "api/ubiquity-harness.api.md" },
  ];
  for (const name of readdirSync(join(root, "plugins")).sort())
    if (!name.startsWith("_") && existsSync(join(root, "plugins", name, "public.ts")))
      list.push({
        specifier: `ubiquity/plugins/${name}`,
        source: `plugins/${name}/public.ts`,
        report: `api/plugins/${name}.api.md`,
      });
  for (const file of readdirSync(join(root, "presets")).sort())
    if (file.endsWith(".ts"))
      list.push({
        specifier: `ubiquity/presets/${file.slice(0, -3)}`,
        source: `presets/${file}`,
        report: `api/presets/${file.slice(0, -3)}.api.md`,
      });
  return list;
}

/**
 * The value exports an API report lists (functions, classes, constants, the default export). A zod
 * schema and its type share a name (`PermissionsPluginOptions`); an entry that re-exports only the
 * type (`export type { … }`) still shows the constant in its report (API Extractor follows the
 * merged symbol), so a name the report also declares as a type counts when the module has it.
 */
function reportedValues(report: string, runtime: string[]): string[] {
  const names = new Set<string>();
  for (const m of report.matchAll(/^export (?:declare )?(?:abstract )?(?:function|class|const|let|var|enum) (\w+)/gm))
    if (runtime.includes(m[1]!) || !new RegExp(`^export (?:type|interface) ${m[1]}\\b`, "m").test(report))
      names.add(m[1]!);
  if (/^export default /m.test(report)) names.add("default");
  return [...names].sort();
}

describe("the public entries", () => {
  it("package.json exports ubiquity, ubiquity/plugin, and each plugin's public.ts as ubiquity/plugins/<name>", () => {
    const exports = JSON.parse(read("package.json")).exports;
    expect(exports["."].types).toBe("./dist/types/sdk/index.d.ts");
    expect(exports["./plugin"]).toEqual({ types: "./dist/types/sdk/plugin.d.ts", import: "./dist/sdk/plugin.mjs" });
    expect(exports["./plugins/*"].import).toBe("./dist/plugins/*/public.mjs");
    expect(exports["./plugins/_kits/*"]).toBeNull();
  });

  for (const entry of entries())
    it(`${entry.specifier}: its run-time exports are the values api report lists`, async () => {
      expect(existsSync(join(root, entry.report)), `${entry.report} (npm run api:update)`).toBe(true);
      const runtime = Object.keys(await import(join(root, entry.source))).sort();
      expect(runtime, `${entry.specifier} vs ${entry.report}: npm run api:update`).toEqual(
        reportedValues(read(entry.report), runtime),
      );
    });

  it("ubiquity exports no internals, and at most the 30 values an application uses", async () => {
    const app = await import(join(root, "sdk/index.ts"));
    for (const internal of ["driveRun", "runToolCall", "runToolCalls", "createRun", "callModel", "toolContext"])
      expect(app, internal).not.toHaveProperty(internal);
    expect(Object.keys(app).length).toBeLessThanOrEqual(30);
  });
});
