/**
 * After `tsc -p tsconfig.build.json` emits declarations into dist/types, give every relative
 * import an explicit `.js` specifier (`./kernel` → `./kernel.js`, `../src/index` →
 * `../src/index.js`), so the declarations resolve under `moduleResolution: node16/nodenext`
 * as well as `bundler`. The sources use extensionless imports, which only bundlers accept. A
 * plugin's module augmentation (`declare module "../../src/messages"`) is rewritten too: under
 * nodenext an extensionless one resolves to nothing, and skipLibCheck hides that it was dropped.
 * An import of an optional peer dependency (`@opentelemetry/api` in the telemetry plugin's
 * declarations) gets a `// @ts-ignore` line: a project that type-checks its libraries
 * (`skipLibCheck: false`) and does not install that peer would otherwise fail on our files with
 * "Cannot find module"; with the peer installed its types apply as before.
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const root = resolve(process.argv[2] ?? "dist/types");
const SPECIFIER = /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\bdeclare\s+module\s+)(["'])(\.{1,2}(?:\/[^"']*)?)\2/g;
const optionalPeers = readOptionalPeers(root);
const IGNORE = "// @ts-ignore: an optional peer dependency, absent unless the feature that needs it is used";
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

/** The optional peer dependencies of the nearest package.json above the declarations. */
function readOptionalPeers(from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const meta = JSON.parse(readFileSync(file, "utf8")).peerDependenciesMeta ?? {};
      return new Set(Object.keys(meta).filter((name) => meta[name]?.optional === true));
    }
    if (dirname(dir) === dir) return new Set();
  }
}

/** Put IGNORE above each line that names an optional peer as a module (its specifier's line is where tsc reports). */
function ignoreOptionalPeers(text) {
  const lines = text.split("\n");
  const out = [];
  for (const [i, line] of lines.entries()) {
    const named = [...line.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/g)].some((m) => {
      const spec = m[1];
      const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
      return optionalPeers.has(name);
    });
    if (named && !/^\s*(\/\/|\*|\/\*)/.test(line) && lines[i - 1]?.trim() !== IGNORE)
      out.push(`${line.match(/^\s*/)[0]}${IGNORE}`);
    out.push(line);
  }
  return out.join("\n");
}

function fix(file) {
  files++;
  const text = readFileSync(file, "utf8");
  // Comments (a JSDoc example such as `import("./impl")`) are not imports: leave them as written.
  const comments = [...text.matchAll(/\/\*[\s\S]*?\*\/|^[ \t]*\/\/.*$/gm)].map((m) => [m.index, m.index + m[0].length]);
  const inComment = (at) => comments.some(([start, end]) => at >= start && at < end);
  const out = text.replace(SPECIFIER, (whole, lead, quote, spec, at) => {
    if (inComment(at)) return whole;
    if (/\.(m?js|json)$/.test(spec)) return whole;
    const target = resolve(dirname(file), spec);
    let next;
    if (existsSync(`${target}.d.ts`)) next = `${spec}.js`;
    else if (existsSync(join(target, "index.d.ts")))
      next = `${spec.replace(/\/$/, "")}/index.js`.replace(/^\.\/index\.js$|^\.\/\/index/, "./index.js");
    if (!next) {
      unresolved.push(`${file}: ${spec}`);
      return whole;
    }
    rewritten++;
    return `${lead}${quote}${next}${quote}`;
  });
  const ignored = ignoreOptionalPeers(out);
  if (ignored !== text) writeFileSync(file, ignored);
}

if (!existsSync(root)) {
  console.error(`fix-dts: ${root} does not exist; run tsc -p tsconfig.build.json first`);
  process.exit(1);
}
walk(root);
if (unresolved.length) {
  console.error(
    `fix-dts: ${unresolved.length} relative import(s) resolve to no declaration file:\n${unresolved.join("\n")}`,
  );
  process.exit(1);
}
console.log(`fix-dts: ${rewritten} relative imports made explicit in ${files} declaration files`);
