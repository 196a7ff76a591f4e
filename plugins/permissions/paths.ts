/**
 * Paths as the permission engine judges them: the path as written (made absolute, `..` and
 * `//` folded) and the fully resolved path (every symlink followed — a dangling one to where it
 * points — and, for a file that does not exist yet, its nearest existing parent resolved).
 * Synchronous on purpose: a decision is a handful of lstat/realpath calls, and staying
 * synchronous keeps the per-call cost in microseconds.
 */
import { absolutePath } from "../../src/index";
import { isInside, resolveReal } from "../_kits/paths/index";

/** A path a tool call names, in both forms rules are matched against. */
export interface JudgedPath {
  /** As written, absolute (`~` expanded, relative to the cwd). */
  absolute: string;
  /** Fully resolved; undefined when it cannot be resolved (a symlink loop). */
  real: string | undefined;
  /** A pathspec of stored files (ShellWord.stored): judged by what a rule may name below it, not by the disk. */
  stored?: boolean;
}

/** Judge a written path against `cwd`. */
export function judgePath(cwd: string, home: string, written: string): JudgedPath {
  const absolute = absolutePath(cwd, written, home);
  // The kernel follows a symlink before the `..` after it (`l/../config` with l → .git/hooks opens
  // .git/config); folding `..` first, as `absolute` does, is not where a program lands.
  if (!/(^|\/)\.\.(\/|$)/.test(written)) return { absolute, real: resolveReal(absolute) };
  return { absolute, real: resolveReal(unfolded(cwd, home, written)) };
}

/** `written` made absolute with its `..` left in place, for realpath (the kernel's walk) to resolve. */
function unfolded(cwd: string, home: string, written: string): string {
  if (written.startsWith("/")) return written;
  const inHome = written === "~" || written.startsWith("~/");
  const base = (inHome ? home : cwd).replace(/\/+$/, "");
  return `${base}/${inHome ? written.slice(2) : written}`;
}

/** Resolve the permitted roots (a root may itself be a symlink). */
export function resolveRoots(roots: readonly string[]): string[] {
  return roots.map((root) => resolveReal(root) ?? root);
}

/** True when the fully resolved path lies inside a root (where the tool would really touch). */
export function insideRoots(path: JudgedPath, realRoots: readonly string[]): boolean {
  return path.real !== undefined && realRoots.some((root) => isInside(root, path.real!));
}
