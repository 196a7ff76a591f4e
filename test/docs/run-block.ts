/**
 * Runs one documentation block as a user's program would run: `ubiquity` and its subpaths
 * resolve to this repository's sources (as the test suite's alias does), everything else from
 * node_modules. Usage: node --import test/helpers/ts-loader.mjs run-block.ts <file.ts>
 * (`[...tsNodeArgs, run-block.ts, file]` from a test).
 */
import { existsSync, readdirSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const file = process.argv[2]!;
const alias: Record<string, string> = {
  "ubiquity/testing": here("../../src/testing/index.ts"),
  "ubiquity/harness": here("../../harness/index.ts"),
  "ubiquity/plugin": here("../../sdk/plugin.ts"),
  // Each `ubiquity/plugins/<name>` is the plugin's public.ts, as in the package.
  ...Object.fromEntries(
    readdirSync(here("../../plugins"))
      .filter((name) => existsSync(here(`../../plugins/${name}/public.ts`)))
      .map((name) => [`ubiquity/plugins/${name}`, here(`../../plugins/${name}/public.ts`)]),
  ),
  "ubiquity/presets": here("../../presets"),
  "ubiquity-plugin-house-rules": here("../../examples/ubiquity-plugin-house-rules/index.js"),
  ubiquity: here("./ubiquity-shim.ts"),
};
// The longest name that is the specifier or a folder of it wins (`ubiquity/presets/default`).
const names = Object.keys(alias).sort((a, b) => b.length - a.length);
registerHooks({
  resolve(specifier, context, next) {
    const name = names.find((n) => specifier === n || specifier.startsWith(`${n}/`));
    return next(name ? alias[name]! + specifier.slice(name.length) : specifier, context);
  },
});
await import(pathToFileURL(file).href);
