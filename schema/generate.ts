/**
 * `npm run schema`: regenerate schema/ubiquity.config.schema.json from the zod slices
 * of the kernel and the default preset's plugins.
 * test/config/schema.test.ts fails when the committed file drifts from this output.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defaultConfigJsonSchemaText } from "../sdk/facade";

const target = fileURLToPath(new URL("./ubiquity.config.schema.json", import.meta.url));
writeFileSync(target, await defaultConfigJsonSchemaText());
console.log(`wrote ${target}`);
