/**
 * A command hook runs the code its words name (`sh scripts/guard.sh`, `node .claude/hooks/x.js`),
 * and its answer can approve calls that would ask (PreToolUse `permissionDecision: "allow"`).
 * What the user trusted is that code as it was when the run started (the folder's trust pins it):
 * a script the run changes afterwards (the model's Write in acceptEdits, a sandboxed command —
 * neither is asked about a file of no sensitive name) is no longer it. So each hook's scripts are
 * recorded when its hooks are read, and a hook whose scripts changed since is not run (red team k,
 * K1). Fail closed: every file a word names is pinned (`sh scripts/guard` runs a file of any name
 * and mode), but for the files the command itself writes by a redirection or `tee` (a log it
 * appends to); a name with a script's extension that named nothing then but names a file now
 * counts as changed.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, normalize, relative, resolve } from "node:path";
import type { CommandHook, HooksConfig } from "./types";
import {
  absentState,
  DATA_NAME,
  dataState,
  expansionTails,
  isScriptFile,
  type ProjectTrust,
  rememberConfiguredCode,
  SCRIPT_NAME,
  scriptAbsentCode,
  scriptDataPremise,
  scriptReferences,
  TrustPins,
} from "../../loader/index";
import { noteCommandLinePackages, noteServerPackages } from "../_kits/process/index";

/**
 * What each script a hook names held when recorded: a digest, or "absent" for a script's name that
 * named no file. By the path as written: relative to the folder the hook runs in (a worktree's
 * copy of `scripts/guard.sh` must hold what the project's held), else absolute.
 */
type Pins = Map<string, string>;

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
const MAX_BYTES = 4 * 1024 * 1024;

/** Per hook: the scripts recorded where it first ran (the run's folder, when its hooks were read). */
const recorded = new WeakMap<CommandHook, Pins>();

/**
 * Per hook: the data its scripts decide from (`scriptDataReferences`: `grep -q approve
 * config/policy.json`), by real path, with the state its approval may rest on: what the folder's
 * trust recorded (`hookDataDigests`), else (a folder trusted before data was recorded, a user's
 * own hook reading the project's file) what it held when the hooks were read; or, under the key
 * "", why it cannot be known (too many names).
 */
const recordedData = new WeakMap<CommandHook, Map<string, string>>();

// What a shell command writes by name: a redirection's target, tee's files.
const WRITTEN =
  /(?:\d*>>?|&>>?|>\|)\s*("[^"]*"|'[^']*'|[^\s;|&<>()]+)|\btee\s+(?:-\S+\s+)*("[^"]*"|'[^']*'|[^\s;|&<>()]+)/g;

/** The files `hook`'s command writes by name (relative ones as written). */
function writtenPaths(hook: CommandHook): string[] {
  const home = process.env.HOME || homedir();
  const out: string[] = [];
  for (const m of hook.command.matchAll(WRITTEN)) {
    const word = (m[1] ?? m[2]!)
      .replace(/^["']|["']$/g, "")
      .replace(/^\$\{?CLAUDE_PROJECT_DIR\}?\//, "")
      .replace(/^~(?=\/)/, home);
    if (word !== "" && !word.includes("$")) out.push(isAbsolute(word) ? resolve(word) : normalize(word));
  }
  return out;
}

/** The paths `hook`'s words may name (relative ones as written, see Pins), but for those it writes. */
function namedPaths(hook: CommandHook): string[] {
  const home = process.env.HOME || homedir();
  const path = (raw: string) => {
    const word = raw
      .replace(/^["']|["']$/g, "")
      .replace(/^\$\{?CLAUDE_PROJECT_DIR\}?\//, "")
      .replace(/^\$\{?CLAUDE_PLUGIN_ROOT\}?(?=\/)/, hook.pluginRoot ?? "$")
      .replace(/^~(?=\/)/, home);
    if (word === "" || word.includes("$") || word.includes("://") || word.length > 4096) return undefined;
    return isAbsolute(word) ? resolve(word) : normalize(word);
  };
  const targets = [...hook.command.matchAll(WRITTEN)].map((m) => m[1] ?? m[2]!);
  const written = new Set([...targets, ...targets.flatMap(expansionTails)].map(path));
  const out = new Set<string>();
  for (const text of [hook.command, ...(hook.args ?? [])])
    for (const variant of [text, asShellReads(text, home, hook.pluginRoot)])
      for (const raw of variant.split(/[\s"'`=,;()[\]{}<>|&]+|\\[nrt]/)) {
        const p = path(raw);
        if (p !== undefined && !written.has(p)) out.add(p);
      }
  for (const text of [hook.command, ...(hook.args ?? [])])
    for (const tail of expansionTails(text)) {
      const p = path(tail);
      if (p !== undefined && !written.has(p)) out.add(p);
    }
  return [...out];
}

/**
 * `text` as the shell reads its words (red team l): the project folder, the plugin's and HOME in
 * any spelling (`"$CLAUDE_PROJECT_DIR"/scripts/x.sh`, `"${CLAUDE_PROJECT_DIR}/x.sh"`, Claude
 * Code's documented form) put in, and quotes and backslashes inside a word taken out
 * (`scripts/gu""ard.sh`): split as written, those named no file and the script ran unpinned.
 */
function asShellReads(text: string, home: string, pluginRoot: string | undefined): string {
  return text
    .replace(/\$\{?CLAUDE_PROJECT_DIR\}?/g, ".")
    .replace(/\$\{?CLAUDE_PLUGIN_ROOT\}?/g, pluginRoot ?? "$")
    .replace(/\$\{?HOME\}?(?![A-Za-z0-9_])/g, home)
    .replace(/["'\\]/g, "");
}

// A word the shell expands to file names (`scripts/*.sh`, `scripts/{a,b}.sh`, `scripts/guar?.sh`).
const GLOB = /[*?[{]/;

/**
 * The folders inside `base` (not `base` itself) whose entries decide what `hook` runs: a folder a
 * word names (`cd scripts && sh guard.sh`) and the folder a pattern's words expand in
 * (`sh scripts/*.sh`). Their listing is pinned, by each entry's name and contents.
 */
function namedFolders(hook: CommandHook, base: string): string[] {
  const home = process.env.HOME || homedir();
  const root = resolve(base);
  const out = new Set<string>();
  const add = (folder: string, always: boolean) => {
    if (folder.includes("$")) return;
    const abs = resolve(base, folder);
    if (abs === root || !abs.startsWith(`${root}/`)) return;
    if (always || scriptState(abs) === "folder") out.add(`${normalize(folder)}/`);
  };
  for (const text of [hook.command, ...(hook.args ?? [])])
    for (const raw of asShellReads(text, home, hook.pluginRoot).split(/[\s=,;()<>|&`]+/)) {
      if (raw === "" || raw.includes("://") || raw.length > 4096) continue;
      const glob = GLOB.exec(raw);
      if (glob) {
        const stem = raw.slice(0, glob.index);
        add(stem.includes("/") ? stem.slice(0, stem.lastIndexOf("/")) || "/" : ".", true);
        continue;
      }
      add(raw, false);
      // The folder a named file is in: what it loads by a relative name (`source ./lib.sh`, an
      // import, `node scripts/guard` resolving guard.js, `python -m scripts.guard`) is there.
      const path = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$/.test(raw) ? raw.replaceAll(".", "/") : raw;
      if (path.includes("/")) add(dirname(path), false);
    }
  return [...out];
}

/** The files a runner a hook names reads its recipes from (`make guard`, `npm run guard`). */
function runnerFiles(hook: CommandHook): string[] {
  const words = new Set(hook.command.split(/[\s;|&()]+/));
  return Object.entries(RUNNERS).flatMap(([runner, files]) => (words.has(runner) ? files : []));
}

const RUNNERS: Record<string, string[]> = {
  make: ["Makefile", "makefile", "GNUmakefile"],
  npm: ["package.json"],
  pnpm: ["package.json"],
  yarn: ["package.json"],
  bun: ["package.json"],
  just: ["justfile", "Justfile", ".justfile"],
};

/** What the folder `path` lists: each entry's name and contents (a file's digest, a link's target), hashed, but for `skip` (what the hook writes); "absent" or "unreadable". */
function folderState(path: string, skip: ReadonlySet<string> = new Set()): string {
  let names: string[];
  try {
    names = readdirSync(path).sort();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "absent" : "unreadable";
  }
  if (names.length > 1024) return "unreadable";
  const hash = createHash("sha256");
  for (const name of names) {
    if (skip.has(join(path, name))) continue;
    // By contents, not inode or ctime: a worktree's copy of the folder must read as the project's.
    const entry = join(path, name);
    let kind = "gone";
    try {
      const s = lstatSync(entry);
      kind = s.isSymbolicLink() ? `link:${readlinkSync(entry)}` : s.isDirectory() ? "folder" : scriptState(entry);
    } catch {
      // gone between the listing and the look: counted as such
    }
    hash.update(`${name}\0${kind}\n`);
  }
  return `listing:${hash.digest("hex")}`;
}

/** What `key` holds in `base`: a folder's listing for a key ending in "/" (but for the files `hook` writes), else the file's state. */
function stateOf(key: string, base: string, hook: CommandHook): string {
  if (!key.endsWith("/")) return scriptState(resolve(base, key));
  return folderState(resolve(base, key), new Set(writtenPaths(hook).map((p) => resolve(base, p))));
}

/** What `path` holds: its digest, "absent" (nothing there), "folder", or "unreadable". */
function scriptState(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "absent" : "unreadable";
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) return "folder";
    if (!stats.isFile() || stats.size > MAX_BYTES) return "unreadable";
    return `sha256:${createHash("sha256").update(readFileSync(fd)).digest("hex")}`;
  } catch {
    return "unreadable";
  } finally {
    closeSync(fd);
  }
}

/** The real path of `path`, or its absolute path when it cannot be resolved. */
function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** True when `path` (absolute) is below `base`. */
function isInsideOf(base: string, path: string): boolean {
  const rel = relative(resolve(base), path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** The recorded-data key of the paths a script names that held nothing (`scriptAbsentNames`). */
const absentKey = (script: string) => `absent:${script}`;

/** Record the data the scripts at `scripts` read (see recordedData), against `trust`'s record where it covers them. */
function recordData(
  hook: CommandHook,
  scripts: readonly string[],
  base: string,
  trust: ProjectTrust | undefined,
): void {
  const data = new Map<string, string>();
  const absent = new Map<string, readonly string[]>();
  const pinned = TrustPins.is(trust) ? trust : undefined;
  for (const script of scripts) {
    const premise = scriptDataPremise(script, base);
    if (premise.problem !== undefined) {
      data.set("", premise.problem);
      continue;
    }
    // A trust record of this script's data (its absent names are in it) that lacks a file it names
    // now: the file was not there then (made by an earlier run, red team v).
    const real = realOr(script);
    const byTrust = pinned?.covers(real) === true && pinned.trustedAbsent(real) !== undefined;
    for (const file of premise.files)
      data.set(
        file,
        (pinned?.covers(file) ? pinned.trustedData(file) : undefined) ?? (byTrust ? "absent" : dataState(file)),
      );
    // What named nothing when the folder was trusted (or, without such a record, now) must still name nothing.
    absent.set(absentKey(real), premise.absent);
    data.set(
      absentKey(real),
      (pinned?.covers(real) ? pinned.trustedAbsent(real) : undefined) ?? absentState(premise.absent),
    );
  }
  recordedData.set(hook, data);
  recordedAbsent.set(hook, absent);
  recordedBase.set(hook, realOr(base));
}

/** Per hook: the paths each of its scripts names that held nothing when recorded, by `absentKey`. */
const recordedAbsent = new WeakMap<CommandHook, Map<string, readonly string[]>>();
/** Per hook: the folder its data was recorded in; run elsewhere (a worktree), it reads that folder's copies. */
const recordedBase = new WeakMap<CommandHook, string>();

/**
 * Why `hook`'s approval is no proof now, or undefined when it is: a file or folder its scripts
 * read by name holds what the user did not trust (changed since trusted or since the run started:
 * the model's Write in acceptEdits, a sandboxed command), a path they name that held nothing now
 * holds something, what they read cannot be known (a name built at run time, a folder too big to
 * compare), or was not recorded when the folder was trusted. Its deny and ask still count: the
 * data can only take away the approval.
 */
export function untrustedHookData(hook: CommandHook, base?: string): string | undefined {
  const absent = recordedAbsent.get(hook);
  // Run in another folder (a subagent's worktree, red team v, V5), the hook reads that folder's
  // copies of its data: they must hold what was trusted, not the project's.
  const from = recordedBase.get(hook);
  const to = base === undefined ? from : realOr(base);
  const at = (p: string) => (from && to && from !== to && isInsideOf(from, p) ? join(to, relative(from, p)) : p);
  for (const [recorded, state] of recordedData.get(hook) ?? []) {
    if (recorded === "") return state;
    const names = absent?.get(recorded);
    const file = at(recorded);
    const now = names ? absentState(names.map(at)) : dataState(file);
    if (names && state !== "absent")
      return `${state.replace(/^made:/, "")}, which its script names, did not exist when it was trusted (run \`ubiquity trust .\` if it is yours)`;
    if (names && now !== "absent")
      return `${now.replace(/^\w+:/, "")}, which its script names, was made since it was trusted (run \`ubiquity trust .\` if it is yours)`;
    if (!names && (state === "unreadable" || now === "unreadable"))
      return `${file}, which its script reads, cannot be compared with what was trusted (unreadable, or more than a few thousand files)`;
    if (now !== state && state === "absent")
      return `${file}, which its script names, was made since it was trusted (run \`ubiquity trust .\` if it is yours)`;
    if (now !== state)
      return `${file}, which its script reads, changed since it was trusted (run \`ubiquity trust .\` if the change is yours)`;
  }
  return undefined;
}

/** Record the scripts `hook` names, as they are now in `base`. */
function record(hook: CommandHook, base: string, trust?: ProjectTrust): void {
  const scripts: string[] = [];
  const pins: Pins = new Map();
  // The packages it runs by name from node_modules (`npx -y @acme/guard`), out of a sandboxed
  // command's reach from now on, before the hook first runs (red team p, P5).
  if (hook.args) noteServerPackages(hook.command, hook.args, base);
  else noteCommandLinePackages(hook.command, base);
  const written = new Set(writtenPaths(hook).map((p) => resolve(base, p)));
  for (const key of namedPaths(hook)) {
    const path = resolve(base, key);
    const state = scriptState(path);
    // A name that names nothing is pinned as absent only when it reads as a script's (`scripts/x.sh`):
    // the hook's other words (`exit`, `0`) are no files it runs.
    if (state === "folder" || (state === "absent" && !SCRIPT_NAME.test(path))) continue;
    pins.set(key, state);
    // A script it runs (by its extension or mode, not a data file a word names: `package.json`):
    // at the next start too, so out of a sandboxed command's reach, and a write to it asks. And
    // what the script loads by a name it spells (`. ./lib.sh` beside it at the project's top,
    // `source ../lib/x.sh`), the same way; too many to pin and the hook counts as changed.
    // Any file the hook names and does not write is read for what it loads (red team o, O3): `sh
    // guard` and `python3 check` run a file with no script's name or execute bit all the same.
    if (!state.startsWith("sha256:") || written.has(path) || (DATA_NAME.test(path) && !isScriptFile(path))) continue;
    if (isScriptFile(path)) rememberConfiguredCode(path);
    scripts.push(path);
    const loads = scriptReferences(path, base);
    if (loads === undefined) pins.set(key, "unreadable");
    // What it would load by a name that names nothing now: made later, that is code no one trusted (V3).
    const missing = scriptAbsentCode(path, base);
    if (missing === undefined) pins.set(key, "unreadable");
    for (const file of missing ?? [])
      pins.set(isInsideOf(realOr(base), file) ? relative(realOr(base), file) : file, "absent");
    const realBase = realOr(base);
    for (const file of loads ?? []) {
      pins.set(isInsideOf(realBase, file) ? relative(realBase, file) : file, scriptState(file));
      rememberConfiguredCode(file);
    }
  }
  for (const key of [...namedFolders(hook, base), ...runnerFiles(hook)]) pins.set(key, stateOf(key, base, hook));
  recorded.set(hook, pins);
  recordData(hook, scripts, base, trust);
}

/**
 * Record the scripts of every command hook in `config`, run in `base` (once per hook: its first
 * record stands), and the data they read against `trust` (the run's `trust` option).
 */
export function pinHookScripts(config: HooksConfig | undefined, base: string, trust?: ProjectTrust): void {
  for (const groups of Object.values(config ?? {}))
    for (const group of groups ?? [])
      for (const hook of group.hooks)
        if (typeof hook !== "function" && hook.type === "command" && !recorded.has(hook)) record(hook, base, trust);
}

/**
 * The first script `hook` names that, run in `base`, is not what was recorded (changed, removed,
 * made, or unreadable now), or undefined. A hook not recorded yet is recorded now.
 */
export function changedHookScript(hook: CommandHook, base: string): string | undefined {
  const pins = recorded.get(hook);
  if (!pins) return void record(hook, base);
  for (const [key, state] of pins) if (stateOf(key, base, hook) !== state) return resolve(base, key);
  return undefined;
}
