/**
 * Reading memory files and their `@path` includes. An included file follows its includer.
 * Every path is resolved through symlinks first and the limits apply to where it really is,
 * so a checked-in `UBIQUITY.md` that links to `~/.ssh/id_rsa` reads nothing:
 * - scope: a project or local file must resolve to inside the folder it was found in, a user
 *   file to inside the home folder; a project or local file includes only from under the cwd;
 *   only a user file may reach the home folder (a checked-in file must not read a
 *   contributor's keys); a file named in `memory` includes from under the cwd or its own folder;
 * - type: only regular files (never a FIFO, socket or device) holding text (no NUL byte); an
 *   include must name a text extension, and a symlink must lead to one;
 * - depth: five levels, each file loaded once (a cycle ends).
 * A file over 40,000 characters is cut with a marker naming it; no more than the cap is read.
 */
import { realpath } from "node:fs/promises";
import { basename, dirname, extname, resolve } from "node:path";
import { absolutePath } from "../../src/index";
import { isInside } from "../_kits/paths/index";
import { findIncludes } from "./includes";
import { splitFrontmatter } from "../_kits/sources/index";
import { readMemoryText } from "./read";
import { memoryCandidates, type MemoryCandidate, type MemorySource } from "./sources";

/** Include depth: a top-level file is level 0, its includes level 1, down to this. */
export const MAX_INCLUDE_DEPTH = 5;
/** Longest memory file, in characters; the rest is cut with a marker. */
export const MAX_MEMORY_CHARS = 40_000;
/**
 * Codex's `project_doc_max_bytes` default: the project's AGENTS.md files, root first, are read
 * until together they reach this many bytes, and the one that crosses it is cut there.
 */
export const CODEX_PROJECT_DOC_BYTES = 32 * 1024;
/** Extensions an include may name. */
export const TEXT_EXTENSIONS: ReadonlySet<string> = new Set([
  ".md",
  ".mdx",
  ".markdown",
  ".txt",
  ".text",
  ".rst",
  ".adoc",
  ".asciidoc",
  ".org",
  ".json",
  ".jsonc",
  ".json5",
  ".toml",
  ".yaml",
  ".yml",
  ".ini",
  ".cfg",
  ".conf",
  ".csv",
  ".tsv",
  ".xml",
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
  /**
   * A Claude Code rule's `paths` (and its includes'): the file is not in the system prompt but
   * joins the conversation once a tool works on a file they match, as Claude Code adds it.
   */
  scope?: RuleScope;
}

/** Where a path-scoped rule applies: its globs, relative to `base` (the project folder it was found in, or the cwd for the user's). */
export interface RuleScope {
  globs: string[];
  base: string;
}

/** Where a chain of includes may reach, by the source of its top-level file. */
interface Scope {
  allowed: string[];
  rule: string;
}

async function real(path: string): Promise<string | undefined> {
  return realpath(path).catch(() => undefined);
}

// The most bytes MAX_MEMORY_CHARS characters take in UTF-8, and one character more.
const MAX_MEMORY_BYTES = MAX_MEMORY_CHARS * 4 + 4;

/**
 * Cut `content` at the limit, with a marker naming the file and its size in bytes (`size`,
 * by default the content's own). `truncated`: only the start of the file was read.
 */
export function cutContent(
  path: string,
  content: string,
  size = Buffer.byteLength(content),
  truncated = false,
): { content: string; cut: boolean } {
  if (content.length <= MAX_MEMORY_CHARS && !truncated) return { content, cut: false };
  const marker = `[… ${path} was cut here: it is ${size.toLocaleString("en-US")} bytes long and only the first ${MAX_MEMORY_CHARS.toLocaleString("en-US")} characters are included]`;
  return { content: `${content.slice(0, MAX_MEMORY_CHARS)}\n\n${marker}`, cut: true };
}

/** The first `left` bytes of a Codex project file (whole characters), with a marker saying why the rest is not. */
function cutBytes(path: string, text: string, left: number, budget: number): string {
  const kept = Buffer.from(text)
    .subarray(0, left)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  const marker = `[… ${path} was cut here, as Codex cuts it: the project's AGENTS.md files are read up to ${budget.toLocaleString("en-US")} bytes in all (Codex's project_doc_max_bytes)]`;
  return `${kept.trimEnd()}\n\n${marker}`;
}

/** Why a symlink's target is refused by its type, if it is: it must keep a text extension. */
function linkedAway(path: string, realPath: string): string | undefined {
  if (basename(path) === basename(realPath) || TEXT_EXTENSIONS.has(extname(realPath).toLowerCase())) return undefined;
  return `it links to ${realPath}, which has no text extension`;
}

/** Load the memory files the options ask for, weakest first, includes after their includers. */
export async function loadMemory(
  options: {
    memorySources?: readonly string[];
    memory?: readonly string[];
    compat?: readonly string[];
    compatSources?: readonly string[];
    /** Codex's `project_doc_max_bytes` from its config.toml [CODEX_PROJECT_DOC_BYTES]. */
    codexProjectDocBytes?: number;
  },
  place: { cwd: string; home: string },
  report: (message: string) => void,
  debug: (message: string) => void = () => {},
  admit: (candidate: MemoryCandidate) => boolean = () => true,
  admitInclude: (path: string, source: MemorySource) => boolean = () => true,
): Promise<MemoryFile[]> {
  const cwd = (await real(place.cwd)) ?? resolve(place.cwd);
  const home = (await real(place.home)) ?? resolve(place.home);
  const seen = new Set<string>();
  const files: MemoryFile[] = [];
  const codexBudget = options.codexProjectDocBytes ?? CODEX_PROJECT_DOC_BYTES;
  let codexLeft = codexBudget;

  const visit = async (
    path: string,
    source: MemorySource,
    depth: number,
    scope: Scope | undefined,
    includedBy: string | undefined,
    kind: Pick<MemoryCandidate, "codexProjectDoc" | "noIncludes" | "rule" | "folder"> = {},
    inherited?: RuleScope,
  ) => {
    const realPath = await real(path);
    if (!realPath || seen.has(realPath)) return; // reached before: it keeps its first position
    const own = scope ?? scopeOf(source, realPath, home, cwd);
    const read = await readMemoryText(realPath, MAX_MEMORY_BYTES);
    if (!read.ok) {
      report(`skipped the memory file ${path}${realPath === path ? "" : ` (${realPath})`}: ${read.problem}`);
      return;
    }
    seen.add(realPath);
    const text = (kind.rule ? ruleText(read.text) : read.text).trimEnd();
    let { content, cut } = cutContent(path, text, read.size, read.truncated);
    if (kind.codexProjectDoc && read.text.trim()) {
      if (codexLeft <= 0) {
        debug(
          `${path}: not read, as Codex would not: the AGENTS.md files before it reach ${codexBudget} bytes (project_doc_max_bytes)`,
        );
        return;
      }
      const bytes = Buffer.byteLength(read.text);
      if (bytes > codexLeft)
        ({ content, cut } = { content: cutBytes(path, read.text, codexLeft, codexBudget), cut: true });
      codexLeft -= bytes;
    }
    const ruleScope = kind.rule ? (ruleScopeOf(read.text, kind.folder, place) ?? inherited) : inherited;
    const extra = { ...(includedBy ? { includedBy } : {}), ...(ruleScope ? { scope: ruleScope } : {}) };
    if (content.trim()) files.push({ path, source, content, cut, ...extra });
    for (const ref of kind.noIncludes ? [] : findIncludes(content)) {
      const target = absolutePath(dirname(path), ref, place.home);
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
      const refused = includeRefusal(target, targetReal, own, depth);
      if (refused) {
        report(`did not include @${ref} from ${path}: ${refused}${homeIncludeFix(ref, source, targetReal, home)}`);
        continue;
      }
      if (!admitInclude(target, source)) {
        report(
          `did not include @${ref} from ${path}: ${target} is new or changed since its folder was trusted (review it, then approve it with \`ubiquity trust .\`)`,
        );
        continue;
      }
      await visit(target, source, depth + 1, own, path, {}, ruleScope);
    }
  };

  for (const candidate of memoryCandidates(options, place)) {
    if (!admit(candidate)) continue;
    const realPath = await real(candidate.path);
    if (!realPath) {
      if (candidate.written !== undefined)
        report(`memory: ${candidate.written} (${candidate.path}) does not exist; fix the path or remove it`);
      continue;
    }
    const refused = await outsideItsFolder(candidate.path, realPath, candidate.folder, candidate.source);
    if (refused) {
      report(`refused the memory file ${candidate.path}: ${refused}`);
      continue;
    }
    await visit(candidate.path, candidate.source, 0, undefined, undefined, candidate);
  }
  return files;
}

/**
 * A Claude Code rule as the prompt shows it: without its frontmatter, and, when its `paths` scope
 * it, with a line naming them (such a rule joins the conversation once a tool works on a matching
 * file, as in Claude Code: see the memory plugin's `scopedRules`).
 */
export function ruleText(text: string): string {
  const split = splitFrontmatter(text);
  if (!split.ok) return text;
  const paths = rulePaths(text);
  const body = split.body.replace(/^\s*\n/, "");
  return paths.length
    ? `(This rule applies when working with files matching ${paths.map((p) => `\`${p}\``).join(", ")}.)\n\n${body}`
    : body;
}

/** Where a rule applies when its frontmatter sets `paths`: relative to its project folder (the cwd for the user's). */
function ruleScopeOf(
  text: string,
  folder: string | undefined,
  place: { cwd: string; home: string },
): RuleScope | undefined {
  const globs = rulePaths(text);
  if (!globs.length) return undefined;
  return { globs, base: folder === undefined || folder === place.home ? place.cwd : folder };
}

/**
 * A rule's `paths`: a YAML list, or one string of globs separated by commas (outside braces:
 * `**\/*.{ts,tsx}` is one glob), as rules write them.
 */
export function rulePaths(text: string): string[] {
  const split = splitFrontmatter(text);
  if (!split.ok) return [];
  const written = split.data.paths;
  const list = Array.isArray(written) ? written.map(String) : typeof written === "string" ? splitGlobs(written) : [];
  return list.map((p) => p.trim()).filter(Boolean);
}

/** `text` split at the commas outside braces. */
function splitGlobs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of text) {
    if (c === "{") depth++;
    if (c === "}") depth = Math.max(0, depth - 1);
    if (c === "," && depth === 0) {
      out.push(current);
      current = "";
    } else current += c;
  }
  out.push(current);
  return out;
}

/**
 * What to do instead of a project file's `@~/…` include, Claude Code's documented way to add one's
 * own instructions to a project (`- @~/.claude/my-project-instructions.md`): here a file that can
 * be checked in never reads the home folder (it could name any text file there).
 */
function homeIncludeFix(ref: string, source: MemorySource, targetReal: string, home: string): string {
  // Only for an import written as one (`@~/….md`), never for a link that leads home.
  const written = ref.startsWith("~/") && extname(targetReal).toLowerCase() === ".md";
  if (!written || (source !== "project" && source !== "local") || !isInside(home, targetReal)) return "";
  return `; Claude Code reads such an import, ubiquity does not let a project's file reach your home folder: name ${targetReal} in the config's memory option (memory: ["${targetReal}"]) or put its text in CLAUDE.local.md`;
}

/** Where a memory file of `source` (at `topReal`) may include from. */
function scopeOf(source: MemorySource, topReal: string, home: string, cwd: string): Scope {
  if (source === "user")
    return { allowed: [home, cwd], rule: "a user file may include from the home folder or the working directory" };
  if (source === "memory")
    return {
      allowed: [cwd, dirname(topReal)],
      rule: "a file named in memory may include from the working directory or its own folder",
    };
  return { allowed: [cwd], rule: `a ${source} file may include only from under the working directory` };
}

/** Why an include of `target` (resolving to `targetReal`) at `depth` is refused, if it is. */
function includeRefusal(target: string, targetReal: string, own: Scope, depth: number): string | undefined {
  if (!own.allowed.some((root) => isInside(root, targetReal)))
    return `${targetReal === target ? "" : `it resolves to ${targetReal}, and `}${own.rule}`;
  const away = linkedAway(target, targetReal);
  if (away) return away;
  if (depth + 1 > MAX_INCLUDE_DEPTH) return `includes go at most ${MAX_INCLUDE_DEPTH} levels deep`;
  return undefined;
}

/** Why a top-level memory file that resolves elsewhere is refused, if it is. */
async function outsideItsFolder(
  path: string,
  realPath: string,
  folder: string | undefined,
  source: MemorySource,
): Promise<string | undefined> {
  if (realPath === path) return undefined;
  if (folder !== undefined) {
    const realFolder = (await real(folder)) ?? resolve(folder);
    if (!isInside(realFolder, realPath)) {
      const whose =
        source === "user"
          ? "a user memory file must stay inside the home folder"
          : `a ${source} memory file must stay inside the folder it was found in (${realFolder})`;
      return `it resolves to ${realPath}, and ${whose}`;
    }
  }
  return linkedAway(path, realPath);
}
