/**
 * Runs one documentation block as a user's program would run: `ubiquity` and its subpaths
 * resolve to this repository's sources (as the test suite's alias does), everything else from
 * node_modules. Usage: jiti run-block.ts <file.ts>
 */
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createJiti } from "jiti";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const file = process.argv[2]!;
const jiti = createJiti(import.meta.url, {
  alias: {
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
  },
});
await jiti.import(file);
