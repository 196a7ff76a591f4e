/**
 * What this process was told by path to take its configuration and code from: the config file
 * `loadConfig` loaded (found by the search or given with `--config`), a `--settings` file, and the
 * scripts the hooks of any settings file run. Their contents decide what runs outside the sandbox
 * the next time the same command starts (a hook, a plugin, an MCP server), wherever they lie. The
 * search's own file names are protected by name; a file given by path can be called anything
 * (`--config ci/agent.config.mjs`, a hook's `sh scripts/guard.sh`), so the sandbox keeps each one
 * read-only and the permission engine treats a write to it as sensitive, like the found config.
 */
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";

const configs = new Set<string>();
const code = new Set<string>();

/** `path` and where its links lead, in `into`. */
function add(into: Set<string>, path: string): void {
  const absolute = resolve(path);
  into.add(absolute);
  try {
    into.add(realpathSync(absolute));
  } catch {
    // not there: its absolute path is what a command would make
  }
}

/** Note a configuration file this process read its settings from. */
export function rememberRunConfigFile(path: string): void {
  add(configs, path);
}

/** Note a file a configuration names as code to run (a hook's script). */
export function rememberConfiguredCode(path: string): void {
  add(code, path);
}

/** Every configuration file this process read its settings from by path, in both spellings. */
export function runConfigFiles(): readonly string[] {
  return [...configs];
}

/** Those and the code they name: what neither a sandboxed command nor an unasked write may change. */
export function configuredFiles(): readonly string[] {
  return [...configs, ...code];
}

/** A package a configuration has a runner start by name (`npx -y @acme/server`), looked up from `from`. */
export interface ConfiguredPackage {
  name: string;
  from: string;
}

const packages = new Map<string, ConfiguredPackage>();

/**
 * Note a package that a configuration's program runner loads by name from the folder `from`: an
 * MCP server's `npx -y @acme/server` runs `node_modules/@acme/server` (and what its `.bin` names)
 * from the folder it starts in or any above, installed or not: one a sandboxed command put there
 * is run instead of the registry's, at the next start, with the server's network.
 */
export function rememberConfiguredPackage(name: string, from: string): void {
  const entry = { name, from: resolve(from) };
  packages.set(`${entry.name}\0${entry.from}`, entry);
}

/** Every package noted by `rememberConfiguredPackage`. */
export function configuredPackages(): readonly ConfiguredPackage[] {
  return [...packages.values()];
}

/**
 * The real folder of the package that `dir`'s `node_modules/.bin/<name>` leads to, if any: `npx -y
 * mcp-weather` runs the `.bin` entry of that name whichever package installed it
 * (`@acme/mcp-weather`'s, checked with npx offline), so that package is what runs (red team o, O7).
 */
export function binPackage(dir: string, name: string): string | undefined {
  const entry = join(dir, "node_modules", ".bin", basename(name));
  let target: string;
  try {
    target = realpathSync(entry);
  } catch {
    return undefined;
  }
  // The package holding the target: the nearest folder up with a package.json, below a node_modules.
  for (let up = dirname(target); dirname(up) !== up; up = dirname(up)) {
    if (existsSync(join(up, "package.json"))) return up.includes(`${sep}node_modules${sep}`) ? up : undefined;
  }
  return undefined;
}

/**
 * The place of a configured package that `path` (absolute) is in, if any: `node_modules/<name>` or
 * `node_modules/.bin` in the folder a runner starts in or any above it, where the runner finds it,
 * and the package the `.bin` entry of the name leads to.
 */
export function configuredPackagePlace(path: string): string | undefined {
  for (const { name, from } of packages.values()) {
    for (let dir = from; ; dir = dirname(dir)) {
      const bin = name === "" ? undefined : binPackage(dir, name);
      for (const place of [join(dir, "node_modules", name), join(dir, "node_modules", ".bin"), ...(bin ? [bin] : [])])
        if (path === place || path.startsWith(`${place}${sep}`)) return place;
      if (dirname(dir) === dir) break;
    }
  }
  return undefined;
}

/** Variables named like a search path or a program's folder: a bare word in one is a folder's name. */
const PATH_LIKE = /(?:PATH|LIB|_HOME|_DIR|_PREFIX|_CACHE|_ROOT)$/i;

/**
 * The paths in `folder` that a configuration's environment for a program started there names
 * (a stdio MCP server's own `env`, the run's `env` for it or a hook): `NODE_OPTIONS: "--require
 * ./.cache/boot.cjs"`, `PYTHONPATH: "lib"`, `NODE_PATH: "vendor"`, `npm_config_cache: "./.npm"`.
 * The program loads code from them, so one a sandboxed command made or changed there ran as the
 * server or the hook at its next start, with the server's network (red team p, P2); the engine
 * does not know what each program does with each variable, so every such word counts (fail
 * closed): one that starts with `.` or holds a `/`, or a bare word in a variable named like a
 * search path (a bare word elsewhere is a value: `DEBUG: "app:*"` names no folder `app`). The
 * folder itself (`PYTHONPATH: "."`) is not returned: it is the project, whose top the sandbox
 * keeps writable.
 */
export function environmentPaths(env: Readonly<Record<string, string>> | undefined, folder: string): string[] {
  const top = resolve(folder);
  const out = new Set<string>();
  for (const [name, value] of Object.entries(env ?? {})) {
    for (const raw of value.split(/[\s:;,=]+/)) {
      const word = raw.replace(/^["']+|["']+$/g, "");
      if (word === "" || word.startsWith("-") || word.startsWith("$") || word.startsWith("~") || word.includes("://"))
        continue;
      const path = resolve(top, word);
      if (path === top || !path.startsWith(`${top}${sep}`)) continue;
      if (word.startsWith(".") || word.includes("/") || PATH_LIKE.test(name)) out.add(path);
    }
  }
  return [...out];
}

const places = new Set<string>();

/**
 * Note what `environmentPaths` finds as configured code: read-only (or watched) in the sandbox,
 * and a sensitive path to the engine, with everything below it (`PYTHONPATH: "lib"` loads
 * `lib/json/__init__.py`).
 */
export function rememberEnvironmentPaths(env: Readonly<Record<string, string>> | undefined, folder: string): void {
  for (const path of environmentPaths(env, folder)) {
    rememberConfiguredCode(path);
    add(places, path);
  }
}

/** The path noted by `rememberEnvironmentPaths` that `path` (absolute) is, or is inside, if any. */
export function configuredEnvironmentPlace(path: string): string | undefined {
  for (const place of places) if (path === place || path.startsWith(`${place}${sep}`)) return place;
  return undefined;
}
