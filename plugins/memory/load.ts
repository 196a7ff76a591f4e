/**
 * Reading memory files and their `@path` includes. An included file follows its includer.
 * Three limits keep an include from reading arbitrary files into the prompt:
 * - scope: a project or local file includes only from under the cwd; only a user file may
 *   reach the home folder (a checked-in file must not read a contributor's keys); a file named
 *   in `memory` includes from under the cwd or its own folder;
 * - type: text extensions only;
 * - depth: five levels, each file loaded once (a cycle ends).
 * A file over 40,000 characters is cut with a marker naming it.
 */
import { readFile, realpath } from "node:fs/promises";
import { dirname, extname, isAbsolute, join, resolve } from "node:path";
import { isInside } from "../_shared/paths";
import { findIncludes } from "./includes";
import { memoryCandidates, type MemorySource } from "./sources";

/** Include depth: a top-level file is level 0, its includes level 1, down to this. */
export const MAX_INCLUDE_DEPTH = 5;
/** Longest memory file, in characters; the rest is cut with a marker. */
export const MAX_MEMORY_CHARS = 40_000;
/** Extensions an include may name. */
export const TEXT_EXTENSIONS: ReadonlySet<string> = new Set([
  ".md", ".mdx", ".markdown", ".txt", ".text", ".rst", ".adoc", ".asciidoc", ".org",
  ".json", ".jsonc", ".json5", ".toml", ".yaml", ".yml", ".ini", ".cfg", ".conf", ".csv", ".tsv", ".xml",
]);

/** One loaded memory file. */
export interface MemoryFile {
  /** The path as found (symlinks not followed). */
  path: string;
  source: MemorySource;
  /** The file whose `@path` named this one. */
  includedBy?: string;
  content: string;
  /** True when the file was over the limit and cut. */
  cut: boolean;
}

/** Where a chain of includes may reach, by the source of its top-level file. */
interface Scope {
  allowed: string[];
  rule: string;
}

async function real(path: string): Promise<string | undefined> {
  return realpath(path).catch(() => undefined);
}

/** Cut `content` at the limit, with a marker naming the file. */
export function cutContent(path: string, content: string): { content: string; cut: boolean } {
  if (content.length <= MAX_MEMORY_CHARS) return { content, cut: false };
  const marker = `[… ${path} was cut here: it has ${content.length.toLocaleString("en-US")} characters and only the first ${MAX_MEMORY_CHARS.toLocaleString("en-US")} are included]`;
  return { content: `${content.slice(0, MAX_MEMORY_CHARS)}\n\n${marker}`, cut: true };
}

/** Load the memory files the options ask for, weakest first, includes after their includers. */
export async function loadMemory(
  options: { memorySources?: readonly string[]; memory?: readonly string[] },
  place: { cwd: string; home: string },
  report: (message: string) => void,
  debug: (message: string) => void = () => {},
): Promise<MemoryFile[]> {
  const cwd = (await real(place.cwd)) ?? resolve(place.cwd);
  const home = (await real(place.home)) ?? resolve(place.home);
  const seen = new Set<string>();
  const files: MemoryFile[] = [];

  const scopeOf = (source: MemorySource, topReal: string): Scope => {
    if (source === "user") return { allowed: [home, cwd], rule: "a user file may include from the home folder or the working directory" };
    if (source === "memory") return { allowed: [cwd, dirname(topReal)], rule: "a file named in memory may include from the working directory or its own folder" };
    return { allowed: [cwd], rule: `a ${source} file may include only from under the working directory` };
  };

  const visit = async (path: string, source: MemorySource, depth: number, scope: Scope | undefined, includedBy: string | undefined) => {
    const realPath = await real(path);
    if (!realPath || seen.has(realPath)) return; // reached before: it keeps its first position
    const own = scope ?? scopeOf(source, realPath);
    let text: string;
    try {
      text = (await readFile(realPath, "utf8")).replace(/^\uFEFF/, "");
    } catch (error) {
      report(`skipped the memory file ${path}: it could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      return;
    }
    seen.add(realPath);
    const { content, cut } = cutContent(path, text.trimEnd());
    if (content.trim()) files.push({ path, source, content, cut, ...(includedBy ? { includedBy } : {}) });
    for (const ref of findIncludes(content)) {
      const target = ref === "~" || ref.startsWith("~/") ? join(place.home, ref.slice(2)) : isAbsolute(ref) ? ref : resolve(dirname(path), ref);
      if (!TEXT_EXTENSIONS.has(extname(target).toLowerCase())) {
        debug(`@${ref} in ${path} is not an include: ${extname(target) || "no extension"} is not a text extension`);
        continue;
      }
      const targetReal = await real(target);
      if (!targetReal) {
        debug(`@${ref} in ${path} names no file (${target})`);
        continue;
      }
      if (seen.has(targetReal)) continue;
      if (!own.allowed.some((root) => isInside(root, targetReal))) {
        report(`did not include @${ref} from ${path}: ${own.rule}`);
        continue;
      }
      if (depth + 1 > MAX_INCLUDE_DEPTH) {
        report(`did not include @${ref} from ${path}: includes go at most ${MAX_INCLUDE_DEPTH} levels deep`);
        continue;
      }
      await visit(target, source, depth + 1, own, path);
    }
  };

  for (const candidate of memoryCandidates(options, place)) {
    if (!(await real(candidate.path))) {
      if (candidate.written !== undefined) report(`memory: ${candidate.written} (${candidate.path}) does not exist; fix the path or remove it`);
      continue;
    }
    await visit(candidate.path, candidate.source, 0, undefined, undefined);
  }
  return files;
}
