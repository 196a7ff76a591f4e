/**
 * The local modules a config file would load: what it imports, transitively, and the plugin and
 * preset files it names by path — found by a static scan, without running anything, so trust can
 * pin each one (a trusted config importing `./helper.mjs` runs the helper too). Installed code
 * (anything under `node_modules`) is out of scope, as it is for the sandbox. Fail closed: an
 * import that cannot be followed (a computed `import(x)`, a local path that resolves to nothing)
 * is reported, and the config does not apply under pins while it has one.
 */
import { existsSync, statSync } from "node:fs";
import nodeModule, { createRequire } from "node:module";
import { dirname, extname, isAbsolute, join, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { exportsMapTargets, importsMapTargets } from "./imports-map";
import { peekJsonOrYaml, readRegularFileSync } from "./safe-read";
import { scanModuleSource } from "./module-scan";
import { packageName, withoutExperimentalWarnings } from "./module";
import { realFolder } from "./trust-pins";

const SCRIPT = new Set([".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx"]);
// Scripts of other languages a config can run (`execSync("./setup.sh")`): pinned, not scanned.
const RUNNABLE = new Set([".sh", ".bash", ".zsh", ".py", ".rb", ".pl", ".php"]);
const TRY_EXTENSIONS = [".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx", ".mtsx", ".ctsx", ".json"];
// jiti (like tsc) lets `./x.js` name `./x.ts`.
const TS_FOR_JS: Record<string, string> = { ".js": ".ts", ".mjs": ".mts", ".cjs": ".cts", ".jsx": ".tsx" };
/** Most modules followed from one config; past it the config does not apply under pins. */
export const MAX_CONFIG_GRAPH_MODULES = 256;
const MAX_SCAN_BYTES = 4 * 1024 * 1024;

/** An import a config's graph has that cannot be followed to a file. */
export interface UnfollowedImport {
  /** The module holding it. */
  from: string;
  /** The specifier, or the source text of a computed load. */
  specifier: string;
}

/** The local modules a config file loads (not itself), and the imports that could not be followed. */
export interface ConfigGraph {
  modules: string[];
  unfollowed: UnfollowedImport[];
  /** Names that hold nothing now, where a file made would be loaded by one of the config's imports (red team zp, ZP2). */
  shadows: string[];
  /** The package folders under node_modules the config loads a file of by its path (`./node_modules/x/y.mjs`: ZP5). */
  installed: string[];
}

const isFile = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

const inNodeModules = (path: string) => path.split(sep).includes("node_modules");

/**
 * While `configGraph` runs: the other files a path specifier that names no file as written could
 * load, and the names that hold nothing now but would be loaded if made. jiti tries `.js` before
 * `.ts` and Node's require `.js` before `.json`: which one a loader takes is its own order, so
 * every candidate that exists is pinned, and every one that does not is a place to keep empty.
 */
let alternatives: { files: string[]; missing: string[]; installed: string[] } | undefined;

/** The package folder holding `file`, a file under node_modules (`…/node_modules/@scope/name`, `…/node_modules/name`). */
function packageFolderOf(file: string): string {
  const parts = file.split(sep);
  const at = parts.lastIndexOf("node_modules");
  const scoped = parts[at + 1]?.startsWith("@") ? 2 : 1;
  return parts.slice(0, Math.min(parts.length - 1, at + 1 + scoped)).join(sep) || sep;
}

/** The names a path specifier that names no file as written may load, extensions and `index` files tried. */
function candidatesOf(target: string): string[] {
  const swapped = TS_FOR_JS[extname(target)];
  return [
    target,
    ...(swapped ? [target.slice(0, -extname(target).length) + swapped] : []),
    ...TRY_EXTENSIONS.map((ext) => target + ext),
    ...TRY_EXTENSIONS.map((ext) => join(target, `index${ext}`)),
  ];
}

/** The file a path specifier names from `dir`, trying extensions and `index` files the way jiti does. */
function resolvePath(target: string): string | undefined {
  if (isFile(target)) return target;
  const candidates = candidatesOf(target);
  const found = candidates.filter(isFile);
  if (alternatives) {
    alternatives.files.push(...found.slice(1));
    alternatives.missing.push(...candidates.filter((c) => !existsSync(c)));
  }
  return found[0];
}

/**
 * The JavaScript of a module's source as the scan reads it: a TypeScript file's with its types
 * blanked by Node's own stripper (positions kept), so what only TypeScript has (`a! / 2`,
 * `f<T> / 2`) cannot pass for the start of a regular expression; the source itself when Node
 * cannot strip it (an `enum`: jiti compiles it) — the scan's TypeScript rules read it then.
 */
export function javaScriptOf(file: string, source: string): string {
  if (!/\.[mc]?ts$/.test(file)) return source;
  const { stripTypeScriptTypes } = nodeModule as Partial<typeof nodeModule>;
  if (typeof stripTypeScriptTypes !== "function") return source;
  try {
    return withoutExperimentalWarnings(() => stripTypeScriptTypes(source));
  } catch {
    return source;
  }
}

/** The real path of a file (symlinks resolved): where the code is read from. */
function realFile(path: string): string {
  return join(realFolder(dirname(path)), path.slice(dirname(path).length + 1));
}

/**
 * The file Node's ES module loader reads for a relative or absolute `specifier` of `from`; null
 * when no file can be read from it (an encoded `/`, a URL that does not parse).
 */
function urlPath(specifier: string, from: string): string | null {
  try {
    const url = new URL(specifier, pathToFileURL(from));
    if (url.protocol !== "file:") return null;
    url.search = "";
    url.hash = "";
    return fileURLToPath(url);
  } catch {
    return null;
  }
}

/**
 * The folder of the package `specifier` names when its files are the project's own: the project
 * naming itself (the package scope of `from` has that name), or a package Node finds in a
 * `node_modules` above `from` that is a link into the project (a workspace).
 */
function ownPackageDir(specifier: string, from: string, root: string): string | undefined {
  const name = packageName(specifier);
  const inside = (dir: string) => !inNodeModules(dir) && (dir === root || dir.startsWith(root + sep));
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (isFile(manifest)) {
      if ((peekJsonOrYaml(manifest) as { name?: unknown } | undefined)?.name === name) return dir;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const place = join(dir, "node_modules", name);
    if (existsSync(place)) {
      const real = realFolder(place);
      return inside(real) ? real : undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Where `specifier`, imported by `from`, leads when that is a local module; `null` when it is
 * installed code or a built-in; undefined when it is a local path that names no file.
 */
function resolveLocal(specifier: string, from: string, root: string): string | null | undefined {
  const dir = dirname(from);
  if (specifier.startsWith("file:")) specifier = fileURLToPath(specifier);
  if (specifier.startsWith(".") || isAbsolute(specifier)) {
    // Node's `import` reads the specifier as a URL (`%78` is `x`, a `\` a `/`, `?…` and `#…` cut,
    // tabs and line breaks dropped); jiti and `require` read it as a path: both are pinned (ZP4).
    const asUrl = urlPath(specifier, from);
    if (asUrl === null) return undefined;
    const asPath = resolve(dir, specifier);
    const files = [...new Set([asPath, asUrl ?? asPath])]
      .map((target) => resolvePath(target))
      .filter((f): f is string => f !== undefined);
    if (files.length === 0) return undefined;
    alternatives?.files.push(...files.slice(1));
    const real = realFile(files[0]!);
    if (!inNodeModules(real)) return real;
    // Installed code the config loads by its path: not pinned, but kept read-only by the sandbox (ZP5).
    alternatives?.installed.push(packageFolderOf(real));
    return null;
  }
  // A package whose files are the project's own (the project naming itself, a workspace linked into
  // node_modules): every file its `exports` give the name under any condition (red team zp, ZP3).
  const own = specifier.startsWith("#") ? undefined : ownPackageDir(specifier, from, root);
  if (own) {
    const name = packageName(specifier);
    const targets = exportsMapTargets(own, `.${specifier.slice(name.length)}`) ?? [];
    const files = targets.map((target) => resolvePath(target)).filter((f): f is string => f !== undefined);
    if (files.length === 0) return undefined;
    alternatives?.files.push(...files.slice(1));
    return realFile(files[0]!);
  }
  // A package name or `#import`: Node's resolution. A package whose files are the project's own
  // (a workspace linked into node_modules, the project naming itself) is local; an `#import` always is.
  let found: string;
  try {
    found = createRequire(from).resolve(specifier);
  } catch {
    return specifier.startsWith("#") ? undefined : null;
  }
  if (!isAbsolute(found)) return null; // a built-in
  const real = realFile(found);
  if (inNodeModules(real)) return null;
  return specifier.startsWith("#") || real === root || real.startsWith(root + sep) ? real : null;
}

/**
 * The local file a path-like string of `from` names: a relative or absolute one as an import
 * resolves it; a bare one (`lib/w.mjs`, from `new URL(…, import.meta.url)` or a command line) from
 * the module's folder or the config's. Files under node_modules are installed code.
 */
function resolveNamed(spec: string, from: string, root: string): string | null | undefined {
  if (spec.startsWith(".") || spec.startsWith("/") || spec.startsWith("file:")) return resolveLocal(spec, from, root);
  for (const base of [dirname(from), root]) {
    const found = resolvePath(resolve(base, spec));
    if (!found) continue;
    const real = realFile(found);
    return inNodeModules(real) ? null : real;
  }
  return undefined;
}

/** The plugin and preset specifiers of a JSON or YAML config (`"./my-plugin.ts"`, `["./p.ts", {…}]`). */
function dataConfigSpecifiers(file: string): string[] {
  const data = peekJsonOrYaml(file);
  const config = (file.endsWith("package.json") ? (data as Record<string, unknown> | undefined)?.ubiquity : data) as
    | Record<string, unknown>
    | undefined;
  if (!config || typeof config !== "object") return [];
  const out: string[] = [];
  for (const key of ["plugins", "presets"]) {
    const list = config[key];
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      const spec =
        typeof entry === "string" ? entry : Array.isArray(entry) && typeof entry[0] === "string" ? entry[0] : undefined;
      if (spec) out.push(spec);
    }
  }
  return out;
}

/**
 * Every local module `configFile` would load, transitively: its imports and the plugin and preset
 * files it names (followed the same way), each by real path. Modules under `node_modules` and
 * packages outside the config's folder are installed code and are not followed.
 */
export function configGraph(configFile: string): ConfigGraph {
  const start = resolve(configFile);
  const root = realFolder(dirname(start));
  const seen = new Set<string>([realFile(start)]);
  const modules: string[] = [];
  const unfollowed: UnfollowedImport[] = [];
  const queue: string[] = [start];
  const shadows = new Set<string>();
  const add = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (modules.length >= MAX_CONFIG_GRAPH_MODULES) {
      unfollowed.push({ from: file, specifier: `more than ${MAX_CONFIG_GRAPH_MODULES} local modules` });
      return;
    }
    modules.push(file);
    queue.push(file);
  };
  alternatives = { files: [], missing: [], installed: [] };
  const installed = new Set<string>();
  try {
    while (queue.length > 0) {
      visit(queue.shift()!);
      // The other files an import may load, pinned (and followed) as its own; the empty names, kept.
      for (const other of alternatives.files.splice(0)) add(realFile(other));
      for (const name of alternatives.missing.splice(0)) shadows.add(name);
      for (const folder of alternatives.installed.splice(0)) installed.add(folder);
    }
  } finally {
    alternatives = undefined;
  }
  return { modules, unfollowed, shadows: [...shadows], installed: [...installed] };

  function visit(file: string): void {
    if (!SCRIPT.has(extname(file))) {
      // A data config names plugins and presets; other data (an imported JSON) loads nothing.
      if (file === start) {
        for (const spec of dataConfigSpecifiers(file)) {
          const found = resolveLocal(spec, file, root);
          if (found) add(found);
          else if (found === undefined) unfollowed.push({ from: file, specifier: spec });
        }
      }
      return;
    }
    const read = readRegularFileSync(file, MAX_SCAN_BYTES);
    if (!read.ok) {
      unfollowed.push({
        from: file,
        specifier: read.missing ? "(it does not exist)" : `(cannot be read: ${read.problem})`,
      });
      return;
    }
    const scan = scanModuleSource(javaScriptOf(file, read.text));
    for (const spec of scan.imports) {
      if (spec.startsWith("#")) {
        // Every file the package's `imports` map gives it under any condition (jiti takes `import`
        // where Node's require takes `require`), and the package.json holding the map.
        const mapped = importsMapTargets(spec, file);
        if (!mapped) {
          unfollowed.push({ from: file, specifier: spec });
          continue;
        }
        add(mapped.manifest);
        for (const target of mapped.files) {
          const found = resolvePath(target);
          if (found) add(realFile(found));
          else unfollowed.push({ from: file, specifier: `${spec} → ${target}` });
        }
        continue;
      }
      const found = resolveLocal(spec, file, root);
      if (found) add(found);
      else if (found === undefined) unfollowed.push({ from: file, specifier: spec });
    }
    // A string that names a script (a plugin path in a config, a worker, a command's file): pinned
    // too. One naming nothing is just a string.
    for (const spec of scan.paths) {
      // A word is no import: the names it could be, empty now, are not kept.
      const empty = alternatives?.missing.length ?? 0;
      const found = resolveNamed(spec, file, root);
      alternatives?.missing.splice(empty);
      if (found && (SCRIPT.has(extname(found)) || RUNNABLE.has(extname(found).toLowerCase()))) add(found);
    }
    for (const text of scan.computed) unfollowed.push({ from: file, specifier: text });
  }
}
