/**
 * The files a script loads by a name its own text spells: `. ./lib.sh`, `source lib/common.sh`,
 * `import "./util.mjs"`, `require("../shared/x")`, `from helpers import check`, `python -m
 * tools.guard`. A hook's or MCP server's script is pinned (trust, and during a run), and so is the
 * folder it is in when that is not the project's top; what it loads from the top or from another
 * folder was not, and changed there it ran at the next start (red teams l and m left it).
 *
 * Read the way the project's settings are read for the files they name: every word of the text is
 * tried as a path, relative to the script's folder and to the project's top, as written, with a
 * script's extension added, and dotted (`tools.guard` → `tools/guard.py`); a word naming a regular
 * file inside the project names it when that file is code (a script's extension, or an execute
 * bit: not the log a hook appends to or the data it reads), and what that file names is followed
 * too. Nothing is parsed, so nothing a language allows is missed for not being understood; a word
 * that names a file it does not load only pins one more file. Over the bounds the answer is
 * undefined: the caller fails closed.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { importsMapTargets } from "./imports-map";
import { readRegularFileSync } from "./safe-read";

/** Most files one script may lead to (it and what those load); more is undefined. */
export const MAX_SCRIPT_REFERENCES = 64;
/** How far references are followed from the script. */
const MAX_DEPTH = 4;
/** The start of a file read for names (a script is a few kilobytes). */
const MAX_SCAN_BYTES = 512 * 1024;
/** What a loader adds to a name that lacks an extension (`require("./x")`, `source lib`, `import helpers`). */
const EXTENSIONS = [
  "",
  ".js",
  ".mjs",
  ".cjs",
  ".ts",
  ".mts",
  ".cts",
  ".jsx",
  ".tsx",
  ".py",
  ".sh",
  ".bash",
  ".rb",
  ".pl",
  ".pm",
];
const MODULE_PATH = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$/;
/** A script's name, by its extension. */
export const SCRIPT_NAME =
  /\.(?:sh|bash|zsh|fish|ksh|py|pyw|js|mjs|cjs|ts|mts|cts|jsx|tsx|rb|pl|pm|php|lua|ps1|cmd|bat)$/i;

/**
 * The real paths of the files inside `root` that the script at `path` names, and those they name
 * (not `path` itself), sorted; undefined when there are more than MAX_SCRIPT_REFERENCES.
 */
export function scriptReferences(path: string, root: string): string[] | undefined {
  const realRoot = realOr(root);
  const inside = (p: string) => p.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
  const start = realOr(path);
  const listings = new Map<string, ReadonlySet<string>>();
  const listed = (dir: string) => {
    let names = listings.get(dir);
    if (!names) {
      try {
        names = new Set(readdirSync(dir));
      } catch {
        names = new Set();
      }
      listings.set(dir, names);
    }
    return names;
  };
  const found = new Set<string>();
  const maps = new Maps(realRoot);
  let level = [start];
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const file of level) {
      for (const [word, sourced] of wordsOf(file)) {
        for (const [base, variant] of [...namings(word, dirname(file), realRoot), ...maps.namings(word, file)]) {
          for (const ext of EXTENSIONS) {
            const named = resolve(base, variant + ext);
            if (!listed(dirname(named)).has(basename(named))) continue;
            // A folder loaded by its name loads its entry file (`require("./lib")`, a Python package).
            const candidates =
              ext === "" && isFolder(named) ? folderEntries(variant, named).map((e) => join(named, e)) : [named];
            for (const candidate of candidates) {
              if (!listed(dirname(candidate)).has(basename(candidate))) continue;
              const real = codeFile(candidate, sourced);
              if (!real || real === start || found.has(real) || !inside(real)) continue;
              if (found.size >= MAX_SCRIPT_REFERENCES) return undefined;
              found.add(real);
              next.push(real);
            }
          }
        }
      }
    }
    level = next;
  }
  // The maps a name went through are pinned with what they named (changed, the same word loads
  // another file), as data: what they name is no code of the script's.
  for (const map of maps.files) {
    const real = codeFile(map, true);
    if (!real || real === start || found.has(real) || !inside(real)) continue;
    if (found.size >= MAX_SCRIPT_REFERENCES) return undefined;
    found.add(real);
  }
  return [...found].sort();
}

/** A tsconfig's `paths` and `baseUrl` as a loader reads them: the patterns and the folder each is relative to. */
interface TsPaths {
  paths: { key: string; targets: string[]; dir: string }[];
  baseUrl: string | undefined;
  files: string[];
}

/**
 * The maps a loader reads a name through, beside the file that spells it: a package's `imports`
 * (`import "#lib/decide"`, Node's own) and the nearest tsconfig's or jsconfig's `paths` and
 * `baseUrl` (`import "@/lib/decide"` under tsx, Bun or ts-node). A hook's script that loads its
 * code that way loaded a file no word names; changed, it ran (the last stop's note). `files` are
 * the maps read, each pinned with the script.
 */
class Maps {
  readonly files = new Set<string>();
  readonly #configs = new Map<string, TsPaths | undefined>();
  constructor(private readonly root: string) {}

  /** The (folder, path) pairs `word` in `file` names a file by through a map. */
  namings(word: string, file: string): [string, string][] {
    if (word.startsWith("#")) {
      const mapped = importsMapTargets(word, file);
      if (!mapped) return [];
      this.files.add(mapped.manifest);
      return mapped.files.flatMap(loaderSpellings);
    }
    if (/^[./]/.test(word)) return [];
    const config = this.#config(dirname(file));
    if (!config) return [];
    for (const f of config.files) this.files.add(f);
    const out: [string, string][] = config.baseUrl ? [[config.baseUrl, word]] : [];
    for (const { key, targets, dir } of config.paths) {
      const star = key.indexOf("*");
      const [prefix, suffix] = star < 0 ? [key, ""] : [key.slice(0, star), key.slice(star + 1)];
      const matched =
        star < 0 ? word === key : word.startsWith(prefix) && word.endsWith(suffix) && word.length >= key.length - 1;
      if (!matched) continue;
      const middle = star < 0 ? "" : word.slice(prefix.length, word.length - suffix.length);
      for (const target of targets) out.push(...loaderSpellings(resolve(dir, target.replace("*", middle))));
    }
    return out;
  }

  /** The nearest tsconfig.json or jsconfig.json from `folder` up to the project's top, with what it extends. */
  #config(folder: string): TsPaths | undefined {
    if (this.#configs.has(folder)) return this.#configs.get(folder);
    let found: TsPaths | undefined;
    const name = ["tsconfig.json", "jsconfig.json"].find((n) => isFile(join(folder, n)));
    if (name) found = readTsPaths(join(folder, name));
    else if (folder !== this.root && folder.startsWith(this.root + sep)) found = this.#config(dirname(folder));
    this.#configs.set(folder, found);
    return found;
  }
}

/** A file a map names (`./src/decide.js`), as a loader finds it: as named, and for a `.js` name its TypeScript source (tsx, Bun). */
function loaderSpellings(file: string): [string, string][] {
  const stem = file.replace(/\.[cm]?js$/, "");
  return stem === file
    ? [[dirname(file), basename(file)]]
    : [
        [dirname(file), basename(file)],
        [dirname(stem), basename(stem)],
      ];
}

/** `paths` and `baseUrl` of the tsconfig at `file` and those it extends by a relative name (four at most). */
function readTsPaths(file: string): TsPaths {
  const out: TsPaths = { paths: [], baseUrl: undefined, files: [] };
  let havePaths = false;
  for (let at: string | undefined = file, hops = 0; at && hops < 4; hops++) {
    out.files.push(at);
    const config = readJsonc(at) as
      | { extends?: unknown; compilerOptions?: { paths?: unknown; baseUrl?: unknown } }
      | undefined;
    const options = config?.compilerOptions;
    const dir = dirname(at);
    if (out.baseUrl === undefined && typeof options?.baseUrl === "string") out.baseUrl = resolve(dir, options.baseUrl);
    if (!havePaths && options?.paths && typeof options.paths === "object") {
      havePaths = true;
      for (const [key, targets] of Object.entries(options.paths as Record<string, unknown>))
        if (Array.isArray(targets))
          out.paths.push({ key, targets: targets.filter((t): t is string => typeof t === "string"), dir });
    }
    const base = [config?.extends].flat().find((e): e is string => typeof e === "string" && /^\.\.?\//.test(e));
    at = base ? resolve(dir, base.endsWith(".json") ? base : `${base}.json`) : undefined;
  }
  // Targets are relative to baseUrl when there is one, else to the config that holds them.
  if (out.baseUrl) for (const entry of out.paths) entry.dir = out.baseUrl;
  return out;
}

/** A JSON file with comments and trailing commas (a tsconfig), or undefined. */
function readJsonc(file: string): unknown {
  const read = readRegularFileSync(file, 1024 * 1024);
  if (!read.ok) return undefined;
  const text = read.text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_m, string) => string ?? "");
  try {
    return JSON.parse(text.replace(/,(\s*[}\]])/g, "$1"));
  } catch {
    return undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** What a loader takes from a folder named as a module: its index file, a Python package's `__init__` and `__main__`. */
const PACKAGE_ENTRIES = ["__init__.py", "__main__.py"];
const INDEX_ENTRIES = EXTENSIONS.slice(1).map((e) => `index${e}`);
/**
 * The entry files of a folder named by `variant`: a Python package's for any name (`import
 * helpers`, `python -m tools`); an `index` file only for a relative name (`require("./lib")`),
 * as Node loads one, so a plain `cd src` does not follow the whole of `src/index.ts`'s imports.
 */
function folderEntries(variant: string, folder: string): string[] {
  return /^\.\.?\//.test(variant) ? [...packageMain(folder), ...INDEX_ENTRIES, ...PACKAGE_ENTRIES] : PACKAGE_ENTRIES;
}

/** The file a folder's package.json names as its entry (`main`, or a string `exports`), with a script's extensions tried. */
function packageMain(folder: string): string[] {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  } catch {
    return [];
  }
  const { main, exports } = (manifest ?? {}) as { main?: unknown; exports?: unknown };
  const named = [main, typeof exports === "object" && exports ? (exports as Record<string, unknown>)["."] : exports];
  return named.filter((n): n is string => typeof n === "string").flatMap((n) => EXTENSIONS.map((e) => n + e));
}
/** A Python relative module (`.helpers`, `..shared.checks`): its dots, then the dotted path. */
const RELATIVE_MODULE = /^(\.+)([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)$/;

/**
 * The (folder, path) pairs a word may name a file by (red team o, O2): as written from the
 * script's folder and the project's top; a dotted module (`tools.hooks.guard`) as its path and
 * each package folder on the way (their `__init__.py` runs first); a Python relative module
 * (`..shared`) from the folder its dots climb to; and a path whose head is known only at run
 * time or absolute (`"$(dirname "$0")/lib.sh"`, `$DIR/lib/x.sh`) by each tail after a `/`.
 */
function namings(word: string, folder: string, root: string): [string, string][] {
  const relative = RELATIVE_MODULE.exec(word);
  if (relative) {
    const up = Array.from({ length: relative[1]!.length - 1 }, () => "..").join("/");
    return modulePaths(relative[2]!).map((path) => [resolve(folder, up || "."), path]);
  }
  const tails: string[] = [];
  if (word.startsWith("/") || word.includes("$"))
    for (let at = word.indexOf("/"); at !== -1; at = word.indexOf("/", at + 1)) {
      const tail = word.slice(at + 1);
      if (tail && !tail.includes("$")) tails.push(tail);
    }
  const paths = word.includes("$") ? tails : [word, ...(MODULE_PATH.test(word) ? modulePaths(word) : []), ...tails];
  return [...new Set([folder, root])].flatMap((base) =>
    [...new Set(paths)].map((path): [string, string] => [base, path]),
  );
}

/** `a.b.c` as the paths `a`, `a/b`, `a/b/c`. */
function modulePaths(module: string): string[] {
  const parts = module.split(".");
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The path a relative word names read as a URL (percent-decoded, `\` as `/`), when that differs. */
function urlSpellings(word: string): string[] {
  if (!word.includes("%") && !word.includes("\\")) return [];
  let path = word.replaceAll("\\", "/");
  try {
    path = decodeURIComponent(path);
  } catch {
    // not percent-encoding: as written
  }
  return path === word || path.includes("\0") ? [] : [path];
}

/**
 * The words of a text file's start that could be a path (no URLs; a variable's, for the tail
 * after it), each true when the shell's `source` or `.` reads it (red team o: then it is code
 * whatever its name or mode).
 */
function wordsOf(file: string): Map<string, boolean> {
  let text: string;
  try {
    const data = readFileSync(file);
    if (data.subarray(0, 8000).includes(0)) return new Map(); // binary
    text = data.subarray(0, MAX_SCAN_BYTES).toString("utf8");
  } catch {
    return new Map();
  }
  const words = new Map<string, boolean>();
  // A package's `imports` names (`"#lib/decide"`): always quoted, and `#` splits words below.
  for (const [, name] of text.matchAll(/["'`](#[^\s"'`$]+)["'`]/g)) words.set(name!, false);
  let previous = "";
  for (const raw of text.split(/[\s"'`=,;:()[\]{}<>|&*!?#]+/)) {
    // What the shell's `source` and `.` read runs, whatever its name or mode (`. ./.env`, `source config/vars`).
    const sourced = previous === "source" || previous === ".";
    previous = raw;
    const word = raw.replace(/^\$\{?(?:CLAUDE_PROJECT_DIR|PWD)\}?\//, "").replace(/[.]+$/, "");
    if (word === "" || word.length > 512 || word.includes("://")) continue;
    // Node's `import` reads a name as a URL: `./%78.mjs` loads `./x.mjs`, `./lib\x.mjs` loads
    // `./lib/x.mjs` (red team zp, ZP4). The word as a URL names those too.
    for (const spelling of [word, ...urlSpellings(word)])
      if (!spelling.includes("\\")) words.set(spelling, sourced || (words.get(spelling) ?? false));
  }
  return words;
}

/**
 * What a command's words name after an expansion the shell fills when it runs (`"$(git rev-parse
 * --show-toplevel)/.claude/hooks/x.sh"`, `"$PWD/x.sh"`, `${CLAUDE_PROJECT_DIR:-.}/x.sh`,
 * `` `pwd`/x.sh ``, `$GUARD_DIR/guard.sh`): each tail after a `/` of what follows it, as a relative
 * path. The expansion's value is not known here, so each place inside the folder it could lead to
 * is pinned (fail closed): split as written, such a word named no file and the script it ran was
 * not pinned.
 */
export function expansionTails(text: string): string[] {
  const out = new Set<string>();
  for (const [, rest] of text.matchAll(/[$`)}]([^\s"'`;|&<>()$[\]{},=]*\/[^\s"'`;|&<>()$[\]{},=]*)/g))
    for (let at = rest!.indexOf("/"); at !== -1; at = rest!.indexOf("/", at + 1)) {
      const tail = rest!.slice(at + 1);
      if (tail !== "" && !tail.startsWith("/")) out.add(tail);
    }
  return [...out];
}

/** Most data files and folders the scripts of one hook may read by name; more is undefined (fail closed). */
export const MAX_DATA_REFERENCES = 64;
/** Most names a script's words give that name nothing now (`scriptAbsentNames`); more is undefined. */
export const MAX_ABSENT_NAMES = 4096;
/** Most entries, and bytes, a data folder's state covers (every file below it); more is "unreadable". */
const MAX_TREE_ENTRIES = 4096;
const MAX_TREE_BYTES = 64 * 1024 * 1024;

/** What a script's data is, as far as its words tell: `scriptDataPremise`. */
export interface DataPremise {
  /** The files and folders it names that exist (`scriptDataReferences`). */
  files: string[];
  /** The paths its words name that hold nothing now: each made later is data it may read. */
  absent: string[];
  /** Why what it reads cannot be known from its words, when it cannot. */
  problem?: string;
}

/**
 * The data a script decides from (red team r): the regular files and folders inside `root` that
 * the words of the script at `path`, or of the code it loads (`scriptReferences`), name and that
 * are no code of its (`grep -q approve config/policy.json`, `jq .allow "$CLAUDE_PROJECT_DIR/x.json"`,
 * `open("state/ok.txt")`), real paths, sorted; undefined past MAX_DATA_REFERENCES or when a name
 * is built at run time (`scriptDataPremise`). A file a text names only as the target of a
 * redirection or `tee` (a log it appends to) is written, not read. Such a file changed, what the
 * hook answers is no longer the trusted code's answer on the trusted inputs: its approval is no
 * proof (plugins/hooks/pins.ts).
 */
export function scriptDataReferences(path: string, root: string): string[] | undefined {
  const premise = scriptDataPremise(path, root);
  return premise.problem === undefined ? premise.files : undefined;
}

/**
 * What the script at `path` (and the code it loads) may read inside `root`, as its words tell
 * (red team v): the files and folders they name, a folder by everything below it (`grep -r x
 * config`, `config/*\/policy.json`, `cd config; cd team`, `os.path.join(root, 'config', 'team',
 * ...)` read below the folder a word names); the project's top when a word hands it to a program
 * as a whole (`find . -name ...`, `ls "$CLAUDE_PROJECT_DIR"`); the folder written before an
 * expansion (`config/$name`); and the paths its words name that hold nothing now (`[ -f
 * config/override ]`, `. ./lib/local.env`): made later, they are read. A name the shell builds by
 * gluing an expansion to other characters (`"${f}icy.json"`, `$name.json`, `"$a$b"`) names a
 * file no word spells: what it reads is not known, and `problem` says so (fail closed).
 */
export function scriptDataPremise(path: string, root: string): DataPremise {
  const realRoot = realOr(root);
  const inside = (p: string) => p.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
  const code = scriptReferences(path, root);
  if (code === undefined)
    return { files: [], absent: [], problem: `${path} loads more than ${MAX_SCRIPT_REFERENCES} files` };
  const scripts = [realOr(path), ...code];
  const skip = new Set(scripts);
  const found = new Set<string>();
  const absent = new Set<string>();
  const add = (candidate: string, spelled: string): string | undefined => {
    let real: string;
    try {
      const stats = statSync(candidate);
      if (!stats.isFile() && !stats.isDirectory()) return undefined;
      real = realpathSync(candidate);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
      const missing = join(realOr(dirname(candidate)), basename(candidate));
      if (inside(missing) && absent.size <= MAX_ABSENT_NAMES) absent.add(missing);
      // A path that names nothing in a folder that is there (`'config/pol' + 'icy.json'`, `'%s.json' %
      // 'config/policy'`): the script may complete the name at run time, so the folder is its data.
      if (!spelled.replace(/\/+$/, "").includes("/") || !isFolder(dirname(candidate))) return undefined;
      real = realOr(dirname(candidate));
    }
    if (real === realRoot || !inside(real) || skip.has(real) || found.has(real)) return undefined;
    if (found.size >= MAX_DATA_REFERENCES) return `${path} names more than ${MAX_DATA_REFERENCES} files it may read`;
    found.add(real);
    return undefined;
  };
  for (const file of scripts) {
    const text = scanText(file);
    const writeOnly = writeOnlyWords(file);
    const reads = withoutWriteTargets(text);
    const built = builtName(reads);
    if (built !== undefined)
      return { files: [], absent: [], problem: `${file} reads a file by a name built at run time (${built})` };
    if (namesTop(reads)) found.add(realRoot);
    for (const [word] of wordsOf(file)) {
      if (writeOnly.has(word) || word.startsWith("-")) continue;
      const head = expansionHead(word);
      const named =
        head !== undefined
          ? [[realRoot, head] as [string, string], [dirname(file), head] as [string, string]]
          : namings(word, dirname(file), realRoot);
      for (const [base, variant] of named) {
        const problem = add(resolve(base, variant), variant);
        if (problem) return { files: [], absent: [], problem };
      }
    }
  }
  if (absent.size > MAX_ABSENT_NAMES)
    return { files: [], absent: [], problem: `${path} names more than ${MAX_ABSENT_NAMES} paths` };
  return { files: [...found].sort(), absent: [...absent].sort() };
}

/**
 * The paths a loader would read code from by a name the script at `path` (or the code it loads)
 * spells, where nothing is now (red team v, V3): what the shell sources (`[ -f lib/local.env ] &&
 * . ./lib/local.env`), a name with a script's extension, a relative module without one
 * (`require("./local")`), a Python module imported by name (`from local_settings import *`). Made
 * later (the model's Write), it is code the user never saw that the hook would run. Sorted;
 * undefined past MAX_ABSENT_NAMES.
 */
export function scriptAbsentCode(path: string, root: string): string[] | undefined {
  const realRoot = realOr(root);
  const inside = (p: string) => p.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
  const code = scriptReferences(path, root);
  if (code === undefined) return undefined;
  const out = new Set<string>();
  for (const file of [realOr(path), ...code]) {
    const text = scanText(file);
    const imported = new Set(
      [...text.matchAll(/^\s*(?:from\s+(\.*[A-Za-z_][\w.]*)\s+import|import\s+([A-Za-z_][\w.]*))/gm)].map(
        (m) => m[1] ?? m[2]!,
      ),
    );
    for (const [word, sourced] of wordsOf(file)) {
      const relative = /^\.\.?\//.test(word);
      if (!sourced && !SCRIPT_NAME.test(word) && !relative && !imported.has(word)) continue;
      const extensions =
        sourced || SCRIPT_NAME.test(word) ? [""] : imported.has(word) ? [".py", "/__init__.py"] : EXTENSIONS;
      const spellings = imported.has(word)
        ? namings(word, dirname(file), realRoot).filter(([, v]) => !v.includes("."))
        : namings(word, dirname(file), realRoot);
      for (const [base, variant] of spellings)
        for (const ext of extensions) {
          const candidate = resolve(base, variant + ext);
          if (!inside(candidate) || existsSync(candidate)) continue;
          if (out.size >= MAX_ABSENT_NAMES) return undefined;
          out.add(candidate);
        }
    }
  }
  return [...out].sort();
}

/** The paths the script at `path` names that hold nothing now (`scriptDataPremise`), sorted; undefined when its data cannot be known. */
export function scriptAbsentNames(path: string, root: string): string[] | undefined {
  const premise = scriptDataPremise(path, root);
  return premise.problem === undefined ? premise.absent : undefined;
}

/** What a set of paths that named nothing holds now, for comparing: "absent" while all still name nothing. */
export function absentState(paths: readonly string[]): string {
  for (const path of paths) {
    try {
      statSync(path);
      return `made:${path}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") return `unreadable:${path}`;
    }
  }
  return "absent";
}

// A shell redirection's target or tee's file.
const WRITE_TARGET =
  /(?:\d*>>?|&>>?|>\|)\s*["']?([^\s"';|&<>(){}[\],]+)|\btee\s+(?:-\S+\s+)*["']?([^\s"';|&<>(){}[\],]+)/g;

/** The words of a script that it names only as a redirection's or tee's target: what it writes and never names to read. */
function writeOnlyWords(file: string): Set<string> {
  let text: string;
  try {
    text = readFileSync(file).subarray(0, MAX_SCAN_BYTES).toString("utf8");
  } catch {
    return new Set();
  }
  const clean = (w: string) => w.replace(/^\$\{?(?:CLAUDE_PROJECT_DIR|PWD)\}?\//, "").replace(/[.]+$/, "");
  const targets = new Map<string, number>();
  for (const m of text.matchAll(WRITE_TARGET)) {
    const word = clean(m[1] ?? m[2]!);
    targets.set(word, (targets.get(word) ?? 0) + 1);
  }
  const out = new Set<string>();
  if (targets.size === 0) return out;
  const all = new Map<string, number>();
  for (const raw of text.split(/[\s"'`=,;:()[\]{}<>|&*!?#]+/)) {
    const word = clean(raw);
    if (targets.has(word)) all.set(word, (all.get(word) ?? 0) + 1);
  }
  for (const [word, count] of targets) if ((all.get(word) ?? 0) <= count) out.add(word);
  return out;
}

/** The start of a text file a script's words are read from, or "" (binary, unreadable). */
function scanText(file: string): string {
  try {
    const data = readFileSync(file);
    if (data.subarray(0, 8000).includes(0)) return "";
    return data.subarray(0, MAX_SCAN_BYTES).toString("utf8");
  } catch {
    return "";
  }
}

/** `text` without its comment lines and the targets of its redirections and `tee` (what it writes, not reads). */
function withoutWriteTargets(text: string): string {
  return text.replace(/^[ \t]*#.*$/gm, "").replace(WRITE_SPAN, " ");
}

// A redirection's or tee's whole target, quoted or not, expansions included.
const WRITE_SPAN =
  /(?:\d*>>?|&>>?|>\|)\s*(?:"[^"\n]*"|'[^'\n]*'|[^\s;|&<>()]+)+|\btee\s+(?:-\S+\s+)*(?:"[^"\n]*"|'[^'\n]*'|[^\s;|&<>()]+)+/g;
// A shell's (and a JavaScript template's) expansion: `${x}`, `$x`, `$1`, `$(cmd)`, `` `cmd` ``.
const EXPANSION = String.raw`(?:\$\{[^{}\s]*\}|\$[A-Za-z_][A-Za-z0-9_]*(?![A-Za-z0-9_])|\$[0-9@*#?!$-]|\$\([^()]*\)|\x60[^\x60\n]*\x60)`;
// An expansion glued to a name's characters or to another expansion, quotes between them or not.
const GLUED = new RegExp(
  String.raw`${EXPANSION}["']*(?=[A-Za-z0-9_.\-]|\$[{(A-Za-z_0-9]|\x60)|(?<=[A-Za-z0-9_.\-])["']*${EXPANSION}`,
  "g",
);

/** The first expansion in `text` that builds part of a name (`"${f}icy.json"`, `$name.json`, `"$a$b"`), or undefined. */
function builtName(text: string): string | undefined {
  for (const m of text.matchAll(GLUED)) {
    // `$((…))` arithmetic and `$#`-style counts in a test build no name.
    if (/^\$\(\(/.test(text.slice(m.index))) continue;
    return text
      .slice(Math.max(0, m.index - 20), m.index + m[0].length + 20)
      .replace(/\s+/g, " ")
      .trim();
  }
  return undefined;
}

/**
 * True when the script hands the project's top, as a whole, to a program (`find . -name x`, `grep
 * -r x .`, `ls "$CLAUDE_PROJECT_DIR"`, `os.walk(".")`): then every file in it is data. Not `. ./x`
 * (the shell's source), `cd .`, or the top as a name's head (`"$CLAUDE_PROJECT_DIR/x"`).
 */
function namesTop(text: string): boolean {
  const top = String.raw`(?:\.\/?|\$\{?(?:CLAUDE_PROJECT_DIR|PWD)\}?|\$\(pwd\)|\x60pwd\x60)`;
  const re = new RegExp(String.raw`(^|[^\S\n]|["'(,=\[])${top}["']?(?=$|[\s"'),;\]|&])`, "gm");
  for (const m of text.matchAll(re)) {
    const before = text.slice(text.lastIndexOf("\n", m.index) + 1, m.index + m[1]!.length);
    // The shell's `.` at a command's place reads the file after it: source, not the folder.
    const word = text.slice(m.index + m[1]!.length).match(/^\S+/)?.[0] ?? "";
    if (word === "." && /(?:^|[;&|({!]|\b(?:then|do|else|if|while|until|elif))\s*$/.test(before)) continue;
    if (/\b(?:cd|pushd)\s+["']?$/.test(before) || /=["']?$/.test(before)) continue;
    return true;
  }
  return false;
}

/** The literal folder a word spells before an expansion (`config/` of `config/$name`, with the project's top taken off), or undefined. */
function expansionHead(word: string): string | undefined {
  const at = word.search(/[$\x60]/);
  if (at <= 0) return undefined;
  const head = word.slice(0, word.lastIndexOf("/", at) + 1);
  return head === "" || head === "/" ? undefined : head;
}

/**
 * What a data file or folder holds, for comparing: a file's digest, a folder's (each entry below
 * it, at any depth: its path and, for a file, digest, for a link, target), "absent" or
 * "unreadable" (and a folder over MAX_TREE_ENTRIES or MAX_TREE_BYTES).
 */
export function dataState(path: string): string {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "absent" : "unreadable";
  }
  if (stats.isFile()) return fileDigest(path) ?? "unreadable";
  if (!stats.isDirectory()) return "unreadable";
  const hash = createHash("sha256").update("tree\n");
  let entries = 0;
  let bytes = 0;
  const walk = (dir: string, rel: string): boolean => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return false;
    }
    for (const name of names) {
      if (++entries > MAX_TREE_ENTRIES) return false;
      const entry = join(dir, name);
      const at = rel === "" ? name : `${rel}/${name}`;
      let kind: string;
      try {
        const s = lstatSync(entry);
        if (s.isSymbolicLink()) kind = `link:${readlinkSync(entry)}`;
        else if (s.isDirectory()) {
          // An empty dot-folder is no data: the sandbox stands one at each protected folder's
          // name (.claude, .vscode, …) while a command runs, and takes it away after.
          if (name.startsWith(".") && isEmptyFolder(entry)) continue;
          hash.update(`${at}\0folder\n`);
          if (!walk(entry, at)) return false;
          continue;
        } else if (s.isFile()) {
          bytes += s.size;
          if (bytes > MAX_TREE_BYTES) return false;
          kind = fileDigest(entry) ?? "unreadable";
        } else kind = "other";
      } catch {
        kind = "gone";
      }
      hash.update(`${at}\0${kind}\n`);
    }
    return true;
  };
  return walk(path, "") ? `sha256:${hash.digest("hex")}` : "unreadable";
}

function isEmptyFolder(path: string): boolean {
  try {
    return readdirSync(path).length === 0;
  } catch {
    return false;
  }
}

/** `sha256:<hex>` of a regular file's bytes (4 MiB at most), or undefined. */
function fileDigest(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > 4 * 1024 * 1024) return undefined;
    return `sha256:${createHash("sha256").update(readFileSync(fd)).digest("hex")}`;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A data file's name: what a hook names by such a name (`jq .version package.json`, `cat
 * README.md`) is read, not run, so it is not read for what it loads (a package.json's `main`
 * naming a build output would make every build a change of the hook). Any other file a hook
 * names is (red team o, O3: `sh guard`, `python3 check`).
 */
export const DATA_NAME = /\.(?:json|jsonc|json5|ya?ml|toml|md|markdown|txt|log|csv|tsv|lock|xml)$/i;

/** True for a file with a script's name or an execute bit (code, not the data or log a script names). */
export function isScriptFile(path: string): boolean {
  try {
    return SCRIPT_NAME.test(path) || (statSync(path).mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** The real path of the code file at `path` (a regular file with a script's name or an execute bit), or undefined. */
function codeFile(path: string, sourced = false): string | undefined {
  try {
    const stats = statSync(path);
    if (!stats.isFile() || !(sourced || SCRIPT_NAME.test(path) || (stats.mode & 0o111) !== 0)) return undefined;
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
