/**
 * The code a project's config file loads (the modules trust pins with it, and the installed
 * packages it imports with their dependencies): the config may load a module lazily during the
 * run (`await import("./lib/policy.mjs")` in a hook or a tool), in this very process, outside the
 * sandbox, after the run's own edits, and the next start loads all of it there. A write to one
 * grants what a write to the config file does (red team k, K4), so it is sensitive like the config
 * file itself. The installed packages are the sandbox's read-only ones (loader's installed-code).
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import {
  CONFIG_SEARCH_PLACES,
  configFilesIn,
  configGraph,
  configSearchFolders,
  configPackagePlaces,
  readRegularFileSync,
  runConfigFiles,
} from "../../loader/index";

/** package.json is a config file only with a "ubiquity" key (an unreadable one may be: fail closed). */
function packageHasKey(file: string): boolean {
  try {
    // A regular file only, opened without blocking: a FIFO named package.json held the host.
    const read = readRegularFileSync(file, 16 * 1024 * 1024);
    if (!read.ok) return true;
    return (JSON.parse(read.text) as Record<string, unknown> | null)?.ubiquity !== undefined;
  } catch {
    return true;
  }
}

/**
 * What a file's or folder's change changes: its status-change time (which, unlike the modification
 * time, no process can set back), modification time, size and inode.
 */
const stamp = (file: string) => {
  const s = statSync(file, { throwIfNoEntry: false });
  return s ? `${s.ctimeMs}:${s.mtimeMs}:${s.size}:${s.ino}` : "-";
};

/**
 * File times come from a coarse clock (a few milliseconds a tick): a change in the tick of the
 * last one leaves the times as they were. Stamps this recent are not trusted to tell a change.
 */
const RACY_MS = 2000;

/** Each config file's modules, with the stamps (config and modules) they were read under. */
const graphs = new Map<string, { stamps: string; modules: ReadonlySet<string> }>();

function modulesOf(config: string): ReadonlySet<string> {
  const known = graphs.get(config);
  if (known && known.stamps === [config, ...known.modules].map(stamp).join("|")) return known.modules;
  let modules: ReadonlySet<string>;
  try {
    // And the names an import would load instead if a file were made there (red team zp, ZP2).
    const graph = configGraph(config);
    modules = new Set([...graph.modules, ...graph.shadows]);
    // The installed packages it loads a file of by path (`./node_modules/x/y.mjs`: red team zp, ZP5).
    byPath.set(config, graph.installed);
  } catch {
    modules = new Set();
  }
  graphs.set(config, { stamps: [config, ...modules].map(stamp).join("|"), modules });
  return modules;
}

/** Each config file's installed packages it loads a file of by its path, as its modules were last read. */
const byPath = new Map<string, readonly string[]>();

/** Each config file's installed packages (real folders) and the places one would be found first, as last read. */
const packages = new Map<string, { stamps: string; roots: string; places: readonly string[] }>();

function packagesOf(config: string, roots: readonly string[]): readonly string[] {
  const stamps = [config, ...modulesOf(config)].map(stamp).join("|");
  const key = roots.join("\0");
  const known = packages.get(config);
  if (known && known.stamps === stamps && known.roots === key) return known.places;
  let places: string[];
  try {
    const { installed, shadowing } = configPackagePlaces(config, roots);
    places = [...installed, ...shadowing, ...(byPath.get(config) ?? [])];
  } catch {
    places = [];
  }
  packages.set(config, { stamps, roots: key, places });
  return places;
}

/** The config files that apply: the ones this process was started with, and those the search finds from a permitted root. */
function* configsFor(roots: readonly string[]): Generator<string> {
  yield* runConfigFiles();
  for (const root of roots) yield* configsFrom(root);
}

/** What the config search found from each root, and the stamps it was found under. */
const searched = new Map<string, { stamps: string; folders: readonly string[]; files: readonly string[] }>();

/**
 * The config files the search finds from `root`. It runs at every decision on a written path
 * (21 places in each folder, ~0.5 ms); kept while nothing it depends on changed: each folder from
 * `root` up to `/` (an entry made, removed or renamed in one changes its time: a `.git`, a
 * package.json or a config appearing), and each searched folder's `.config` and package.json
 * (whose "ubiquity" key makes it a config). A place that is a link naming nothing now would
 * count once its target appears, which changes no folder here: then nothing is kept.
 */
function configsFrom(root: string): readonly string[] {
  const known = searched.get(root);
  if (known && known.stamps === [ancestorStamps(root), folderStamps(known.folders)].join("|")) return known.files;
  // Stamped before what they stamp is read: a change after a stamp shows at the next decision.
  const ancestors = ancestorStamps(root);
  let folders: string[];
  try {
    folders = configSearchFolders(root);
  } catch {
    return [];
  }
  const stamps = [ancestors, folderStamps(folders)].join("|");
  const files: string[] = [];
  let keep = !racy(root, folders);
  for (const folder of folders) {
    try {
      const found = configFilesIn(folder, CONFIG_SEARCH_PLACES, packageHasKey);
      files.push(...found);
      keep &&= !danglingPlace(folder, found);
    } catch {
      keep = false; // an unreadable folder: no config from it, for now
    }
  }
  if (keep) searched.set(root, { stamps, folders, files });
  else searched.delete(root);
  return files;
}

/** Each folder from `root` up to `/` (see configsFrom). */
function ancestorStamps(root: string): string {
  const out: string[] = [];
  for (let dir = resolve(root); ; dir = dirname(dir)) {
    out.push(stamp(dir));
    if (dirname(dir) === dir) return out.join("|");
  }
}

/** Each searched folder's `.config` and package.json (see configsFrom). */
function folderStamps(folders: readonly string[]): string {
  return folders.map((folder) => `${stamp(join(folder, ".config"))}|${stamp(join(folder, "package.json"))}`).join("|");
}

/** Did anything the search from `root` depends on change within RACY_MS? */
function racy(root: string, folders: readonly string[]): boolean {
  const paths = [...folders.flatMap((f) => [join(f, ".config"), join(f, "package.json")])];
  for (let dir = resolve(root); ; dir = dirname(dir)) {
    paths.push(dir);
    if (dirname(dir) === dir) break;
  }
  const now = Date.now();
  return paths.some((p) => (statSync(p, { throwIfNoEntry: false })?.ctimeMs ?? 0) > now - RACY_MS);
}

/** Does `folder` hold a search place the search did not list (a link naming nothing, a package.json without the key is listed by name)? */
function danglingPlace(folder: string, found: readonly string[]): boolean {
  const names = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  const listed = new Set(found);
  const present = [
    ...names(folder).map((n) => join(folder, n)),
    ...names(join(folder, ".config")).map((n) => join(folder, ".config", n)),
  ];
  const places = new Set(CONFIG_SEARCH_PLACES.map((p) => join(folder, p)));
  return present.some((file) => places.has(file) && !listed.has(file) && !file.endsWith(`${sep}package.json`));
}

/** What a config file loads that one of `paths` (a path's forms) is (or is in), if anything: one of its modules, or an installed package of its. */
export function configCodeOf(
  paths: readonly string[],
  roots: readonly string[],
): { config: string; module: true } | { config: string; package: string } | undefined {
  for (const config of configsFor(roots)) {
    const modules = modulesOf(config);
    if (paths.some((path) => modules.has(path))) return { config, module: true };
    const places = packagesOf(config, roots);
    const place = places.find((p) => paths.some((path) => path === p || path.startsWith(`${p}${sep}`)));
    if (place) return { config, package: place };
  }
  return undefined;
}
