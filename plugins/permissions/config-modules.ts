/**
 * The code a project's config file loads (the modules trust pins with it, and the installed
 * packages it imports with their dependencies): the config may load a module lazily during the
 * run (`await import("./lib/policy.mjs")` in a hook or a tool), in this very process, outside the
 * sandbox, after the run's own edits, and the next start loads all of it there. A write to one
 * grants what a write to the config file does (red team k, K4), so it is sensitive like the config
 * file itself. The installed packages are the sandbox's read-only ones (loader's installed-code).
 */
import { readFileSync, statSync } from "node:fs";
import { sep } from "node:path";
import {
  CONFIG_SEARCH_PLACES,
  configFilesIn,
  configGraph,
  configSearchFolders,
  installedClosure,
  runConfigFiles,
  shadowingPlaces,
} from "../../loader/index";

/** package.json is a config file only with a "ubiquity" key (an unreadable one may be: fail closed). */
function packageHasKey(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown> | null)?.ubiquity !== undefined;
  } catch {
    return true;
  }
}

const stamp = (file: string) => {
  const s = statSync(file, { throwIfNoEntry: false });
  return s ? `${s.mtimeMs}:${s.size}:${s.ino}` : "-";
};

/** Each config file's modules, with the stamps (config and modules) they were read under. */
const graphs = new Map<string, { stamps: string; modules: ReadonlySet<string> }>();

function modulesOf(config: string): ReadonlySet<string> {
  const known = graphs.get(config);
  if (known && known.stamps === [config, ...known.modules].map(stamp).join("|")) return known.modules;
  let modules: ReadonlySet<string>;
  try {
    modules = new Set(configGraph(config).modules);
  } catch {
    modules = new Set();
  }
  graphs.set(config, { stamps: [config, ...modules].map(stamp).join("|"), modules });
  return modules;
}

/** Each config file's installed packages (real folders) and the places one would be found first, as last read. */
const packages = new Map<string, { stamps: string; roots: string; places: readonly string[] }>();

function packagesOf(config: string, roots: readonly string[]): readonly string[] {
  const stamps = [config, ...modulesOf(config)].map(stamp).join("|");
  const key = roots.join("\0");
  const known = packages.get(config);
  if (known && known.stamps === stamps && known.roots === key) return known.places;
  let places: string[];
  try {
    places = [...installedClosure(config), ...shadowingPlaces(config, roots)];
  } catch {
    places = [];
  }
  packages.set(config, { stamps, roots: key, places });
  return places;
}

/** The config files that apply: the ones this process was started with, and those the search finds from a permitted root. */
function* configsFor(roots: readonly string[]): Generator<string> {
  yield* runConfigFiles();
  for (const root of roots) {
    let folders: string[];
    try {
      folders = configSearchFolders(root);
    } catch {
      continue;
    }
    for (const folder of folders) {
      try {
        yield* configFilesIn(folder, CONFIG_SEARCH_PLACES, packageHasKey);
      } catch {
        // an unreadable folder: no config from it
      }
    }
  }
}

/** What a config file loads that `path` is (or is in), if anything: one of its modules, or an installed package of its. */
export function configCodeOf(
  path: string,
  roots: readonly string[],
): { config: string; module: true } | { config: string; package: string } | undefined {
  for (const config of configsFor(roots)) {
    if (modulesOf(config).has(path)) return { config, module: true };
    const place = packagesOf(config, roots).find((p) => path === p || path.startsWith(`${p}${sep}`));
    if (place) return { config, package: place };
  }
  return undefined;
}
