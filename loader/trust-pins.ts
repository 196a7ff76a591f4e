/**
 * Trust pinned to contents: the one place that decides whether a project file may apply. Trusting
 * a folder records a sha256 digest of each of its files that can run code or change what the
 * agent may do; a file applies only while what would be read from it still hashes to a recorded
 * digest (direnv's model for `.envrc`). A new, changed or unreadable file is untrusted.
 */
import { createHash } from "node:crypto";
import { readdirSync, realpathSync, type Stats, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve, sep } from "node:path";
import {
  DATA_NAME,
  dataState,
  expansionTails,
  isScriptFile,
  MAX_SCRIPT_REFERENCES,
  absentState,
  scriptDataPremise,
  scriptReferences,
} from "./script-references";
import { readRegularBytesSync } from "./safe-read";

/** Largest file digested; a bigger one is untrusted (project files are a few kilobytes). */
export const MAX_PIN_FILE_BYTES = 4 * 1024 * 1024;
/** Bounds for a folder (agents, skills with scripts): files, total bytes, depth. Over any: untrusted. */
export const MAX_PIN_FOLDER_FILES = 512;
export const MAX_PIN_FOLDER_BYTES = 16 * 1024 * 1024;
export const MAX_PIN_FOLDER_DEPTH = 8;

const BRAND = Symbol.for("ubiquity.trustPins");

/** Why a project file does not apply: not recorded when the folder was trusted, different now, or not readable. */
export type PinProblem = "new" | "changed" | "unreadable";

/** The bytes of a regular file (symlinks followed: the content that will be read), or undefined. */
const regularBytes = (path: string): Buffer | undefined => readRegularBytesSync(path, MAX_PIN_FILE_BYTES);

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** A folder's digest: every file's path and content below it, in sorted order; undefined over the bounds. */
function folderDigest(root: string, scripts?: Set<string>): string | undefined {
  const lines = folderLines(root, new Set(), true, scripts);
  return lines ? `sha256:${sha256(`folder\n${lines.join("\n")}`)}` : undefined;
}

/**
 * What a folder's digest is made of: each entry below `root` but `skip` by path and kind, a
 * file's contents hashed (and, `withNamed`, the files its text names to run); undefined past the
 * bounds of a pinned folder or on an unreadable part.
 */
function folderLines(
  root: string,
  skip: ReadonlySet<string>,
  withNamed: boolean,
  scripts?: Set<string>,
): string[] | undefined {
  const lines: string[] = [];
  let files = 0;
  let bytes = 0;
  const walk = (dir: string, rel: string, depth: number): boolean => {
    if (depth > MAX_PIN_FOLDER_DEPTH) return false;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return false;
    }
    for (const name of names) {
      const path = join(dir, name);
      const relPath = rel ? `${rel}/${name}` : name;
      if (skip.has(path)) continue;
      let stats: Stats;
      try {
        stats = statSync(path); // followed: a linked file is read through its link
      } catch {
        lines.push(`${relPath}\0broken`);
        continue;
      }
      if (stats.isDirectory()) {
        lines.push(`${relPath}\0dir`);
        if (!walk(path, relPath, depth + 1)) return false;
      } else if (stats.isFile()) {
        files += 1;
        bytes += stats.size;
        if (files > MAX_PIN_FOLDER_FILES || bytes > MAX_PIN_FOLDER_BYTES) return false;
        const data = regularBytes(path);
        if (!data) return false;
        lines.push(`${relPath}\0file\0${sha256(data)}`);
        if (!withNamed) continue;
        // An agent's or skill's frontmatter runs hooks by name (`sh scripts/check.sh`): those files too (I7).
        const named = namedFiles(path, runnableText(path, data), scripts);
        if (named === undefined) return false;
        for (const n of named) lines.push(`${relPath}\0names\0${n}`);
      } else {
        lines.push(`${relPath}\0other`); // a FIFO or device is never opened
      }
    }
    return true;
  };
  return walk(root, "", 0) ? lines : undefined;
}

/**
 * The digest of what would be read from `path`: a file's bytes (through symlinks), a folder's files
 * (bounded), or — for package.json — only its `"ubiquity"` key, so a dependency bump keeps trust.
 * Undefined when it cannot be read or is over the bounds: fail closed.
 */
export function digestProjectPath(path: string, scripts?: Set<string>): string | undefined {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch {
    return undefined;
  }
  if (stats.isDirectory()) return folderDigest(path, scripts);
  const data = regularBytes(path);
  if (!data) return undefined;
  if (basename(path) === "package.json") {
    try {
      const json = JSON.parse(data.toString("utf8").replace(/^\uFEFF/, "")) as Record<string, unknown> | null;
      // Its `imports` map too, when it has one: a trusted config's `#x` goes through it.
      const imports = json?.imports === undefined ? "" : `\nimports\n${JSON.stringify(json.imports)}`;
      return `sha256:${sha256(`package.json#ubiquity\n${JSON.stringify(json?.ubiquity ?? null)}${imports}`)}`;
    } catch {
      return undefined;
    }
  }
  // A settings, MCP or Codex file runs commands by name (`sh hooks/check.sh`, `node srv.mjs`):
  // the files its words name are pinned with it, so a changed script keeps the whole file out,
  // as for a config's scripts (red team i, I7). A file naming none keeps its plain digest.
  const named = namedFiles(path, runnableText(path, data), scripts);
  if (named === undefined) return undefined;
  if (named.length === 0) return `sha256:${sha256(data)}`;
  return `sha256:${sha256(`${sha256(data)}\n${named.join("\n")}`)}`;
}

/**
 * The files (and folders) pinned with the file at `path` because its words name them, relative to
 * its project: what may have changed when its digest did though the file itself did not (a log a
 * plugin of a JSON config writes, named by one of its options). Empty for a file naming none.
 */
export function filesNamedBy(path: string): string[] {
  const data = regularBytes(path);
  if (!data || basename(path) === "package.json") return [];
  return (namedFiles(path, runnableText(path, data)) ?? []).map((entry) => entry.slice(0, entry.indexOf("\0")));
}

/** The key under which the trust store records a data file's state (beside the files' digests). */
export const dataPinKey = (path: string) => `data:${pinKey(path)}`;
/** The key under which the trust store records whether the paths a hook's script names that held nothing still did. */
const absentPinKey = (script: string) => `data:absent:${pinKey(script)}`;
/** What the trust store holds under `absentPinKey`: its values are digests, so a fixed one says "they held nothing". */
const ABSENT_RECORD = `sha256:${sha256("every path named held nothing\n")}`;
/** True for a trust store key recorded by `hookDataDigests`, not a file's approval. */
export const isDataPinKey = (key: string) => key.startsWith("data:");

/**
 * The data the scripts a project file names decide from (`scripts`, collected while its digest
 * was made: `digestProjectPath`), as trusted now: each file's or folder's state by `dataPinKey`. Recorded with the file's digest, it lets a hook's
 * approval count only while those inputs are what the user trusted (plugins/hooks/pins.ts); it
 * gates nothing else, so a changed data file asks no question at the start.
 */
export function hookDataDigests(path: string, scripts: ReadonlySet<string>): Record<string, string> {
  if (scripts.size === 0) return {};
  const own = dirname(resolve(path));
  const parts = own.split(sep);
  const at = parts.findLastIndex((part) => part === ".ubiquity" || part === ".claude" || part === ".codex");
  const root = at > 0 ? parts.slice(0, at).join(sep) || sep : own;
  const out: Record<string, string> = {};
  for (const script of scripts) {
    const premise = scriptDataPremise(script, root);
    if (premise.problem !== undefined) continue;
    for (const file of premise.files) {
      const state = dataState(file);
      if (state.startsWith("sha256:")) out[dataPinKey(file)] = state;
    }
    // That the paths it names that hold nothing held nothing then (red team v: `[ -f config/override ]`).
    if (absentState(premise.absent) === "absent") out[absentPinKey(script)] = ABSENT_RECORD;
  }
  return out;
}

/**
 * The part of a project file whose words may name a file it runs: all of a JSON or TOML file, a
 * Markdown file's frontmatter (an agent's or skill's `hooks`) and the shell lines of its body (a
 * skill's or command's `` !`sh tools/check.sh` ``, run when it loads: red team zu, ZU2), after
 * SHELL_LINES_MARK; nothing of anything else (a module config's scripts are pinned by the module scan).
 */
function runnableText(path: string, data: Buffer): string {
  if (/\.json$/i.test(path)) return data.toString("utf8").replace(SCHEMA_KEY, '$1"$$schema"$2""');
  if (/\.toml$/i.test(path)) return data.toString("utf8");
  if (!/\.md$/i.test(path)) return "";
  const text = data.toString("utf8");
  const head = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  const lines = [...text.slice(head?.[0].length ?? 0).matchAll(SHELL_LINE)].map((m) => m[1] ?? m[3]!);
  return `${head?.[1] ?? ""}${lines.length ? `${SHELL_LINES_MARK}${lines.join("\n")}` : ""}`;
}

/**
 * A Markdown file's shell lines as Claude Code runs them (plugins/_kits/sources' SHELL_LINE, which
 * the loader cannot import): a fenced block opened with ```` ```! ````, or `` !`command` `` at the
 * start of a line or after whitespace.
 */
const SHELL_LINE = /^```![ \t]*\r?\n([\s\S]*?)^```[ \t]*$|(^|\s)!`([^`\n]+)`/gm;
/** Between a Markdown file's frontmatter and its shell lines in `runnableText`. */
const SHELL_LINES_MARK = "\n\u0000shell lines\u0000\n";

/**
 * A `"$schema": "…"` member of a JSON file: its value is the schema an editor reads for
 * completion, never code, so the file it names (`./node_modules/ubiquity/schema/…`, as the docs
 * write it) is not pinned with the file: updating the package changed every such config's digest.
 * Only in a key's place (after `{` or `,`; inside a JSON string a quote is escaped), and a value
 * of any key so named is never run.
 */
const SCHEMA_KEY = /([{,]\s*)"\$schema"(\s*:\s*)"(?:[^"\\]|\\.)*"/g;

/** Most files one settings file's words may name before it is untrusted (fail closed). */
const MAX_NAMED_FILES = 64;

/**
 * `relative path\0digest` of each regular file inside the project that a word of `text` names
 * (relative to the project folder or the file's own; `$CLAUDE_PROJECT_DIR/` taken off), sorted;
 * undefined when one cannot be read or there are too many.
 */
function namedFiles(path: string, text: string, scripts?: Set<string>): string[] | undefined {
  if (text === "") return [];
  const own = dirname(resolve(path));
  // The project holding a `.ubiquity`, `.claude` or `.codex` folder the file is in (at any depth: agents/x.md).
  const parts = own.split(sep);
  const at = parts.findLastIndex((part) => part === ".ubiquity" || part === ".claude" || part === ".codex");
  const root = at > 0 ? parts.slice(0, at).join(sep) || sep : own;
  const realRoot = realFolder(root);
  const inside = (p: string) => p.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
  const found = new Map<string, string>();
  // Also as the shell reads the words (red team l): `"$CLAUDE_PROJECT_DIR"/scripts/x.sh` (Claude
  // Code's documented form) and `"${CLAUDE_PROJECT_DIR}/x.sh"` split into a variable and an
  // absolute path that names nothing, so the script was not pinned; quotes inside a word too.
  const read = text.replace(/["'\\]/g, "").replace(/\$\{?CLAUDE_PROJECT_DIR\}?\//g, "");
  // A log the text's commands write by a redirection or tee is no code they run or load (as for L5).
  const written = new Set<string>();
  for (const m of read.matchAll(WRITTEN))
    for (const target of [m[1] ?? m[2]!, ...expansionTails(m[1] ?? m[2]!)])
      for (const base of new Set([root, realRoot, own, realFolder(own)])) written.add(resolve(base, target));
  const words = [text, read].flatMap((t) => t.split(/[\s"'`=,;()[\]{}<>|&]+|\\[nrt]/));
  // The folders a command's words name or expand a pattern in (`cd hooks && sh guard.sh`, `sh
  // hooks/*.sh`, an MCP server's `cwd`): what runs there is named relative to them, or chosen from
  // their listing, which the words alone left unpinned (red team zu, ZU1).
  const commandFolders = namedCommandFolders(path, text, root, inside, written);
  if (commandFolders === undefined) return undefined;
  for (const raw of [...words, ...expansionTails(read)]) {
    const word = raw.replace(/^\$\{?CLAUDE_PROJECT_DIR\}?\//, "");
    if (word === "" || word.includes("://") || word.startsWith("$") || word.length > 4096) continue;
    for (const base of new Set([root, own, ...commandFolders.keys()])) {
      const candidate = resolve(base, word);
      if (written.has(candidate)) continue;
      let real: string;
      try {
        if (!statSync(candidate).isFile()) continue;
        real = realpathSync(candidate);
      } catch {
        continue;
      }
      if (!inside(real) || real === realpathSync(path) || found.has(real)) continue;
      if (found.size >= MAX_NAMED_FILES) return undefined;
      const bytes = regularBytes(real);
      if (!bytes) return undefined;
      found.set(real, `${real.slice(realRoot.length + 1)}\0${sha256(bytes)}`);
    }
  }
  // What a named script loads by a name its text spells, wherever it is in the project (the
  // script at the project's top beside what it sources; `source ../lib/x.sh`): pinned with it.
  // Every file named (but those the text writes), not only those with a script's name or mode:
  // `sh guard` runs a file with neither (red team o, O3).
  for (const real of [...found.keys()].filter((file) => !DATA_NAME.test(file) || isScriptFile(file))) {
    const loads = scriptReferences(real, realRoot);
    if (loads === undefined) return undefined;
    scripts?.add(real);
    for (const file of loads) {
      if (found.has(file)) continue;
      if (found.size >= MAX_NAMED_FILES + MAX_SCRIPT_REFERENCES) return undefined;
      const bytes = regularBytes(file);
      if (!bytes) return undefined;
      found.set(file, `${file.slice(realRoot.length + 1)}\0${sha256(bytes)}`);
    }
  }
  // What a named script loads by a relative name (`import "./lib.mjs"`, `source ./lib.sh`,
  // `require("../x")` from a bin/ folder) is in its folder: below the project's top, that folder's
  // files are pinned with it, as a hook's are during a run (red team l, L5). A server's module
  // changed after trust ran at the next start, outside the sandbox or with an MCP server's
  // network (red team m, M4). A folder over the bounds leaves the file untrusted (fail closed).
  const folders = new Set([...found.keys()].map((real) => dirname(real)).filter((dir) => dir !== realRoot));
  for (const dir of folders) {
    const files = folderFiles(dir, written);
    if (files === undefined) return undefined;
    found.set(`${dir}${sep}`, `${dir.slice(realRoot.length + 1)}/\0${files}`);
  }
  const listings = [...commandFolders].map(([dir, listing]) => `${dir.slice(realRoot.length + 1)}/*\0${listing}`);
  return [...found.values(), ...listings].sort();
}

/** Most folders one file's commands may name (`namedCommandFolders`); more keeps the file out. */
const MAX_COMMAND_FOLDERS = 16;
/** Most entries of one named folder's listing; more keeps the file out. */
const MAX_LISTING_ENTRIES = 1024;

/**
 * The folders inside the project (never its top) that the commands of the file at `path` name
 * (`cd hooks`, `env -C hooks`, `find hooks`, an MCP server's `"cwd": "srv"`), the folder a
 * pattern's words expand in (`sh hooks/gu?rd.sh`), and the folder a computed name starts in (`sh
 * hooks/$(printf guard).sh`), each with a digest of its listing (each entry's name and a file's
 * contents): a script chosen there by a name the words do not spell is then pinned by the folder.
 * Only the commands' words count (a hook's `command`, a server's `command`, `args` and `cwd`), not
 * a rule's `Edit(src/**)`. A log the commands write there is left out, as for a script's folder.
 * Undefined when a listing cannot be read or is over the bounds.
 */
function namedCommandFolders(
  path: string,
  text: string,
  root: string,
  inside: (real: string) => boolean,
  written: ReadonlySet<string>,
): Map<string, string> | undefined {
  const own = dirname(resolve(path));
  const out = new Map<string, string>();
  const add = (folder: string, deep: boolean): boolean => {
    if (folder === "" || folder.includes("$")) return true;
    for (const base of new Set([root, own])) {
      let real: string;
      try {
        if (!statSync(resolve(base, folder)).isDirectory()) continue;
        real = realpathSync(resolve(base, folder));
      } catch {
        continue;
      }
      if (!inside(real) || out.has(real)) continue;
      if (out.size >= MAX_COMMAND_FOLDERS) return false;
      const listing = deep ? folderFiles(real, written) : listingDigest(real, written);
      if (listing === undefined) return false;
      out.set(real, listing);
    }
    return true;
  };
  const { commands, environment } = commandTexts(path, text);
  // A folder a variable of their environment names is a load path (PYTHONPATH=lib, NODE_PATH,
  // RUBYLIB, CLASSPATH, LD_LIBRARY_PATH): code is found anywhere below it (red team zu, ZU3).
  for (const value of environment)
    for (const folder of value.replace(/\$\{?CLAUDE_PROJECT_DIR\}?/g, ".").split(/[:;\s]+/))
      if (folder !== "." && !add(folder, true)) return undefined;
  for (const command of commands) {
    const read = command.replace(/\$\{?CLAUDE_PROJECT_DIR\}?/g, ".").replace(/["'\\]/g, "");
    const words = read.split(/[\s=,;()<>|&`]+/);
    // A walk below the folder (`find hooks -exec sh {} \;`) reaches what its listing does not show.
    const walks = words.some((word) => /^(?:\S*\/)?(?:find|fd|fdfind)$/.test(word));
    for (const raw of words) {
      if (raw === "" || raw.includes("://") || raw.length > 4096) continue;
      const computed = raw.search(/[*?[{$]/);
      const stem = computed === -1 ? raw : raw.slice(0, computed);
      // A pattern with a folder part after its first wildcard (`hooks/*/run.sh`, `hooks/**`) expands below the folder.
      const deep = walks || (computed !== -1 && raw.slice(computed).includes("/"));
      const folders =
        computed === -1 ? [raw, dirname(raw)] : [stem.includes("/") ? stem.slice(0, stem.lastIndexOf("/")) : ""];
      for (const folder of folders) if (folder !== "." && !add(folder, deep)) return undefined;
    }
  }
  return out;
}

/**
 * The words of the commands a project file runs: each `command`, `args` and `cwd` value in it
 * (parsed as JSON, TOML or a Markdown file's YAML frontmatter; all of `text` when it cannot be
 * parsed), and the values of each `env` table (a server's, a settings file's).
 */
function commandTexts(path: string, runnable: string): { commands: string[]; environment: string[] } {
  // A Markdown file's shell lines are commands whole; its frontmatter is read as YAML.
  const [text, lines] = runnable.split(SHELL_LINES_MARK) as [string, string | undefined];
  const out: string[] = lines === undefined ? [] : lines.split("\n");
  const environment: string[] = [];
  let data: unknown;
  try {
    const require = createRequire(import.meta.url);
    data = /\.json$/i.test(path)
      ? JSON.parse(text.replace(/^\uFEFF/, ""))
      : /\.toml$/i.test(path)
        ? (require("smol-toml") as typeof import("smol-toml")).parse(text)
        : (require("yaml") as typeof import("yaml")).parse(text);
  } catch {
    return { commands: [...out, text], environment };
  }
  const walk = (value: unknown, depth: number): void => {
    if (depth > 32 || typeof value !== "object" || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      if (key === "command" || key === "args" || key === "cwd")
        for (const item of Array.isArray(child) ? child : [child]) if (typeof item === "string") out.push(item);
      if (key === "env" && typeof child === "object" && child !== null)
        for (const item of Object.values(child)) if (typeof item === "string") environment.push(item);
      walk(child, depth + 1);
    }
  };
  walk(data, 0);
  return { commands: out, environment };
}

/** A digest of the folder `dir`'s own entries but `skip` (what the commands write): each name, and a file's contents (links followed); undefined when unreadable or over the bounds. */
function listingDigest(dir: string, skip: ReadonlySet<string>): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return undefined;
  }
  if (names.length > MAX_LISTING_ENTRIES) return undefined;
  const lines: string[] = [];
  for (const name of names) {
    const entry = join(dir, name);
    if (skip.has(entry)) continue;
    let stats: Stats;
    try {
      stats = statSync(entry);
    } catch {
      lines.push(`${name}\0broken`);
      continue;
    }
    if (stats.isDirectory()) lines.push(`${name}\0dir`);
    else if (!stats.isFile()) lines.push(`${name}\0other`);
    else {
      const data = regularBytes(entry);
      if (!data) return undefined;
      lines.push(`${name}\0file\0${sha256(data)}`);
    }
  }
  return sha256(lines.join("\n"));
}

// What a shell command writes by name: a redirection's target, tee's files (in a JSON or TOML file's text).
const WRITTEN = /(?:\d*>>?|&>>?|>\|)\s*([^\s;|&<>(){}[\],]+)|\btee\s+(?:-\S+\s+)*([^\s;|&<>(){}[\],]+)/g;

/** A digest of every file below `dir` but `skip` (names and contents, links followed, bounded as a pinned folder is), or undefined. */
function folderFiles(dir: string, skip: ReadonlySet<string>): string | undefined {
  const lines = folderLines(dir, skip, false);
  return lines ? sha256(lines.join("\n")) : undefined;
}

/** The real path of `dir` (symlinks resolved), or its absolute path when it does not exist. */
export function realFolder(dir: string): string {
  const abs = resolve(dir);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/** Where a digest is recorded: the file's name in its folder's real path (a linked folder is one place). */
export function pinKey(path: string): string {
  const abs = resolve(path);
  return join(realFolder(dirname(abs)), basename(abs));
}

/** True for the user's own files, which trust never gates: ~/.ubiquity/…, and config or memory files directly in home or ~/.config. */
export function isUsersOwn(path: string, home: string): boolean {
  const homeDir = resolve(home);
  const own = join(homeDir, ".ubiquity");
  const parent = dirname(resolve(path));
  return (
    path === own || resolve(path).startsWith(own + sep) || parent === homeDir || parent === join(homeDir, ".config")
  );
}

/**
 * The digests a user approved for the folders a run may read from (the union of the trusted
 * folders covering it). Passed as the `trust` option, it lets each project file apply only while
 * it is unchanged.
 */
export class TrustPins {
  readonly [BRAND] = true;
  /** Recorded digest by `pinKey`. */
  readonly digests: ReadonlyMap<string, string>;
  /** The user's home: files of their own are never gated. */
  readonly home: string;
  /** The trusted folders (real paths; not home or above) the digests were recorded in: what lies below one is a project's. */
  readonly roots: readonly string[];

  constructor(
    digests: ReadonlyMap<string, string> | Record<string, string>,
    home: string,
    roots: readonly string[] = [],
  ) {
    this.digests = digests instanceof Map ? digests : new Map(Object.entries(digests));
    this.home = home;
    // A trusted home folder (or one above it) is no project: the user's own things (~/.claude's
    // plugins) live there, and trusting it says nothing of them.
    const realHome = realFolder(home);
    this.roots = roots
      .map((r) => realFolder(r))
      .filter((r) => r !== realHome && !realHome.startsWith(r.endsWith(sep) ? r : r + sep));
  }

  /** True when `path` (symlinks resolved) lies in one of the trusted folders: a project's file, not the user's. */
  covers(path: string): boolean {
    const real = realFolder(path);
    return this.roots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : root + sep));
  }

  /** True for a `TrustPins` from any copy of this module (the bundle and the sources). */
  static is(value: unknown): value is TrustPins {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  /** What the data file or folder at `path` held when the folder was trusted (`hookDataDigests`), or undefined when not recorded. */
  trustedData(path: string): string | undefined {
    return this.digests.get(dataPinKey(path));
  }

  /** Whether the paths the script at `path` names that hold nothing held nothing when the folder was trusted ("absent"), or undefined when not recorded. */
  trustedAbsent(path: string): string | undefined {
    const recorded = this.digests.get(absentPinKey(path));
    return recorded === undefined ? undefined : recorded === ABSENT_RECORD ? "absent" : "unreadable";
  }

  /** Why `path` may not apply now, or undefined when it may (its current digest is the one recorded). */
  problem(path: string, digest: string | undefined = digestProjectPath(path)): PinProblem | undefined {
    if (isUsersOwn(path, this.home)) return undefined;
    const recorded = this.digests.get(pinKey(path));
    if (recorded === undefined) return "new";
    if (digest === undefined) return "unreadable";
    return digest === recorded ? undefined : "changed";
  }
}

/** What the `trust` option holds: `true` (all of a folder's files apply), `false` (none), or the approved digests. */
export type ProjectTrust = boolean | TrustPins;

/**
 * Whether a project file at `path` may apply under `trust`. Unset means the caller (an SDK user
 * asking for a project source) has decided: it applies. A path that does not exist is untrusted
 * under pins (nothing is there to apply).
 */
export function isProjectFileTrusted(trust: ProjectTrust | undefined, path: string): boolean {
  if (trust === undefined || trust === true) return true;
  if (trust === false) return false;
  return TrustPins.is(trust) && trust.problem(path) === undefined;
}
