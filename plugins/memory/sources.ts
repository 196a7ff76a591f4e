/**
 * Where memory files live. Weakest first: user, then project, then local, then the explicit
 * `memory` files; project and local walk from the filesystem root down to the cwd, so the
 * nearest file has the last word (Codex's AGENTS.md from the git root down, as Codex does).
 */
import { closeSync, type Dirent, existsSync, lstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { absolutePath } from "../../src/index";
import { othersCanWrite } from "../../loader/index";
import {
  chooseAlternatives,
  type CompatPath,
  type CompatTool,
  compatPaths,
  orderedSources,
} from "../_kits/sources/index";

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
  /** A Codex project file (`AGENTS.md`, `AGENTS.override.md`): these share Codex's 32 KiB budget. */
  codexProjectDoc?: true;
  /** A Codex file: its `@path` lines are not includes, as Codex follows none. */
  noIncludes?: true;
  /** A Claude Code rule (`.claude/rules/**\/*.md`): its frontmatter's `paths` scope it. */
  rule?: true;
  /** Another tool's file (`CLAUDE.md`, `AGENTS.md`, a rule): read only under that `compat`. */
  tool?: CompatTool;
}

// A deep or looping tree is not a rules folder: stop at this depth.
const MAX_RULES_DEPTH = 8;

/**
 * Claude Code's rules under `folder`: every `.md` file under `.claude/rules`, at any depth, sorted
 * by path, as Claude Code loads them with the folder's CLAUDE.md. A folder reached through a
 * symlink is not walked (it could loop); a linked file is read under the same limits as CLAUDE.md.
 */
export function claudeRuleFiles(folder: string): string[] {
  const walk = (dir: string, depth: number): string[] => {
    if (depth > MAX_RULES_DEPTH) return [];
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return [];
    }
    return entries
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return walk(path, depth + 1);
        return (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(".md") ? [path] : [];
      });
  };
  return walk(join(folder, ".claude", "rules"), 0);
}

/** How much of a user override is read to tell whether it is blank. */
const OVERRIDE_PEEK_BYTES = 64 * 1024;

/**
 * Whether an override (`AGENTS.override.md`) is there to be read in place of its sibling, as Codex
 * decides: in a project folder when it exists (a file or a link: an empty one hides AGENTS.md);
 * in the home folder when it holds more than white space.
 */
export function overridePresent(path: CompatPath): boolean {
  try {
    const stats = lstatSync(path.path);
    if (path.source !== "user") return stats.isFile() || stats.isSymbolicLink();
    if (!statSync(path.path).isFile()) return false; // never open a FIFO or a device
    const fd = openSync(path.path, "r");
    try {
      const buffer = Buffer.alloc(OVERRIDE_PEEK_BYTES);
      const read = readSync(fd, buffer, 0, buffer.length, 0);
      return buffer.subarray(0, read).toString("utf8").trim() !== "";
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

/**
 * The folders from the filesystem root down to `cwd`, less any from the first one above `cwd`
 * that other users can write (`/tmp`) upwards: a CLAUDE.md planted there is theirs, not the
 * project's (red team zc, ZC5).
 */
export function rootToCwd(cwd: string): string[] {
  const start = resolve(cwd);
  const dirs: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    if (dir !== start && othersCanWrite(dir)) return dirs;
    dirs.unshift(dir);
    if (dirname(dir) === dir) return dirs;
  }
}

/**
 * The folders Codex looks for AGENTS.md in, outermost first: from the project root — the nearest
 * folder at or above `cwd` with a `.git` (a folder, or a worktree's file), Codex's default
 * `project_root_markers` — down to `cwd`; only `cwd` when there is none. Codex does not walk past
 * the project root (codex-rs/core/src/agents_md.rs).
 */
export function codexProjectDirs(cwd: string): string[] {
  const start = resolve(cwd);
  const dirs: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    // A `.git` other users could plant (red team zc, ZC5): the walk stops below such a folder.
    if (dir !== start && othersCanWrite(dir)) return [start];
    dirs.unshift(dir);
    if (existsSync(join(dir, ".git"))) return dirs;
    if (dirname(dir) === dir) return [resolve(cwd)];
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
  const codexDirs = new Set(codexProjectDirs(place.cwd));
  const own = new Set(orderedSources(options.memorySources));
  const theirs = new Set(options.compat?.length ? orderedSources(options.compatSources) : []);
  const compat = (source: "user" | "project" | "local", folders: string[]) =>
    theirs.has(source)
      ? chooseAlternatives(
          compatPaths(
            "memory",
            { compat: options.compat, sources: [source] },
            { cwd: place.cwd, home: place.home, folders },
          ).filter((p) => p.tool !== "codex" || source === "user" || codexDirs.has(p.folder)),
          overridePresent,
        ).map((p) => ({
          path: p.path,
          source,
          folder: p.folder,
          tool: p.tool,
          // Codex reads AGENTS.md as it is: an `@path` line is text, not an include (CLAUDE.md's are).
          ...(p.tool === "codex" ? { noIncludes: true as const } : {}),
          ...(p.tool === "codex" && source !== "user" ? { codexProjectDoc: true as const } : {}),
        }))
      : [];
  // Claude Code's rules (`~/.claude/rules`, `.claude/rules`) come with the CLAUDE.md files of their folder.
  const rules = (source: "user" | "project", folder: string): MemoryCandidate[] =>
    theirs.has(source) && options.compat?.includes("claude")
      ? claudeRuleFiles(folder).map((path) => ({ path, source, folder, rule: true as const, tool: "claude" as const }))
      : [];
  out.push(...compat("user", []), ...rules("user", place.home));
  if (own.has("user"))
    out.push({ path: join(place.home, ".ubiquity", "UBIQUITY.md"), source: "user", folder: place.home });
  for (const d of dirs) {
    out.push(...compat("project", [d]), ...rules("project", d));
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
