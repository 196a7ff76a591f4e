/**
 * Runs a test's child process on the repository's TypeScript sources, straight from src/ (never a
 * stale build): `node --import ./test/helpers/ts-loader.mjs child.ts` (spawnTs in ts-child.ts does it).
 *
 * Node's own loader does the work; two in-thread hooks (module.registerHooks) add what it lacks:
 * - resolve: a relative specifier without an extension (`../../sdk/index`) finds `<it>.ts` or
 *   `<it>/index.ts`, and `./x.js` finds `x.ts` when only that exists, as tsc and jiti resolve them;
 * - load: a `.ts` file is compiled by oxc (the transform of rolldown, a devDependency: vite uses the same one), which
 *   drops type-only imports as tsc does (plain type stripping would not: tsconfig has no
 *   verbatimModuleSyntax). The JavaScript is cached in node_modules/.cache/ubiquity-ts-loader, keyed
 *   by the file's path and exact content, so an edited file is compiled again, never served stale.
 *
 * jiti did this before at ~0.5 CPU-s a child; this costs about what the built package does (~0.25),
 * and the suite starts a few hundred such children (test/sessions, test/todos, test/security...).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire, enableCompileCache, registerHooks } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const cacheDir = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "node_modules",
  ".cache",
  "ubiquity-ts-loader",
);
// The version of the compiler is part of each key: an upgrade compiles everything again.
const compiler = `rolldown ${require("rolldown/package.json").version}`;
// V8's code cache for the modules too (ours and node_modules'): a warm child skips most parsing.
enableCompileCache(join(cacheDir, "v8"));

/** @type {undefined | ((file: string, source: string, options: object) => { code: string, errors: { message: string }[] })} */
let transformSync;

/** A `.ts` file's JavaScript: from the cache, or compiled now and cached (written whole, then renamed in). */
function compile(file) {
  const source = readFileSync(file, "utf8");
  const key = createHash("sha256").update(`${compiler}\0${file}\0${source}`).digest("hex");
  const cached = join(cacheDir, `${key}.mjs`);
  try {
    return readFileSync(cached, "utf8");
  } catch {
    transformSync ??= require("rolldown/utils").transformSync;
    const out = transformSync(file, source, { lang: "ts", sourcemap: false });
    if (out.errors.length > 0) throw new SyntaxError(`${file}: ${out.errors.map((e) => e.message).join("; ")}`);
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${cached}.${process.pid}.tmp`;
    writeFileSync(partial, out.code);
    renameSync(partial, cached);
    return out.code;
  }
}

const relative = (specifier) => specifier.startsWith("./") || specifier.startsWith("../") || specifier.startsWith("/");

registerHooks({
  resolve(specifier, context, next) {
    if (relative(specifier) && context.parentURL?.startsWith("file:")) {
      const base = fileURLToPath(new URL(specifier, context.parentURL));
      const candidates = /\.[cm]?[jt]sx?$|\.json$/.test(base)
        ? base.endsWith(".js") && !existsSync(base)
          ? [`${base.slice(0, -3)}.ts`]
          : []
        : [`${base}.ts`, join(base, "index.ts")];
      const found = candidates.find((c) => existsSync(c));
      if (found) return { url: pathToFileURL(found).href, format: "module", shortCircuit: true };
    }
    return next(specifier, context);
  },
  load(url, context, next) {
    if (!url.startsWith("file:") || !url.endsWith(".ts")) return next(url, context);
    return { format: "module", source: compile(fileURLToPath(url)), shortCircuit: true };
  },
});
