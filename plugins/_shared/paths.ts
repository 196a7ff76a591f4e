/**
 * Where a tool may touch the filesystem: a path is permitted when its fully resolved form
 * (every symlink followed, also a dangling one) lies inside one of the run's roots.
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ToolContext } from "../../src/index";
import { ToolFailure } from "./tool-failure";

const MAX_LINKS = 40;

/** A path a tool was given, resolved. */
export interface ResolvedPath {
  /** Absolute, as written (relative paths joined to the cwd, `~` expanded), symlinks not followed. */
  absolute: string;
  /** Fully resolved: symlinks followed; for a missing file, its nearest existing parent resolved. */
  real: string;
}

/** Absolute form of a path a model wrote: `~` is the home folder, relative is against `cwd`. */
export function absolutePath(cwd: string, path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return resolve(cwd, path);
}

/**
 * Resolve every symlink in `path`, like realpath, but also for paths that do not exist yet:
 * the missing tail is appended to its nearest existing parent, and a dangling symlink is
 * followed to where it points (so writing through it cannot land outside the roots).
 */
export async function resolveReal(path: string, depth = 0): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  if (depth > MAX_LINKS) throw new ToolFailure(`Too many levels of symbolic links at ${path}; point to the file itself.`);
  const info = await lstat(path).catch(() => undefined);
  if (info?.isSymbolicLink()) {
    const target = await readlink(path);
    return resolveReal(resolve(dirname(path), target), depth + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(await resolveReal(parent, depth + 1), basename(path));
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** True when `path` is `root` or lies below it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/**
 * Resolve `path` for a tool call and refuse it unless it is inside a permitted root.
 * The error names the roots, so the model can pick a path that works.
 */
export async function resolvePermitted(ctx: Pick<ToolContext, "cwd" | "roots">, path: string): Promise<ResolvedPath> {
  const absolute = absolutePath(ctx.cwd, path);
  const real = await resolveReal(absolute);
  // Roots are resolved on every call: plugins may add roots during a run, and a root may be a symlink.
  const roots = await Promise.all(ctx.roots.map((root) => resolveReal(root)));
  if (roots.some((root) => isInside(root, real))) return { absolute, real };
  const via = real === absolute ? "" : ` (it resolves to ${real})`;
  throw new ToolFailure(
    `${absolute} is outside the folders this run may access${via}. Permitted: ${ctx.roots.join(", ")}. ` +
      "Use a path inside one of them.",
  );
}

/**
 * For a tool's `validateInput`: the refusal for a path outside the roots, or undefined. Checked
 * before permission, so nobody is asked to approve a call that cannot run; `call` checks again
 * (a hook may have rewritten the input since).
 */
export async function outsideRoots(ctx: Pick<ToolContext, "cwd" | "roots">, path: string): Promise<string | undefined> {
  try {
    await resolvePermitted(ctx, path);
    return undefined;
  } catch (error) {
    if (error instanceof ToolFailure) return error.message;
    throw error;
  }
}

/** How a path is shown to the model: relative to the cwd when inside it, absolute otherwise. */
export function displayPath(cwd: string, path: string): string {
  if (!isInside(cwd, path)) return path;
  return relative(cwd, path) || ".";
}

/** A searched place named in a sentence ("the working directory" rather than "."). */
export function placeName(cwd: string, path: string): string {
  const shown = displayPath(cwd, path);
  return shown === "." ? "the working directory" : shown;
}
