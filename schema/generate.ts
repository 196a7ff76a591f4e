/**
 * `npm run schema`: regenerate schema/ubiquity.config.schema.json from the zod schema.
 * test/config/schema.test.ts fails when the committed file drifts from this output.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configJsonSchemaText } from "../src/config/json-schema";

const target = fileURLToPath(new URL("./ubiquity.config.schema.json", import.meta.url));
writeFileSync(target, configJsonSchemaText());
console.log(`wrote ${target}`);
