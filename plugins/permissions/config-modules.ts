/**
 * The local modules a project's config file loads (the ones trust pins with it): the config may
 * load one lazily during the run (`await import("./lib/policy.mjs")` in a hook or a tool), in
 * this very process, outside the sandbox, after the run's own edits. A write to one grants what a
 * write to the config file does (red team k, K4), so it is sensitive like the config file itself.
 */
import { readFileSync, statSync } from "node:fs";
import {
  CONFIG_SEARCH_PLACES,
  configFilesIn,
  configGraph,
  configSearchFolders,
  runConfigFiles,
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

/**
 * The config file that loads `path` as a module of its own: one this process was started with
 * (`--config`, whatever its name), or one the search would find from a permitted root.
 */
export function configModuleOf(path: string, roots: readonly string[]): string | undefined {
  for (const config of runConfigFiles()) if (modulesOf(config).has(path)) return config;
  for (const root of roots) {
    let folders: string[];
    try {
      folders = configSearchFolders(root);
    } catch {
      continue;
    }
    for (const folder of folders) {
      let configs: string[];
      try {
        configs = configFilesIn(folder, CONFIG_SEARCH_PLACES, packageHasKey);
      } catch {
        continue;
      }
      for (const config of configs) if (modulesOf(config).has(path)) return config;
    }
  }
  return undefined;
}
