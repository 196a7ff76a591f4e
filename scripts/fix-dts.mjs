/**
 * After `tsc -p tsconfig.build.json` emits declarations into dist/types, give every relative
 * import an explicit `.js` specifier (`./kernel` → `./kernel.js`, `../src/index` →
 * `../src/index.js`), so the declarations resolve under `moduleResolution: node16/nodenext`
 * as well as `bundler`. That includes the module augmentations (`declare module "../../src/messages"`)
 * by which a plugin adds its `result` fields: unresolved, they are dropped silently. The sources use extensionless imports, which only bundlers accept.
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const root = resolve(process.argv[2] ?? "dist/types");
const SPECIFIER = /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\bdeclare\s+module\s+)(["'])(\.{1,2}(?:\/[^"']*)?)\2/g;
let files = 0;
let rewritten = 0;
const unresolved = [];

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".d.ts")) fix(path);
  }
}

function fix(file) {
  files++;
  const text = readFileSync(file, "utf8");
  const out = text.replace(SPECIFIER, (whole, lead, quote, spec) => {
    if (/\.(m?js|json)$/.test(spec)) return whole;
    const target = resolve(dirname(file), spec);
    let next;
    if (existsSync(`${target}.d.ts`)) next = `${spec}.js`;
    else if (existsSync(join(target, "index.d.ts"))) next = `${spec.replace(/\/$/, "")}/index.js`.replace(/^\.\/index\.js$|^\.\/\/index/, "./index.js");
    if (!next) {
      unresolved.push(`${file}: ${spec}`);
      return whole;
    }
    rewritten++;
    return `${lead}${quote}${next}${quote}`;
  });
  if (out !== text) writeFileSync(file, out);
}

if (!existsSync(root)) {
  console.error(`fix-dts: ${root} does not exist; run tsc -p tsconfig.build.json first`);
  process.exit(1);
}
walk(root);
if (unresolved.length) {
  console.error(`fix-dts: ${unresolved.length} relative import(s) resolve to no declaration file:\n${unresolved.join("\n")}`);
  process.exit(1);
}
console.log(`fix-dts: ${rewritten} relative imports made explicit in ${files} declaration files`);
