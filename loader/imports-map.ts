/**
 * A package's `imports` map (`"#lib/*": "./src/lib/*.js"`), read the way Node reads it for a `#`
 * specifier: what trust pins for a config's imports and for a hook's script (its own module, so
 * the config graph and the script scan share it without importing each other).
 */
import { statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { peekJsonOrYaml } from "./safe-read";

const isFile = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** The package.json whose `imports` map a `#` specifier of `from` goes through: the nearest one above it (Node's package scope). */
function packageScope(from: string): string | undefined {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (isFile(join(dir, "package.json"))) return join(dir, "package.json");
    if (dirname(dir) === dir) return undefined;
  }
}

/** Every string a package target holds, under any condition (objects' values, arrays' items). */
function targetStrings(target: unknown): string[] {
  if (typeof target === "string") return [target];
  if (Array.isArray(target)) return target.flatMap(targetStrings);
  if (target && typeof target === "object") return Object.values(target).flatMap(targetStrings);
  return [];
}

/** What a package.json `imports` map gives a `#` specifier. */
export interface ImportsMapTargets {
  /** The package.json holding the map. */
  manifest: string;
  /** The local files it names, under every condition (absolute; they may not exist). */
  files: string[];
  /** The packages it names (installed code). */
  packages: string[];
}

/**
 * The targets `specifier` (`#x`) has in the `imports` map of `from`'s package.json, under every
 * condition: a loader picks one by its own conditions (jiti takes `import` where Node's require
 * takes `require`), so trust pins them all. Undefined when there is no map, or no entry for it.
 */
export function importsMapTargets(specifier: string, from: string): ImportsMapTargets | undefined {
  const manifest = packageScope(from);
  if (!manifest) return undefined;
  const imports = (peekJsonOrYaml(manifest) as { imports?: unknown } | undefined)?.imports;
  if (!imports || typeof imports !== "object" || Array.isArray(imports)) return undefined;
  const map = imports as Record<string, unknown>;
  const { target, star } =
    Object.hasOwn(map, specifier) && !specifier.includes("*")
      ? { target: map[specifier] }
      : patternEntry(map, specifier);
  if (target === undefined) return undefined;
  const dir = dirname(manifest);
  const files: string[] = [];
  const packages: string[] = [];
  for (const raw of targetStrings(target)) {
    const text = star === undefined ? raw : raw.replaceAll("*", star);
    if (text.startsWith("./")) files.push(resolve(dir, text));
    else if (!text.startsWith("/") && !/^[a-z]+:/.test(text)) packages.push(text);
  }
  return { manifest, files, packages };
}

/**
 * The local files a package's `exports` map (or, without one, its `main`) gives `subpath` (`.` or
 * `./x`) under every condition, absolute (they may not exist): Node's `import` takes one entry,
 * its `require` another, jiti a third, so trust pins them all (red team zp, ZP3). Undefined when
 * the package has no entry for it.
 */
export function exportsMapTargets(packageDir: string, subpath: string): string[] | undefined {
  const manifest = peekJsonOrYaml(join(packageDir, "package.json")) as
    | { exports?: unknown; main?: unknown }
    | undefined;
  if (!manifest || typeof manifest !== "object") return undefined;
  const exports = manifest.exports;
  let target: unknown;
  let star: string | undefined;
  const keyed =
    exports &&
    typeof exports === "object" &&
    !Array.isArray(exports) &&
    Object.keys(exports).some((k) => k.startsWith("."));
  if (exports === undefined) target = subpath === "." ? (manifest.main ?? "./index.js") : `${subpath}`;
  else if (!keyed) target = subpath === "." ? exports : undefined;
  else {
    const map = exports as Record<string, unknown>;
    if (Object.hasOwn(map, subpath)) target = map[subpath];
    else ({ target, star } = patternEntry(map, subpath));
  }
  if (target === undefined || target === null) return undefined;
  return targetStrings(target)
    .map((raw) => (star === undefined ? raw : raw.replaceAll("*", star)))
    .filter((text) => !/^[a-z]+:/.test(text) && !text.startsWith("/"))
    .map((text) => resolve(packageDir, text));
}

/**
 * The entry of an `imports` or `exports` map whose one-`*` pattern key (`#lib/*`, `./features/*.js`)
 * matches `specifier` with the longest prefix, as Node picks it, and what the `*` stands for.
 */
function patternEntry(map: Record<string, unknown>, specifier: string): { target?: unknown; star?: string } {
  let best: { prefix: string; target: unknown; star: string } | undefined;
  for (const key of Object.keys(map)) {
    const at = key.indexOf("*");
    if (at < 0 || key.indexOf("*", at + 1) >= 0) continue;
    const [prefix, suffix] = [key.slice(0, at), key.slice(at + 1)];
    if (specifier.length < key.length - 1 || !specifier.startsWith(prefix) || !specifier.endsWith(suffix)) continue;
    if (!best || prefix.length > best.prefix.length)
      best = { prefix, target: map[key], star: specifier.slice(prefix.length, specifier.length - suffix.length) };
  }
  return best ? { target: best.target, star: best.star } : {};
}
