/**
 * The file walk of the pure-Node backend, selecting the files ripgrep would search with the
 * flags the rg backend passes: hidden files included, `.git` skipped, symlinks not followed,
 * `.gitignore`/`.ignore`/`.rgignore` honored (in the folder, its subfolders and its parents,
 * without a git repository being required), then `--glob` overrides and `--type`.
 */
import type { Dirent } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { micromatch } from "../_kits/lazy/index";
import { FILE_TYPES } from "./file-types";
import { isAtomicTempName } from "../_kits/storage/index";
import { compileRule, matchRules, parseIgnoreFile, type IgnoreRule } from "./ignore-rules";

/** Ignore files of one folder, by precedence (ripgrep: .rgignore over .ignore over .gitignore). */
interface Frame {
  dir: string;
  kinds: [rgignore: IgnoreRule[], ignore: IgnoreRule[], gitignore: IgnoreRule[]];
  hasGit: boolean;
}

const IGNORE_FILES = [".rgignore", ".ignore", ".gitignore"] as const;
const GITIGNORE = 2;

async function loadFrame(dir: string, names: ReadonlySet<string>, onDisk = (p: string) => p): Promise<Frame> {
  const kinds = (await Promise.all(
    IGNORE_FILES.map((f) =>
      names.has(f)
        ? readFile(onDisk(join(dir, f)), "utf8").then(
            (text) => parseIgnoreFile(text, join(dir, f)),
            () => [],
          )
        : [],
    ),
  )) as Frame["kinds"];
  return { dir, kinds, hasGit: names.has(".git") };
}

/** The ignore verdict of the nearest folder with an opinion, per kind, kinds by precedence. */
function ignoreVerdict(frames: readonly Frame[], path: string, isDir: boolean): "ignore" | "whitelist" | undefined {
  for (let kind = 0; kind < IGNORE_FILES.length; kind++) {
    for (let i = frames.length - 1; i >= 0; i--) {
      const frame = frames[i]!;
      const rules = frame.kinds[kind]!;
      if (rules.length > 0) {
        const verdict = matchRules(rules, toPosix(relative(frame.dir, path)), isDir);
        if (verdict) return verdict;
      }
      // .gitignore files above the repository root do not apply.
      if (kind === GITIGNORE && frame.hasGit) break;
    }
  }
  return undefined;
}

/** A native path with "/" separators. */
export function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

/** `--glob` overrides: a glob includes, `!glob` excludes; with any including glob, other files are out. */
class Overrides {
  readonly #rules: IgnoreRule[];
  readonly #hasInclude: boolean;
  constructor(globs: readonly string[]) {
    this.#rules = globs.flatMap((g) => compileRule(g, true) ?? []);
    this.#hasInclude = this.#rules.some((r) => !r.negated);
  }
  verdict(relativePath: string, isDir: boolean): "ignore" | "whitelist" | undefined {
    const m = matchRules(this.#rules, relativePath, isDir);
    // In an override a plain glob selects and a `!glob` excludes: the reverse of an ignore file.
    if (m === "ignore") return "whitelist";
    if (m === "whitelist") return "ignore";
    return this.#hasInclude && !isDir ? "ignore" : undefined;
  }
}

/** Options of the walk. */
export interface WalkOptions {
  glob?: string;
  type?: string;
  signal?: AbortSignal;
  /** A path that leads to `root` without resolving its name (a held folder): the walk reads through it. */
  through?: string;
}

/** Where a path under `root` is read: through `through` when given (the paths returned stay under `root`). */
export function onDiskUnder(root: string, through: string | undefined): (path: string) => string {
  return through === undefined ? (p) => p : (p) => (p === root ? through : through + p.slice(root.length));
}

/** Every file under `root` that ripgrep would search. */
export async function walkFiles(root: string, options: WalkOptions): Promise<string[]> {
  const overrides = new Overrides(options.glob ? ["!.git", options.glob] : ["!.git"]);
  const typeGlobs = options.type ? FILE_TYPES[options.type] : undefined;
  const typeTests = typeGlobs?.map((g) => micromatch().matcher(g, { dot: true }));
  const isType = typeTests ? (name: string) => typeTests.some((test) => test(name)) : undefined;
  const files: string[] = [];

  const selected = (frames: readonly Frame[], path: string, name: string, isDir: boolean): boolean => {
    const o = overrides.verdict(toPosix(relative(root, path)), isDir);
    if (o) return o === "whitelist";
    if (ignoreVerdict(frames, path, isDir) === "ignore") return false;
    return isDir || !isType || isType(name);
  };

  const onDisk = onDiskUnder(root, options.through);
  const visit = async (dir: string, frames: Frame[]): Promise<void> => {
    if (options.signal?.aborted) return;
    const entries: Dirent[] = await readdir(onDisk(dir), { withFileTypes: true }).catch(() => []);
    const here = [...frames, await loadFrame(dir, new Set(entries.map((e) => e.name)), onDisk)];
    const subdirs: string[] = [];
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (selected(here, path, entry.name, true)) subdirs.push(path);
      } else if (entry.isFile()) {
        if (!isAtomicTempName(entry.name) && selected(here, path, entry.name, false)) files.push(path);
      }
    }
    await Promise.all(subdirs.map((d) => visit(d, here)));
  };

  await visit(root, await parentFrames(root));
  return files;
}

/** Ignore files of the folders above `root`, outermost first (ripgrep reads them too). */
async function parentFrames(root: string): Promise<Frame[]> {
  const dirs: string[] = [];
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  return Promise.all(
    dirs.map(async (dir) => {
      const names = await readdir(dir).catch(() => [] as string[]);
      return loadFrame(dir, new Set(names));
    }),
  );
}
