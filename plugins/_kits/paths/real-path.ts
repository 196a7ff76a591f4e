/**
 * Where a path really is: "is this path inside that folder" by path components, and one symlink
 * resolution that also works for files that do not exist yet. The file tools, the permission
 * engine, checkpoints, memory, skills and the fleet decide with the same two.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

const MAX_LINKS = 40;

/** True when `path` is `root` or lies below it (by path components, never by string prefix). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/**
 * Resolve every symlink in `path`, like realpath, but also for paths that do not exist yet: the
 * missing tail is appended to its nearest existing parent, and a dangling symlink is followed to
 * where it points (so writing through it cannot land outside a folder). Undefined when it cannot
 * be resolved (a symlink loop, more than 40 links, or an unreadable link). Synchronous on
 * purpose: a handful of lstat/realpath calls, microseconds per path.
 */
export function resolveReal(path: string, depth = 0): string | undefined {
  if (depth > MAX_LINKS) return undefined;
  // lstat without throwing first: a missing file is the common case for writes, and a thrown
  // ENOENT costs more than the rest of a permission decision.
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
      if (code !== "ENOENT" && code !== "ENOTDIR") return undefined;
      // It was there at the lstat: replaced since (another process swapping it); resolve what stands there now.
      if (!info.isSymbolicLink()) return resolveReal(path, depth + 1);
    }
    // A dangling symlink: follow it to where a write would land.
    let target: string;
    try {
      target = readlinkSync(path);
    } catch {
      // Replaced since the lstat (another process swapping it): resolve what stands there now.
      return resolveReal(path, depth + 1);
    }
    return resolveReal(resolve(dirname(path), target), depth + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  const realParent = resolveReal(parent, depth + 1);
  return realParent === undefined ? undefined : join(realParent, basename(path));
}
