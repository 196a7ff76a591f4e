import { statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import { micromatch } from "../_kits/lazy/index";
import { z } from "zod";
import type { ToolContext, ToolOutput } from "../../src/index";
import { isInside, resolveReal } from "../_kits/paths/index";
import {
  PathTool,
  displayPath,
  globMatchingCost,
  placeName,
  resolvePermitted,
  ToolFailure,
  guard,
} from "../_kits/file-tools/index";
import { skippedFor } from "./skipped-folders";
import { findFiles } from "./walk";
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

      const {
        files,
        folders,
        real: read,
        realFiles,
      } = await findFiles(dir, pattern, skippedFor(pattern), ctx.abortSignal);
      // What the pattern found is judged, not its spelling: `..{,}/` climbs out of the folder
      // without a `..` segment the check above reads (red team i, I5), and a link the pattern
      // names (`l/*`, l -> ~/.ssh) is walked into (I6). The walk lists only names read from
      // folders below `dir`, so where each folder holding a result really is decides. Fail closed,
      // naming nothing found there.
      const roots = ctx.roots.map((root) => resolveReal(root) ?? root);
      // Where each was when read (red team o, O6: a folder swapped for a link to ~/.ssh by a
      // background command for the read, and back before a judgement of its path now); where that
      // could not be told, the call fails closed.
      if (folders.some((_, i) => !read[i] || !roots.some((root) => isInside(root, read[i]!))))
        throw new ToolFailure(
          `The pattern ${input.pattern} reaches outside the search folder ${dir} or the folders this run may access; set path to the folder to search instead.`,
        );
      // Temp files of atomic writes (a Write in flight, or one a crash left) are never results;
      // nor are files a Read deny or ask rule names, left out before they are counted (red team i, I1, I2).
      const refused = refusedBy(ctx);
      const listed = files.filter(
        (f, i) => !isAtomicTempName(f) && !refused?.(`${dir}/${f}`) && !(realFiles[i] && refused?.(realFiles[i]!)),
      );
      const newest = newestFirst(dir, listed, GLOB_MAX_RESULTS);
      const where = displayPath(ctx.cwd, dir);
      const prefix = where === "." ? "" : `${where}/`;
      const shown = newest.map((f) => prefix + f);
      const metadata = { count: listed.length, shown: shown.length, truncated: listed.length > shown.length };
      if (listed.length === 0)
        return { content: `No files found matching ${input.pattern} in ${placeName(ctx.cwd, dir)}.`, metadata };
      const note =
        listed.length > shown.length
          ? `\n\n[Showing the ${shown.length} most recently modified of ${listed.length} matching files. Narrow the pattern or path to see the others.]`
          : "";
      return { content: shown.join("\n") + note, metadata };
    });
  }
}

/** Does a Read deny or ask rule name this file (judged by the permissions plugin of the call's run)? */
function refusedBy(ctx: ToolContext): ((path: string) => boolean) | undefined {
  const run = ctx.run;
  if (!run) return undefined;
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
  const cost = globMatchingCost(out);
  if (cost)
    throw new ToolFailure(
      `The pattern ${pattern} is too costly to match (${cost}); use fewer wildcards or brace alternatives, or narrow path.`,
    );
  // Each brace expansion too (`..{,}/x` is `../x`), so a walk out of the folder is not even begun.
  const expanded = [out, ...micromatch().braces(out, { expand: true })];
  if (expanded.some((p) => p.split("/").includes(".."))) {
    throw new ToolFailure(
      `The pattern ${pattern} climbs out of the search folder with ".."; set path to the folder to search instead.`,
    );
  }
  return out;
}

/**
 * The `limit` newest of paths (relative to `dir`) by modification time, newest first, ties by
 * path. Only those are sorted: the oldest time among them is found on the times alone, so the
 * rest (all but 500 of a 20,000-file tree) are never compared.
 */
function newestFirst(dir: string, files: string[], limit: number): string[] {
  // Synchronous stats: a few microseconds each, where thousands of async ones queue on the thread pool.
  const times = new Float64Array(files.length);
  for (let i = 0; i < files.length; i++)
    times[i] = statSync(`${dir}/${files[i]}`, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  let order = files.map((_, i) => i);
  if (files.length > limit) {
    const cutoff = new Float64Array(times).sort()[files.length - limit]!;
    order = order.filter((i) => times[i]! >= cutoff);
  }
  order.sort((a, b) => times[b]! - times[a]! || (files[a]! < files[b]! ? -1 : files[a]! > files[b]! ? 1 : 0));
  return order.slice(0, limit).map((i) => files[i]!);
}
