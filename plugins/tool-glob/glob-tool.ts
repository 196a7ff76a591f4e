import { statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { micromatch, tinyglobby } from "../_kits/lazy/index";
import { z } from "zod";
import type { ToolContext, ToolOutput } from "../../src/index";
import { isInside, resolveReal } from "../_kits/paths/index";
import { PathTool, displayPath, placeName, resolvePermitted, ToolFailure, guard } from "../_kits/file-tools/index";
import { skippedFor, skippingReaddir } from "./skipped-folders";
import { isAtomicTempName } from "../_kits/storage/index";
import { getPermissionsApi } from "../permissions/api";

/** The most paths one Glob call returns. */
export const GLOB_MAX_RESULTS = 500;

/** Input of the Glob tool. */
export const GlobInput = z.object({
  pattern: z.string().min(1).describe('Relative to path, e.g. "src/**/*.ts"'),
  path: z.string().optional().describe("Folder (default: the working directory)"),
});

const DESCRIPTION = `Finds files (not folders) by glob pattern (*, ?, ** across folders, {a,b}, [abc]), newest first; at most 500, with a note when there are more.
- Skips .git, node_modules and build/cache folders (dist, build, target, coverage, .next, __pycache__, .venv, ...) unless the pattern names them. Includes hidden files; does not follow symbolic links.`;

/** Glob: file paths matching a pattern, newest first. */
export class GlobTool extends PathTool<typeof GlobInput> {
  readonly name = "Glob";
  override readonly kind = "search" as const;
  readonly description = DESCRIPTION;
  readonly inputSchema = GlobInput;

  override isReadOnly() {
    return true;
  }
  override isConcurrencySafe() {
    return true;
  }
  protected pathOf(input: z.output<typeof GlobInput>) {
    return input.path ?? ".";
  }

  async call(input: z.output<typeof GlobInput>, ctx: ToolContext): Promise<ToolOutput> {
    return guard(async () => {
      const { absolute: dir, real } = await resolvePermitted(ctx, input.path ?? ".");
      const info = await stat(real).catch(() => undefined);
      if (!info)
        throw new ToolFailure(
          `Folder does not exist: ${dir}. Give an existing folder as path (relative paths start at ${ctx.cwd}).`,
        );
      if (!info.isDirectory())
        throw new ToolFailure(
          `${input.path} is a file, not a folder; give its folder as path and the file name in pattern.`,
        );
      const pattern = relativePattern(input.pattern, dir);

      const files = await tinyglobby().glob(pattern, {
        cwd: dir,
        onlyFiles: true,
        dot: true,
        followSymbolicLinks: false,
        fs: { readdir: skippingReaddir(skippedFor(pattern)) },
        signal: ctx.abortSignal,
      });
      // What the pattern found is judged, not its spelling: `..{,}/` climbs out of the folder
      // without a `..` segment the check above reads (red team i, I5), and a link the pattern
      // names (`l/*`, l -> ~/.ssh) is walked into (I6). Fail closed, naming nothing found there.
      if (files.some(outsideOf(dir, ctx)))
        throw new ToolFailure(
          `The pattern ${input.pattern} reaches outside the search folder ${dir} or the folders this run may access; set path to the folder to search instead.`,
        );
      // Temp files of atomic writes (a Write in flight, or one a crash left) are never results;
      // nor are files a Read deny or ask rule names, left out before they are counted (red team i, I1, I2).
      const refused = refusedBy(ctx);
      const newest = newestFirst(
        dir,
        files.filter((f) => !isAtomicTempName(f) && !refused(join(dir, f))),
      );
      const where = displayPath(ctx.cwd, dir);
      const prefix = where === "." ? "" : `${where}/`;
      const shown = newest.slice(0, GLOB_MAX_RESULTS).map((f) => prefix + f);
      const metadata = { count: newest.length, shown: shown.length, truncated: newest.length > shown.length };
      if (newest.length === 0)
        return { content: `No files found matching ${input.pattern} in ${placeName(ctx.cwd, dir)}.`, metadata };
      const note =
        newest.length > shown.length
          ? `\n\n[Showing the ${shown.length} most recently modified of ${newest.length} matching files. Narrow the pattern or path to see the others.]`
          : "";
      return { content: shown.join("\n") + note, metadata };
    });
  }
}

/**
 * Is a result (relative to `dir`) outside it as written, or in a folder that really lies outside
 * the run's roots? Each folder is resolved once.
 */
function outsideOf(dir: string, ctx: ToolContext): (file: string) => boolean {
  const roots = ctx.roots.map((root) => resolveReal(root) ?? root);
  const folders = new Map<string, boolean>();
  return (file) => {
    const absolute = resolve(dir, file);
    if (!isInside(dir, absolute)) return true;
    const folder = dirname(absolute);
    let out = folders.get(folder);
    if (out === undefined) {
      const real = resolveReal(folder);
      out = real === undefined || !roots.some((root) => isInside(root, real));
      folders.set(folder, out);
    }
    return out;
  };
}

/** Does a Read deny or ask rule name this file (judged by the permissions plugin of the call's run)? */
function refusedBy(ctx: ToolContext): (path: string) => boolean {
  const run = ctx.run;
  if (!run) return () => false;
  const permissions = getPermissionsApi(run.kernel);
  return (path) => permissions.readWithheld(run, path) !== undefined;
}

/** Make an absolute pattern relative to the search folder, and refuse patterns that leave it. */
function relativePattern(pattern: string, dir: string): string {
  let out = pattern;
  if (isAbsolute(out)) {
    if (!isInside(dir, out.split(/[*?[{]/)[0]!)) {
      throw new ToolFailure(
        `The pattern ${pattern} is outside the search folder ${dir}; set path to the folder to search and make the pattern relative to it.`,
      );
    }
    out = relative(dir, out) || "**/*";
  }
  // Each brace expansion too (`..{,}/x` is `../x`), so a walk out of the folder is not even begun.
  const expanded = [out, ...micromatch().braces(out, { expand: true })];
  if (expanded.some((p) => p.split("/").includes(".."))) {
    throw new ToolFailure(
      `The pattern ${pattern} climbs out of the search folder with ".."; set path to the folder to search instead.`,
    );
  }
  return out;
}

/** Sort paths (relative to `dir`) by modification time, newest first; ties by path. */
function newestFirst(dir: string, files: string[]): string[] {
  // Synchronous stats: a few microseconds each, where thousands of async ones queue on the thread pool.
  const times = files.map((f) => statSync(`${dir}/${f}`, { throwIfNoEntry: false })?.mtimeMs ?? 0);
  const order = files.map((_, i) => i);
  order.sort((a, b) => times[b]! - times[a]! || (files[a]! < files[b]! ? -1 : files[a]! > files[b]! ? 1 : 0));
  return order.map((i) => files[i]!);
}
