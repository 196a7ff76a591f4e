/**
 * The installed packages a project's config file loads, and everything they depend on: code that
 * `ubiquity run` executes outside the sandbox at its next start, although it lives in the
 * writable `node_modules`; likewise an MCP server's package and ubiquity's own. The sandbox keeps
 * these package folders read-only, and the permission engine asks before a file tool writes in
 * one (`installedStartCode`); the rest of `node_modules` stays writable: installed code the user
 * runs by choice.
 *
 * Found without running anything: the config's local import graph (the one trust pins), the bare
 * specifiers those modules import, then each package's `dependencies`, `peerDependencies` and
 * `optionalDependencies`, resolved the way Node does (the nearest `node_modules/<name>` above).
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { configGraph, javaScriptOf } from "./config-graph";
import { importsMapTargets } from "./imports-map";
import { findConfigFile } from "./load";
import { compiledCacheDir } from "./module";
import { scanModuleSource } from "./module-scan";
import { binPackage, configuredPackages, runConfigFiles } from "./run-config-files";

/** Past this many packages the closure stops growing (what it found stays protected). */
const MAX_PACKAGES = 2000;

const packageName = (specifier: string) => {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
};
const isBare = (s: string) => !s.startsWith(".") && !s.startsWith("/") && !/^[a-z]+:/.test(s) && s !== "";

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * The folders Node may load package `name` from, starting at `from`: each `node_modules/<name>`
 * that exists on the way up, to the first holding a package.json (its folder last). Node stops at
 * the first folder there is (ESM loads its index.js without a package.json; CommonJS goes on up
 * only when it holds nothing it can load), so each is code it may run (red team zi, ZI2).
 */
function packageDirs(name: string, from: string): string[] {
  const out: string[] = [];
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    // Node never looks in node_modules/node_modules.
    if (basename(dir) === "node_modules") continue;
    // No exception for each folder it is not in (most of the lookups): a thrown ENOENT costs ~10x the stat.
    try {
      if (statSync(candidate, { throwIfNoEntry: false })?.isDirectory()) {
        out.push(candidate);
        if (statSync(join(candidate, "package.json"), { throwIfNoEntry: false })?.isFile()) return out;
      }
    } catch {
      // ENOTDIR and the like: not here either
    }
    if (dirname(dir) === dir) return out;
  }
}

/** The bare packages the config file imports (its JSON plugins and presets, its modules' bare imports), each with the folder it is looked up from. */
function configImports(configFile: string): { name: string; from: string }[] {
  const out: { name: string; from: string }[] = [];
  // A JSON config names its plugins and presets by package name.
  if (/\.json$|(^|\/)\.ubiquityrc$/.test(configFile)) {
    const config = readJson(configFile) ?? {};
    for (const key of ["plugins", "presets", "preset"]) {
      for (const entry of [config[key]].flat()) {
        const spec =
          typeof entry === "string"
            ? entry
            : Array.isArray(entry) && typeof entry[0] === "string"
              ? entry[0]
              : undefined;
        if (spec && isBare(spec)) out.push({ name: packageName(spec), from: dirname(configFile) });
      }
    }
  }
  for (const file of [configFile, ...configGraph(configFile).modules]) {
    let source: string;
    try {
      source = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    // A TypeScript module as Node strips it, as trust's graph reads it (red team zp, ZP1).
    for (const s of scanModuleSource(javaScriptOf(file, source)).imports) {
      // A `#x` goes through package.json's `imports` map: the packages it names are installed code it loads.
      const mapped = s.startsWith("#") ? importsMapTargets(s, file) : undefined;
      for (const name of mapped ? mapped.packages : isBare(s) && !s.startsWith("#") ? [s] : [])
        out.push({ name: packageName(name), from: dirname(mapped?.manifest ?? file) });
    }
  }
  return out;
}

/** The package folders (real paths) the config file loads, directly or through dependencies. */
export function installedClosure(configFile: string): string[] {
  return configPackagePlaces(configFile, []).installed;
}

/**
 * The places inside `roots` where a package the config file loads could be put to be found before
 * the one Node finds now (see `configPackagePlaces`).
 */
export function shadowingPlaces(configFile: string, roots: readonly string[]): string[] {
  return configPackagePlaces(configFile, roots).shadowing;
}

const SHADOW_EXTENSIONS = ["", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", ".json", ".node"];

/**
 * What a config file's installed code is, found in one walk of its packages' closure (the
 * permission engine and the sandbox each need both; two walks of ubiquity's ~180 packages cost
 * ~60 ms of a sandboxed run's first command):
 * - `installed`: the package folders (real paths) it loads, directly or through dependencies, each
 *   package looked up from the config's folder and from the module importing it;
 * - `shadowing`: the places inside `roots` where such a package could be put to be found before
 *   the one Node finds now: each `node_modules/<name>` that does not exist between the importing
 *   module's folder (or the depending package's) and the folder the package resolves from (all
 *   the way up when it is not installed). A config importing a package installed above the
 *   project (a monorepo's root `node_modules`) would otherwise load one a sandboxed command made
 *   inside it (red team j, J7); so would a package in the project whose dependency is installed
 *   above it (red team zi, ZI2: `node_modules/dep/index.js` made beside `node_modules/foo` is the
 *   dep foo loads).
 */
export function configPackagePlaces(
  configFile: string,
  roots: readonly string[],
): { installed: string[]; shadowing: string[] } {
  const imports = configImports(configFile);
  const starts = new Map<string, { name: string; from: string }>();
  for (const start of [...imports.map(({ name }) => ({ name, from: dirname(configFile) })), ...imports])
    starts.set(`${start.name}\0${start.from}`, start);
  const lookups: { name: string; from: string }[] = [];
  const installed = packageClosure([...starts.values()], new Map(), undefined, lookups);
  const shadowing = new Set<string>();
  const inside = (p: string) => roots.some((r) => p.startsWith(`${r}${sep}`));
  for (const { name, from } of lookups) {
    for (let dir = from; ; dir = dirname(dir)) {
      if (basename(dir) === "node_modules") continue; // Node never looks in node_modules/node_modules
      const candidate = join(dir, "node_modules", name);
      try {
        statSync(candidate);
        break; // found here: what is below it in the search cannot shadow it
      } catch {
        // The folder, or a file Node's and jiti's resolution take for it (`node_modules/x.js`).
        if (inside(candidate)) for (const ext of SHADOW_EXTENSIONS) shadowing.add(`${candidate}${ext}`);
      }
      if (dirname(dir) === dir) break;
    }
  }
  return { installed, shadowing: [...shadowing] };
}

/**
 * The package folders (real paths) of `queue`'s packages and everything they depend on, added to
 * `found`; `looked`, when given, gets each folder as Node finds it (before links are followed).
 */
function packageClosure(
  queue: { name: string; from: string }[],
  found: Map<string, string>,
  looked?: Set<string>,
  lookups?: { name: string; from: string }[],
): string[] {
  while (queue.length > 0 && found.size < MAX_PACKAGES) {
    const next = queue.shift()!;
    lookups?.push(next);
    const { name } = next;
    const dirs = packageDirs(name, next.from);
    // A folder with no package.json before the package's own is what Node loads: protected too.
    for (const early of dirs.slice(0, -1)) {
      looked?.add(early);
      const real = realOr(early);
      if (!found.has(real)) found.set(real, name);
    }
    const dir = dirs.at(-1);
    if (!dir) continue;
    looked?.add(dir);
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      continue;
    }
    if (found.has(real)) continue;
    found.set(real, name);
    const manifest = readJson(join(dir, "package.json")) ?? {};
    // Node finds a package's dependencies from where its link leads (pnpm keeps them beside it in
    // its store); from the folder as found too, in case a runtime keeps links (--preserve-symlinks).
    const froms = real === dir ? [dir] : [real, dir];
    for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
      const deps = manifest[field];
      if (deps && typeof deps === "object")
        for (const dep of Object.keys(deps)) for (const from of froms) queue.push({ name: dep, from });
    }
  }
  return [...found.keys()];
}

/** The folder of the ubiquity package this code was loaded from (its package.json names it), if any. */
function ownPackageDir(): string | undefined {
  // Asked at every turn (the system prompt's sandbox note): where this code was loaded from does
  // not change within the process, so the manifests are read once (~0.2 ms a turn before).
  if (ownPackage === null) ownPackage = findOwnPackageDir();
  return ownPackage;
}
let ownPackage: string | undefined | null = null;
let ownReal: string | undefined;

/** The real path of `dir`, or `dir` when it cannot be resolved. */
function realOr(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

function findOwnPackageDir(): string | undefined {
  let dir: string;
  try {
    dir = dirname(fileURLToPath(import.meta.url));
  } catch {
    return undefined;
  }
  for (; ; dir = dirname(dir)) {
    const manifest = readJson(join(dir, "package.json"));
    if (manifest?.name === "ubiquity") return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The code of the ubiquity this process runs from (its `bin`, `dist` and `package.json`), when it
 * is inside `roots`: installed in the project (`npm i -D ubiquity`, or its own checkout), it would
 * be writable there, and a sandboxed command could change a module this very run loads later, or
 * the bin the next `npx ubiquity` starts, both outside the sandbox (red team j, J4). Its
 * dependencies are not listed: they are hundreds of folders (a bind and a hard-link walk each, at
 * every command), and they stay as writable as the rest of `node_modules`.
 */
export function ownCode(roots: readonly string[]): string[] {
  const dir = ownPackageDir();
  if (!dir) return [];
  ownReal ??= realOr(dir);
  const real = ownReal;
  const inside = (p: string) => roots.some((r) => p === r || p.startsWith(`${r}${sep}`));
  return ["bin", "dist", "package.json"].map((name) => join(real, name)).filter(inside);
}

/** The outermost `node_modules` folder on `path` (the folder itself when it is in none). */
function outermostModules(path: string): string {
  const parts = path.split(sep);
  const at = parts.indexOf("node_modules");
  return at < 0 ? path : parts.slice(0, at + 1).join(sep);
}

const ownModules = new Map<string, string[]>();

/**
 * Where the code of ubiquity's own dependencies is loaded from: the outermost `node_modules`
 * folder holding each package of its dependency closure (its `dependencies`, `peerDependencies`
 * and `optionalDependencies`, resolved the way Node does, followed transitively), both where Node
 * finds it and where its links lead (npm and yarn: `<project>/node_modules`; pnpm: the same,
 * which holds `.pnpm`); a dependency linked from outside any `node_modules` is its own folder. And
 * where Node would look for one that is missing (an optional peer such as `@ai-sdk/anthropic`,
 * loaded when a run first needs it): each `node_modules` above those, existing or not, and the
 * global folders CommonJS still reads (`~/.node_modules`, `~/.node_libraries`).
 *
 * A sandboxed command that could write any of these would change, or put first, code that this
 * very process loads later (a provider, the PDF reader) and that the next `ubiquity` start loads
 * outside the sandbox. One read-only bind per folder (usually one: the project's `node_modules`)
 * instead of one per package: 178 per-package binds made bubblewrap ~200 ms slower per command
 * (~1.1 ms a bind), one costs ~1 ms. Found once per process (the packages' manifests are read,
 * never their files).
 */
export function ownModuleFolders(
  home: string,
  dir: string | undefined = ownPackageDir(),
  entry: string | undefined = process.argv[1],
): string[] {
  if (!dir) return [];
  const key = `${home}\0${dir}\0${entry}`;
  const known = ownModules.get(key);
  if (known) return known;
  const real = realOr(dir);
  const manifest = readJson(join(real, "package.json")) ?? {};
  const queue: { name: string; from: string }[] = [];
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    const deps = manifest[field];
    if (deps && typeof deps === "object") for (const dep of Object.keys(deps)) queue.push({ name: dep, from: real });
  }
  const looked = new Set<string>();
  const found = packageClosure(queue, new Map([[real, "ubiquity"]]), looked);
  const tops = new Set<string>();
  // The program this process was started by, as named (`node_modules/.bin/ubiquity`, a link
  // `npm link` made): the next `npx ubiquity` starts it the same way, outside the sandbox.
  if (entry && isAbsolute(entry) && entry.split(sep).includes("node_modules")) tops.add(outermostModules(entry));
  for (const path of [dir, real, ...looked, ...found]) {
    const top = outermostModules(path);
    // ubiquity's own folder outside node_modules (its checkout): its code is ownCode's.
    if (top !== dir && top !== real) tops.add(top);
  }
  // Where a package missing from all of those would be looked for next: every node_modules above.
  for (const top of [...tops, dir, real])
    for (let up = dirname(top); dirname(up) !== up; up = dirname(up)) tops.add(join(up, "node_modules"));
  tops.add(join(home, ".node_modules"));
  tops.add(join(home, ".node_libraries"));
  // A folder inside another one listed is covered by that one's bind.
  const sorted = [...tops].sort();
  const out = sorted.filter((p) => !sorted.some((q) => q !== p && p.startsWith(`${q}${sep}`)));
  ownModules.set(key, out);
  return out;
}

/**
 * The node_modules folders of ubiquity's dependencies that are read-only in the sandbox, for the
 * system prompt: found only when ubiquity itself is installed inside `roots` (otherwise none is,
 * bar a dependency linked in from there, and a run pays nothing for the answer).
 */
export function readOnlyModules(home: string, roots: readonly string[]): string[] {
  if (ownCode(roots).length === 0) return [];
  const inside = (p: string) => roots.some((r) => p === r || p.startsWith(`${r}${sep}`));
  return ownModuleFolders(home).filter((p) => inside(p) && existsSync(p));
}

/**
 * ubiquity's own state that decides what runs outside the sandbox: `~/.ubiquity` (the trust
 * store, the compile cache Node runs the bin from, settings, sessions) and the folder jiti keeps
 * compiled configs in (`~/.cache/ubiquity/jiti`, red team j, J6). Those inside `roots` (the home
 * folder, or a folder above it, made writable) are made now if missing, so they can be bound
 * read-only whatever the writable folders are.
 */
export function ownState(home: string, roots: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const inside = (p: string) => roots.some((r) => p === r || p.startsWith(`${r}${sep}`));
  const out: string[] = [];
  for (const path of [join(home, ".ubiquity"), compiledCacheDir({ ...env, HOME: home })]) {
    if (!inside(path)) continue;
    try {
      mkdirSync(path, { recursive: true, mode: 0o700 });
    } catch {
      // cannot be made: watched instead (a folder a command makes there is removed)
    }
    out.push(path);
  }
  return out;
}

/**
 * The closure of the config file the runner would load from `cwd` and of the configuration files
 * this process was started with by path (their installed packages and their own local modules),
 * ownCode, and the places a package a config imports could be shadowed
 * (shadowingPlaces: missing, so watched), inside `roots` only.
 */
export function installedConfigClosure(cwd: string, roots: readonly string[], home?: string): string[] {
  let found: string | undefined;
  try {
    found = findConfigFile(cwd, home);
  } catch {
    found = undefined; // two configs in one folder: the run stops on that anyway
  }
  const inside = (dir: string) => roots.some((r) => dir.startsWith(`${r}${sep}`));
  // The configuration files this process was started with by path (`--config ci/x.mjs`), whatever
  // their names: the next start loads what they load (the files themselves: configuredFiles).
  const configs = [...new Set([...(found ? [found] : []), ...runConfigFiles()])];
  return [
    ...new Set([
      ...ownCode(roots),
      ...configs.flatMap((configFile) => {
        const { installed, shadowing } = configPackagePlaces(configFile, roots);
        // The config's own modules too: it may load one lazily during the run, in the host process (red team k, K4);
        // and the names an import of it would load instead if a file were made there (red team zp, ZP2).
        const graph = configGraph(configFile);
        return [
          ...installed.filter(inside),
          ...graph.modules.filter(inside),
          ...graph.shadows.filter(inside),
          ...graph.installed.filter(inside),
          ...shadowing,
        ];
      }),
    ]),
  ];
}

const packagePlaces = new Map<string, string[]>();

/**
 * What the program runners of the configuration load by name (loader's `configuredPackages`: an
 * MCP server's `npx -y @acme/server`), inside `roots`: in each folder from the runner's up, its
 * `node_modules/.bin` and the package's folder, existing or not (one a command makes there would be
 * run instead); where Node finds the package, its folder and its dependency closure, as found and
 * where links lead. A package noted without a name (a runtime running a file, a runner's words not
 * read) stands for all: each `node_modules` itself. Found again only when a package is noted.
 */
export function configuredPackageFolders(roots: readonly string[]): string[] {
  const noted = configuredPackages();
  const key = `${noted.length}\0${roots.join("\0")}`;
  const known = packagePlaces.get(key);
  if (known) return known;
  const inside = (p: string) => roots.some((r) => p === r || p.startsWith(`${r}${sep}`));
  const out = new Set<string>();
  for (const { name, from } of noted) {
    // The package the `.bin` entry of the name leads to runs too, whatever its name (red team o, O7).
    const byBin: { name: string; from: string }[] = [];
    for (let dir = from; ; dir = dirname(dir)) {
      const modules = join(dir, "node_modules");
      for (const place of name === "" ? [modules] : [join(modules, ".bin"), join(modules, name)])
        if (inside(place)) out.add(place);
      const bin = name === "" ? undefined : binPackage(dir, name);
      const binName = bin ? readJson(join(bin, "package.json"))?.name : undefined;
      if (bin && inside(bin)) out.add(bin);
      if (typeof binName === "string") byBin.push({ name: binName, from: bin! });
      if (dirname(dir) === dir) break;
    }
    if (name === "") continue;
    const looked = new Set<string>();
    for (const dir of [...packageClosure([{ name, from }, ...byBin], new Map(), looked), ...looked])
      if (inside(dir)) out.add(dir);
  }
  const found = [...out];
  packagePlaces.set(key, found);
  return found;
}
