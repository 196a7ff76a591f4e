/**
 * Where a tool may touch the filesystem: a path is permitted when its fully resolved form
 * (every symlink followed, also a dangling one) lies inside one of the run's roots.
 */
import { relative } from "node:path";
import { absolutePath, type ToolContext } from "../../../src/index";
import { isInside, resolveReal, takeJudged } from "../paths/index";
import { PathSwapped } from "./held-folder";
import { ToolFailure } from "./tool-failure";

/** A path a tool was given, resolved. */
export interface ResolvedPath {
  /** Absolute, as written (relative paths joined to the cwd, `~` expanded), symlinks not followed. */
  absolute: string;
  /** Fully resolved: symlinks followed; for a missing file, its nearest existing parent resolved. */
  real: string;
}

/** `resolveReal`, or a ToolFailure when the path cannot be resolved (a symlink loop, too many links). */
function realOf(path: string): string {
  const real = resolveReal(path);
  if (real === undefined)
    throw new ToolFailure(
      `Cannot resolve ${path}: a symlink loop, too many levels of symbolic links, or an unreadable link. Point to the file itself.`,
    );
  return real;
}

/**
 * Resolve `path` for a tool call and refuse it unless it is inside a permitted root.
 * The error names the roots, so the model can pick a path that works.
 */
export async function resolvePermitted(ctx: Pick<ToolContext, "cwd" | "roots">, path: string): Promise<ResolvedPath> {
  const absolute = absolutePath(ctx.cwd, path);
  const real = realOf(absolute);
  // Roots are resolved on every call: plugins may add roots during a run, and a root may be a symlink.
  const roots = ctx.roots.map((root) => resolveReal(root) ?? root);
  if (roots.some((root) => isInside(root, real))) return { absolute, real };
  const via = real === absolute ? "" : ` (it resolves to ${real})`;
  throw new ToolFailure(
    `${absolute} is outside the folders this run may access${via}. Permitted: ${ctx.roots.join(", ")}. ` +
      "Use a path inside one of them.",
  );
}

/**
 * Refuse a call whose path leads now (`real`) elsewhere than where the permission engine found it
 * to lead when it judged the call: another process changed a folder or link on the path in
 * between, so what would be opened is not what the rules were asked about (a Read-denied file, a
 * file outside the roots, a git hook). Nothing judged (no engine, a rewritten input): no check.
 */
export function assertAsJudged(
  ctx: Pick<ToolContext, "run" | "toolUseId">,
  absolute: string,
  real: string,
  shown: string,
  verb: "read" | "written",
): void {
  const judged = takeJudged(ctx.run, ctx.toolUseId, absolute);
  if (judged && judged.real !== real) {
    throw new PathSwapped(
      `Not ${verb}: ${shown} resolves now to ${real} but was judged as ${judged.real ?? "a path that cannot be resolved"} when its permission was checked: ` +
        `another process changed a folder or link on the path in between. Nothing was ${verb}. Find what is changing it (a background command?), stop it, then try again.`,
    );
  }
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
