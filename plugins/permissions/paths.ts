/**
 * Paths as the permission engine judges them: the path as written (made absolute, `..` and
 * `//` folded) and the fully resolved path (every symlink followed — a dangling one to where it
 * points — and, for a file that does not exist yet, its nearest existing parent resolved).
 * Synchronous on purpose: a decision is a handful of lstat/realpath calls, and staying
 * synchronous keeps the per-call cost in microseconds.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

const MAX_LINKS = 40;

/** A path a tool call names, in both forms rules are matched against. */
export interface JudgedPath {
  /** As written, absolute (`~` expanded, relative to the cwd). */
  absolute: string;
  /** Fully resolved; undefined when it cannot be resolved (a symlink loop). */
  real: string | undefined;
}

/** Absolute form of a written path: `~` and `~/x` are the home folder, relative is against `cwd`. */
export function absolutePath(cwd: string, home: string, path: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return resolve(cwd, path);
}

/** Resolve every symlink in `path`, also when the file (or a symlink's target) does not exist. */
export function resolveReal(path: string, depth = 0): string | undefined {
  if (depth > MAX_LINKS) return undefined;
  // lstat without throwing first: a missing file is the common case for writes, and a thrown
  // ENOENT costs more than the whole rest of a decision.
  let info: ReturnType<typeof lstatSync>;
  try {
    info = lstatSync(path, { throwIfNoEntry: false });
  } catch {
    info = undefined; // ENOTDIR: a parent is a file; resolve the parent below
  }
  if (info) {
    try {
      return realpathSync.native(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== "ENOENT" && code !== "ENOTDIR") || !info.isSymbolicLink()) return undefined;
    }
    // A dangling symlink: follow it to where a write would land.
    return resolveReal(resolve(dirname(path), readlinkSync(path)), depth + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  const realParent = resolveReal(parent, depth + 1);
  return realParent === undefined ? undefined : join(realParent, basename(path));
}

/** Judge a written path against `cwd`. */
export function judgePath(cwd: string, home: string, written: string): JudgedPath {
  const absolute = absolutePath(cwd, home, written);
  return { absolute, real: resolveReal(absolute) };
}

/** True when `path` is `root` or lies below it (by path components, never by string prefix). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/** Resolve the permitted roots (a root may itself be a symlink). */
export function resolveRoots(roots: readonly string[]): string[] {
  return roots.map((root) => resolveReal(root) ?? root);
}

/** True when the fully resolved path lies inside a root (where the tool would really touch). */
export function insideRoots(path: JudgedPath, realRoots: readonly string[]): boolean {
  return path.real !== undefined && realRoots.some((root) => isInside(root, path.real!));
}
