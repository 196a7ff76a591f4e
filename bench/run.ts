/**
 * `npm run bench [name...]`: runs each benchmark module in bench/ (every `*.bench.ts`), one
 * after another, each printing its own figures. Benchmarks never run as part of `npm test`.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.bench\.ts$/, "")))
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matched ${wanted.join(", ") || "(none in bench/)"}`);
  process.exit(1);
}
for (const file of files) {
  console.log(`\n== ${file.replace(/\.bench\.ts$/, "")} ==`);
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: () => Promise<void> };
  await mod.default();
}
