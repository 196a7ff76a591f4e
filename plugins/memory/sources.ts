/**
 * Where memory files live. Weakest first: user, then project, then local, then the explicit
 * `memory` files; project and local walk from the filesystem root down to the cwd, so the
 * nearest file has the last word.
 */
import { dirname, join, resolve } from "node:path";
import { absolutePath } from "../../src/index";
import { compatPaths, orderedSources } from "../_kits/sources/index";

/** Where a memory file came from: a source, or the `memory` option. */
export type MemorySource = "user" | "project" | "local" | "memory";

/** A memory file to try, before reading. */
export interface MemoryCandidate {
  path: string;
  source: MemorySource;
  /** Only for `memory` entries: the path as the caller wrote it (a missing one is reported). */
  written?: string;
  /**
   * The folder the file belongs to (the home folder for user memory, the folder it was found in
   * for project and local memory): through symlinks, the file must resolve to inside it.
   * Undefined for `memory` entries, which the caller named.
   */
  folder?: string;
}

/** The folders from the filesystem root down to `cwd`. */
export function rootToCwd(cwd: string): string[] {
  const dirs: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) return dirs;
  }
}

/**
 * Every memory file the options point at, weakest first (files may not exist). Under `compat`,
 * another tool's files of a source (`~/.claude/CLAUDE.md`, `CLAUDE.md`, `.claude/CLAUDE.md`,
 * `AGENTS.md`, `CLAUDE.local.md`) come just before ours of the same source and folder, so ours
 * have the last word. `compatSources` are the sources those are read from.
 */
export function memoryCandidates(
  options: {
    memorySources?: readonly string[];
    memory?: readonly string[];
    compat?: readonly string[];
    compatSources?: readonly string[];
  },
  place: { cwd: string; home: string },
): MemoryCandidate[] {
  const out: MemoryCandidate[] = [];
  const dirs = rootToCwd(place.cwd);
  const own = new Set(orderedSources(options.memorySources));
  const theirs = new Set(options.compat?.length ? orderedSources(options.compatSources) : []);
  const compat = (source: "user" | "project" | "local", folders: string[]) =>
    theirs.has(source)
      ? compatPaths(
          "memory",
          { compat: options.compat, sources: [source] },
          { cwd: place.cwd, home: place.home, folders },
        ).map((p) => ({ path: p.path, source, folder: p.folder }))
      : [];
  out.push(...compat("user", []));
  if (own.has("user"))
    out.push({ path: join(place.home, ".ubiquity", "UBIQUITY.md"), source: "user", folder: place.home });
  for (const d of dirs) {
    out.push(...compat("project", [d]));
    if (own.has("project"))
      out.push(
        { path: join(d, "UBIQUITY.md"), source: "project", folder: d },
        { path: join(d, ".ubiquity", "UBIQUITY.md"), source: "project", folder: d },
      );
  }
  for (const d of dirs) {
    out.push(...compat("local", [d]));
    if (own.has("local")) out.push({ path: join(d, "UBIQUITY.local.md"), source: "local", folder: d });
  }
  for (const written of options.memory ?? [])
    out.push({ path: absolutePath(place.cwd, written), source: "memory", written });
  return out;
}
