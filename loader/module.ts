/**
 * Importing user code (config files, plugin and preset modules) through jiti, so TypeScript
 * works on Node 22 without flags and a `.ts` file may import other local `.ts` files. Every
 * failure becomes a `ConfigError` that says which file broke and how to fix it.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import nodeModule, { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Jiti } from "jiti";
import { closest, ConfigError, describeError } from "../src/index";
import { scanModuleSource } from "./module-scan";

/** Imports modules as seen from one folder (a config file's, or a preset module's). */
export interface ModuleLoader {
  /** The folder specifiers are resolved from. */
  readonly baseDir: string;
  /** Resolve a specifier to an absolute file path; throws a `ConfigError` naming the fix. */
  resolve(specifier: string, what: string): string;
  /** Import a file and return its default export (or the module itself when it has none). */
  importDefault(file: string, what?: string): Promise<unknown>;
}

/** A loader resolving from `baseDir` (or from the folder of `fromFile`). */
export function createModuleLoader(baseDir: string, fromFile = join(baseDir, "ubiquity.config.js")): ModuleLoader {
  // No module cache: a config edited between two loads (tests, watch mode) must be read again.
  // jiti loads on first use, so importing this module costs nothing (cold start).
  let loaded: Jiti | undefined;
  const jitiFor = (): Jiti =>
    (loaded ??= (createRequire(import.meta.url)("jiti") as typeof import("jiti")).createJiti(
      pathToFileURL(fromFile).href,
      { moduleCache: false, fsCache: compiledCacheDir() },
    ));
  return {
    baseDir,
    resolve(specifier, what) {
      const found = jitiFor().esmResolve(specifier, { try: true }) ?? requireResolve(fromFile, specifier);
      if (found) return found.startsWith("file:") ? fileURLToPath(found) : found;
      if (isPathSpecifier(specifier)) {
        throw new ConfigError(`${what}: no file at ${resolve(baseDir, specifier)} (resolved relative to ${baseDir})`);
      }
      const pkg = packageName(specifier);
      const dir = findPackageDir(pkg, baseDir);
      if (dir)
        throw new ConfigError(
          `${what}: package ${pkg} is installed at ${dir} but ${specifier} cannot be imported from it; check its "exports"`,
        );
      // A mistyped name is first of all a typo, not a package to install (someone else's may have that name).
      const near = nearPackage(pkg, installedPackages(baseDir));
      if (near)
        throw new ConfigError(
          `${what}: package ${pkg} is not installed; did you mean "${near}" (installed)? If not, run \`npm i ${pkg}\``,
        );
      throw new ConfigError(`${what}: package ${pkg} is not installed; run \`npm i ${pkg}\``);
    },
    async importDefault(file, what) {
      try {
        // An ES module file (`.mjs`, or `.js` in a `"type": "module"` package) is what jiti itself
        // imports natively, falling back to compiling it when that fails. Doing the first step here
        // leaves jiti unloaded in a run whose config needs no compiling (~4.5 MiB of peak RSS).
        if (isEsmFile(file)) {
          try {
            const module = (await import(pathToFileURL(file).href)) as { default?: unknown };
            return module.default ?? module;
          } catch {
            // jiti's own fallback follows: compiled, with its error if that fails too
          }
        }
        const url = strippedTypeScriptUrl(file);
        if (url) {
          try {
            const module = (await import(url)) as { default?: unknown };
            return module.default ?? module;
          } catch {
            // Node or its stripper refused a module (an enum, a type imported without `type`): jiti compiles it
          }
        }
        return await jitiFor().import(file, { default: true });
      } catch (error) {
        throw moduleError(error, file, what);
      }
    },
  };
}

/**
 * Where jiti keeps the JavaScript it compiled from a TypeScript config or plugin: the user's own
 * cache folder. jiti's default is the project's `node_modules/.cache/jiti`, which sandboxed
 * commands can write: code put in front of a cached copy ran at the next start, outside the
 * sandbox, while the config file itself (whose digest trust pins) was unchanged (red team j, J6).
 */
export function compiledCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), ".cache");
  return join(base, "ubiquity", "jiti");
}

/** True for a file Node loads as an ES module: `.mjs`, or `.js` whose nearest package.json says `"type": "module"`. */
function isEsmFile(file: string): boolean {
  if (file.endsWith(".mjs")) return true;
  if (!file.endsWith(".js")) return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { type?: unknown }).type === "module";
    } catch (error) {
      // Not there (look further up); there but not JSON: Node refuses it, jiti says why.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" && (error as NodeJS.ErrnoException).code !== "ENOTDIR")
        return false;
    }
    if (dirname(dir) === dir) return false;
  }
}

let typeScriptLoads = 0;
let hooksRegistered = false;
const TYPESCRIPT_FILE = /\.m?ts$/;
const LOAD_TAG = /\?(ubiquity-load=\d+)$/;

/**
 * The URL to import a TypeScript config or plugin module at without jiti, when Node can: each
 * TypeScript module of its local graph stripped of its types by Node's own `stripTypeScriptTypes`
 * (positions kept, so stack traces point into the file) and handed to Node's loader by a module
 * hook, the JavaScript kept in the compiled-code folder under the digest of the source. A run with
 * `ubiquity.config.ts` then loads neither jiti nor a compiler: ~0.2 CPU-s less with a fresh HOME
 * (a CI job's), ~30 ms and a few MiB less with jiti's cache warm (issue 40).
 *
 * As with jiti, the file and its local modules run again at each load: the load's URL carries a
 * tag (`?ubiquity-load=N`) that the resolve hook gives to each local module the graph imports, so
 * each load has its own instances; packages are Node's, shared. The module's local imports must
 * name their files (`./plugins/x.ts`, as Node requires), and it must not use CommonJS names
 * (`__dirname`, `require`): those, `.ts` files under `node_modules`, and anything Node or its
 * stripper refuses (an `enum`, a type imported without `type`) go to jiti, with jiti's errors.
 */
function strippedTypeScriptUrl(file: string): string | undefined {
  if (!TYPESCRIPT_FILE.test(file) || file.split(sep).includes("node_modules")) return undefined;
  const { registerHooks, stripTypeScriptTypes } = nodeModule as Partial<typeof nodeModule>;
  if (typeof registerHooks !== "function" || typeof stripTypeScriptTypes !== "function") return undefined;
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  if (/\b(?:__dirname|__filename|require|module\.exports|exports\.)/.test(source)) return undefined;
  const local = scanModuleSource(source).imports.filter(isPathSpecifier);
  if (local.some((specifier) => !/\.(?:m?ts|m?js)$/.test(specifier))) return undefined;
  if (!hooksRegistered) {
    hooksRegistered = true;
    withoutExperimentalWarnings(() =>
      registerHooks({
        resolve(specifier, context, nextResolve) {
          const resolved = nextResolve(specifier, context);
          const tag = context.parentURL && LOAD_TAG.exec(context.parentURL)?.[1];
          if (!tag || !isPathSpecifier(specifier) || !resolved.url.startsWith("file:") || resolved.url.includes("?"))
            return resolved;
          if (resolved.url.includes("/node_modules/")) return resolved;
          return { ...resolved, url: `${resolved.url}?${tag}` };
        },
        load(url, context, nextLoad) {
          const tagged = LOAD_TAG.exec(url);
          const path = tagged ? url.slice(0, tagged.index) : "";
          if (!tagged || !TYPESCRIPT_FILE.test(path)) return nextLoad(url, context);
          return { format: "module", source: strippedSource(fileURLToPath(path)), shortCircuit: true };
        },
      }),
    );
  }
  return `${pathToFileURL(file).href}?ubiquity-load=${++typeScriptLoads}`;
}

/** A TypeScript file's JavaScript, from the compiled-code folder when this source was stripped before. */
function strippedSource(file: string): string {
  const source = readFileSync(file, "utf8");
  const digest = createHash("sha256").update(`${process.version}\0${source}`).digest("hex").slice(0, 32);
  const cached = join(compiledCacheDir(), `strip-${digest}.mjs`);
  try {
    return readFileSync(cached, "utf8");
  } catch {
    // not stripped yet
  }
  const { stripTypeScriptTypes } = nodeModule as Required<typeof nodeModule>;
  const code = withoutExperimentalWarnings(() => stripTypeScriptTypes(source));
  try {
    // The folder the sandbox keeps read-only and hidden (ownState), as for jiti's copies; written whole or not at all.
    mkdirSync(dirname(cached), { recursive: true, mode: 0o700 });
    const temp = `${cached}.${process.pid}.tmp`;
    writeFileSync(temp, code, { mode: 0o600 });
    renameSync(temp, cached);
  } catch {
    // not kept: stripped again next time
  }
  return code;
}

/** Runs `fn` with Node's experimental-feature warnings (the TypeScript stripper's, on Node 22 the hooks') kept off stderr. */
export function withoutExperimentalWarnings<T>(fn: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type !== "ExperimentalWarning") (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return fn();
  } finally {
    process.emitWarning = emit;
  }
}

function requireResolve(fromFile: string, specifier: string): string | undefined {
  try {
    return createRequire(fromFile).resolve(specifier);
  } catch {
    return undefined;
  }
}

/** True for `./x`, `../x`, `/abs/x` and `file:` URLs; false for package names. */
export function isPathSpecifier(specifier: string): boolean {
  return specifier.startsWith(".") || isAbsolute(specifier) || specifier.startsWith("file:");
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
export function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * The installed package `pkg` was most likely meant as. A plugin package's name is compared with
 * the installed plugin packages only, without the `ubiquity-plugin-` (or `@scope/ubiquity-plugin-`)
 * they all start with, so only the distinctive part counts: `ubiquity-plugin-triag` is
 * `ubiquity-plugin-triage`, while `ubiquity-plugin-foo` is not `-bar` nor the `node` package.
 */
function nearPackage(pkg: string, installed: Iterable<string>): string | undefined {
  const plugin = /^(?:@[^/]+\/)?ubiquity-plugin-/;
  const tail = (name: string) => name.replace(plugin, "");
  const byTail = new Map<string, string>();
  for (const name of installed)
    if (name !== pkg && plugin.test(name) === plugin.test(pkg)) byTail.set(tail(name), name);
  const match = closest(tail(pkg), byTail.keys());
  return match === undefined ? undefined : byTail.get(match);
}

/** The packages installed in the `node_modules` folders a specifier from `from` resolves in (`@scope/name` for scoped ones). */
function installedPackages(from: string): Set<string> {
  const names = new Set<string>();
  const list = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const modules = join(dir, "node_modules");
    for (const name of list(modules)) {
      if (name.startsWith(".")) continue;
      if (!name.startsWith("@")) names.add(name);
      else for (const scoped of list(join(modules, name))) names.add(`${name}/${scoped}`);
    }
    if (dirname(dir) === dir) return names;
  }
}

function findPackageDir(pkg: string, from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", pkg);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Turn an import failure into one line: a syntax error names the file and position, a missing
 * package says `npm i <name>`, anything else says the module threw while loading. Without
 * `what`, the subject is `file` itself (a config file) and the error carries it.
 */
export function moduleError(error: unknown, file: string, what?: string): ConfigError {
  // One that names its file already passes as is; one thrown while the module ran (a factory's bad
  // options in a config) gets the file below, as from another copy of ubiquity.
  if (error instanceof ConfigError && error.file) return error;
  const fail = (detail: string) => (what ? new ConfigError(`${what}: ${detail}`) : new ConfigError(detail, file));
  const message = describeError(error);
  const parse = /^(?:ParseError|SyntaxError):\s*(.*?)\s*\n\s*(\S+?):(\d+):(\d+)/s.exec(message);
  if (parse) {
    const [, detail, where, line, column] = parse;
    const inFile = where === file ? "" : ` in ${where}`;
    return fail(`syntax error${inFile} at line ${line}, column ${Number(column) + 1}: ${detail || "unexpected token"}`);
  }
  if (error instanceof SyntaxError || (error as { name?: unknown })?.name === "SyntaxError") {
    return fail(`syntax error: ${firstLine(message)}`);
  }
  const code = (error as { code?: unknown })?.code;
  const missing = /Cannot find (?:module|package) '([^']+)'/.exec(message);
  if (missing && (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND")) {
    const specifier = missing[1]!;
    if (isPathSpecifier(specifier)) return fail(`it imports ${specifier}, which does not exist`);
    const pkg = packageName(specifier);
    const importer = importerOf(message);
    if (importer && importer !== file) return fail(missingFromImporter(pkg, importer, file));
    return fail(`it imports ${pkg}, which is not installed; run \`npm i ${pkg}\``);
  }
  // Ubiquity's own errors (from any copy of the package) already read as one complete message.
  const name = (error as { name?: unknown })?.name;
  if (typeof name === "string" && UBIQUITY_ERRORS.has(name)) return fail(message);
  return fail(`loading it threw: ${firstLine(message)}`);
}

/** The file whose import failed, from Node's "imported from <file>" or jiti's "Require stack:\n- <file>". */
function importerOf(message: string): string | undefined {
  const found = /imported from (\S+)/.exec(message)?.[1] ?? /Require stack:\n- ([^\n]+)/.exec(message)?.[1];
  if (!found) return undefined;
  try {
    return found.startsWith("file:") ? fileURLToPath(found) : found;
  } catch {
    return undefined;
  }
}

/**
 * A package the config does not import itself, missing where another module (a plugin package)
 * looks for it. Installed beside the config, it is missing only from the importer's folder up:
 * what `npm i ../my-plugin` leaves (a link to a folder outside the project, which resolves its
 * imports from there), where "not installed; run npm i ubiquity" sent people to reinstall.
 */
function missingFromImporter(pkg: string, importer: string, file: string): string {
  const root = packageRootOf(importer);
  const name = root ? packageJsonName(root) : undefined;
  const via = name ? `${name} (${importer})` : importer;
  const here = findPackageDir(pkg, dirname(file));
  if (!here) return `it imports ${via}, which imports ${pkg}, which is not installed; run \`npm i ${pkg}\``;
  const where = root ?? dirname(importer);
  return (
    `it imports ${via}, which imports ${pkg}, and ${pkg} cannot be found from ${where}: it is installed at ${here}, ` +
    `but Node looks for a module's imports from its own folder up, and a package installed from a folder (\`npm i ../x\` links it) stays in that folder. ` +
    `Install ${pkg} there too (\`npm i -D ${pkg}\` in ${where}), or install the package as a copy (\`npm i --install-links ${where}\`)`
  );
}

/** The folder of the nearest package.json at or above `file`'s folder. */
function packageRootOf(file: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function packageJsonName(dir: string): string | undefined {
  try {
    const name = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown }).name;
    return typeof name === "string" && name ? name : undefined;
  } catch {
    return undefined;
  }
}

const UBIQUITY_ERRORS = new Set(["ConfigError", "PluginError", "PluginResolutionError", "HookUsageError"]);

function firstLine(text: string): string {
  return text.split("\n")[0]!.trim();
}
