/**
 * Runs one documentation block as a user's program would run: `ubiquity` and its subpaths
 * resolve to this repository's sources (as the test suite's alias does), everything else from
 * node_modules. Usage: jiti run-block.ts <file.ts>
 */
import { fileURLToPath } from "node:url";
import { createJiti } from "jiti";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const file = process.argv[2]!;
const jiti = createJiti(import.meta.url, {
  alias: {
    "ubiquity/testing": here("../../src/testing/index.ts"),
    "ubiquity/harness": here("../../harness/index.ts"),
    "ubiquity/plugins": here("../../plugins"),
    "ubiquity/presets": here("../../presets"),
    "ubiquity-plugin-house-rules": here("../../examples/ubiquity-plugin-house-rules/index.js"),
    ubiquity: here("./ubiquity-shim.ts"),
  },
});
await jiti.import(file);
