/**
 * A folder's own files that can run code or change what the agent may do, found without
 * running or applying any of them — for the trust prompt and for the warning naming what an
 * untrusted folder's run skipped. The kernel lists the config files its search would load;
 * each plugin lists the files of its own that it would apply (`plugin.projectFiles`).
 */
import { type Dirent, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, extname, join, relative, resolve, sep } from "node:path";
import { CONFIG_SEARCH_PLACES, configSearchFolders } from "./search";
import { peekJsonOrYaml } from "./safe-read";
import { configGraph } from "./config-graph";

export { peekJsonOrYaml } from "./safe-read";
import type { Plugin } from "../src/index";
import type { ProjectFile, ProjectPlace } from "./plugin-contract";
import {
  digestProjectPath,
  filesNamedBy,
  hookDataDigests,
  isProjectFileTrusted,
  isUsersOwn,
  pinKey,
  TrustPins,
  type PinProblem,
  type ProjectTrust,
} from "./trust-pins";

const SCRIPT = new Set([".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"]);

/**
 * The project's own files under `cwd` (and between it and the config search's stop): the config
 * files, and what each plugin of `plugins` says it would apply there.
 */
export function findProjectFiles(
  cwd: string,
  home: string = homedir(),
  plugins: readonly Pick<Plugin, "projectFiles">[] = [],
  options: FindOptions = {},
): ProjectFile[] {
  const root = resolve(cwd);
  const homeDir = resolve(home);
  return filesOfPlace({ cwd: root, folders: configSearchFolders(root, homeDir), home: homeDir }, plugins, options);
}

/** Options of `findProjectFiles`. */
export interface FindOptions {
  /**
   * List the local modules each config file loads too (`configGraph`), and an entry that can never
   * be approved for each import that cannot be followed. Wanted under pins (each is checked) and
   * when recording them; skipped otherwise, to keep runs that check nothing lean.
   */
  imports?: boolean;
}

/** The config files in `place.folders` and what each plugin lists for `place`, without the user's own. */
function filesOfPlace(
  place: ProjectPlace,
  plugins: readonly Pick<Plugin, "projectFiles">[],
  options: FindOptions,
): ProjectFile[] {
  const out: ProjectFile[] = [];
  for (const folder of place.folders) {
    for (const name of CONFIG_SEARCH_PLACES) {
      const file = join(folder, name);
      if (!pathExists(file)) continue;
      const effect = describeConfig(file, name === "package.json");
      if (!effect) continue;
      out.push({ path: file, kind: "config", effect });
      if (options.imports) out.push(...configModuleFiles(file));
    }
  }
  for (const plugin of plugins) out.push(...(plugin.projectFiles?.(place) ?? []));
  return out.filter((file) => !isUsersOwn(file.path, place.home));
}

/**
 * The modules a config file loads, as project files of their own: each applies (and the config with
 * it) only while approved. An import that cannot be followed is listed under a name no file has,
 * so it is never approved and the config never applies under pins while it is there (fail closed).
 */
function configModuleFiles(configFile: string): ProjectFile[] {
  const name = basename(configFile);
  const graph = configGraph(configFile);
  return [
    ...graph.modules.map((path) => ({
      path,
      kind: "config",
      effect:
        basename(path) === "package.json"
          ? `its \`imports\` map decides what ${name} loads; ${name} applies only while it is approved`
          : `loaded by ${name}, runs as code; ${name} applies only while it is approved`,
    })),
    ...graph.unfollowed.map(({ from, specifier }) => {
      const file = {
        path: `${from} → ${printable(specifier, 80)}`,
        kind: "config",
        effect: `a load ubiquity cannot follow to a file, so it cannot be approved: ${name} does not apply under trust (use a plain relative import, or pass --trust)`,
      };
      unfollowedEntries.add(file);
      return file;
    }),
  ];
}

/** The entries standing for an import that cannot be followed: never recorded, even if a file were made at that odd name. */
const unfollowedEntries = new WeakSet<ProjectFile>();

/**
 * Whether a config file applies under `trust`: itself, and under pins every local module it
 * loads, unchanged since approved, with no load that cannot be followed.
 */
export function isConfigTrusted(trust: ProjectTrust | undefined, configFile: string): boolean {
  if (!isProjectFileTrusted(trust, configFile)) return false;
  if (!TrustPins.is(trust)) return true;
  const graph = configGraph(configFile);
  return graph.unfollowed.length === 0 && graph.modules.every((path) => trust.problem(path) === undefined);
}

/** Folders below a trusted one that are searched for files to pin; a larger tree is cut here (files past it stay untrusted). */
export const MAX_PIN_WALK_FOLDERS = 4000;
const MAX_PIN_WALK_DEPTH = 12;

/**
 * What trusting `dir` approves: the files a run in `dir` would apply (`findProjectFiles`) and
 * those a run in any folder below it would, found by a bounded walk that skips `node_modules`,
 * hidden folders and symlinked folders. The same listing the runs check against, so recording
 * and checking cannot drift.
 */
export function findFilesToPin(
  dir: string,
  home: string = homedir(),
  plugins: readonly Pick<Plugin, "projectFiles">[] = [],
): ProjectFile[] {
  const root = resolve(dir);
  const homeDir = resolve(home);
  const byPath = new Map<string, ProjectFile>();
  for (const file of findProjectFiles(root, homeDir, plugins, { imports: true })) byPath.set(file.path, file);
  const queue: { folder: string; depth: number }[] = [{ folder: root, depth: 0 }];
  for (let visited = 0; queue.length > 0 && visited < MAX_PIN_WALK_FOLDERS; visited++) {
    const { folder, depth } = queue.shift()!;
    if (folder !== root)
      for (const file of filesOfPlace({ cwd: folder, folders: [folder], home: homeDir }, plugins, { imports: true }))
        if (!byPath.has(file.path)) byPath.set(file.path, file);
    if (depth >= MAX_PIN_WALK_DEPTH) continue;
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith(".") || entry.name === "node_modules") continue;
      queue.push({ folder: join(folder, entry.name), depth: depth + 1 });
    }
  }
  return [...byPath.values()];
}

/** The digest of each of `files` by `pinKey`, for the trust store; a file that cannot be digested is left out (untrusted). */
export function digestsOf(files: readonly ProjectFile[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of files) {
    if (unfollowedEntries.has(file)) continue;
    // The scripts its words name, collected by the one digest (the hooks' data rests on them).
    const scripts = new Set<string>();
    const digest = digestProjectPath(file.path, scripts);
    if (!digest) continue;
    out[pinKey(file.path)] = digest;
    Object.assign(out, hookDataDigests(file.path, scripts));
  }
  return out;
}

/** A project file that does not apply under the approved digests, and why. */
export interface UntrustedFile extends ProjectFile {
  problem: PinProblem;
  /** For a changed file, the files pinned with it because it names them (`filesNamedBy`): one of them may be what changed. */
  named?: string[];
}

/** Those of `files` whose current contents were not approved (new, changed or unreadable since the folder was trusted). */
export function unapprovedFiles(files: readonly ProjectFile[], pins: TrustPins): UntrustedFile[] {
  return files.flatMap((file) => {
    const problem = pins.problem(file.path);
    if (!problem) return [];
    const named = problem === "changed" ? filesNamedBy(file.path) : [];
    return [named.length > 0 ? { ...file, problem, named } : { ...file, problem }];
  });
}

/** `path` relative to `cwd` when inside it (`./x` never; just `x`), else absolute. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") && !rel.startsWith(sep) ? rel : path;
}

/**
 * Text from an untrusted file, safe to show in the trust question: control characters (an
 * escape sequence could erase or rewrite the lines around it) become "?", and long values are cut.
 */
export function printable(text: unknown, max = 60): string {
  const flat = String(text).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, "?");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** True when something exists at `path` (a file, a folder, anything `stat` sees). */
export function pathExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function describeConfig(file: string, isPackageJson: boolean): string | undefined {
  if (SCRIPT.has(extname(file))) return "runs as code";
  const data = peekJsonOrYaml(file);
  const config = isPackageJson ? (data as Record<string, unknown> | undefined)?.ubiquity : data;
  if (isPackageJson && config === undefined) return undefined;
  if (!config || typeof config !== "object") return "sets run options";
  // Plugins and presets first: they run as code. Then the rest, as many as fit.
  const keys = Object.keys(config).sort((a, b) => Number(isCode(b)) - Number(isCode(a)));
  const loads = keys.some(isCode) ? "; its plugins and presets run as code" : "";
  const shown = keys.slice(0, 8).map((k) => printable(k, 30));
  return keys.length
    ? `sets ${shown.join(", ")}${keys.length > shown.length ? ", …" : ""}${loads}`
    : "sets run options";
}

const isCode = (key: string) => key === "plugins" || key === "presets";
