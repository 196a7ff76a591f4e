/**
 * `loadConfig()`: find and load `ubiquity.config.ts` (or `.ubiquityrc*`, or package.json's
 * `"ubiquity"` key), resolve its plugin/preset specifiers and validate it. cosmiconfig finds
 * the file; jiti loads TypeScript (cosmiconfig's own TS path is Node's type stripping, which
 * rejects enums and plain `import` of types); YAML goes through the `yaml` package.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { cosmiconfig, type Loader } from "cosmiconfig";
import { parse as parseYaml } from "yaml";
import { ConfigError, describeError } from "../errors";
import { validateConfig } from "../kernel";
import { expandPlugins } from "../preset";
import { describeValue } from "../plugin";
import type { Preset } from "../preset";
import type { UbiquityConfig } from "./schema";
import { createModuleLoader, moduleError } from "./module";
import { resolveEntries } from "./resolve";

/** Where `loadConfig` looks, in one folder (the first folder that has one wins). */
export const CONFIG_SEARCH_PLACES: readonly string[] = [
  "package.json",
  ...["ts", "mts", "cts", "js", "mjs", "cjs"].map((ext) => `ubiquity.config.${ext}`),
  ".ubiquityrc",
  ".ubiquityrc.json",
  ".ubiquityrc.yaml",
  ".ubiquityrc.yml",
  ...["", ".json", ".yaml", ".yml", ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"].map((ext) => `.config/ubiquityrc${ext}`),
];

/** Options of `loadConfig`. */
export interface LoadConfigOptions {
  /** Where the search starts (and what a function config receives) [process.cwd()]. */
  cwd?: string;
  /** Load this file (relative to `cwd`) instead of searching. */
  configFile?: string;
  /** Passed to a function config as `command` (`run`, `inspect`, ...) ["api"]. */
  command?: string;
  /**
   * Presets the config runs with when it names none (the runner passes the default preset),
   * so keys claimed by their plugins (`configKey`) validate.
   */
  defaultPresets?: () => Promise<Preset[]>;
}

/** What `loadConfig` found: the resolved config and its file, or `null`s when there is none. */
export type LoadedConfig = { config: UbiquityConfig; filepath: string } | { config: null; filepath: null };

const loadScript: Loader = async (filepath) => createModuleLoader(dirname(filepath), filepath).importDefault(filepath);

const loadYaml: Loader = (filepath, content) => {
  try {
    // An empty document (only comments) counts as an empty file, not as `null`.
    return parseYaml(content) ?? undefined;
  } catch (error) {
    throw new ConfigError(`invalid YAML: ${describeError(error).split("\n")[0]!.replace(/:$/, "")}`, filepath);
  }
};

const loadJson: Loader = (filepath, content) => {
  try {
    return JSON.parse(content) as unknown;
  } catch (error) {
    throw new ConfigError(`invalid JSON: ${describeError(error)}`, filepath);
  }
};

const LOADERS = {
  ".ts": loadScript,
  ".mts": loadScript,
  ".cts": loadScript,
  ".js": loadScript,
  ".mjs": loadScript,
  ".cjs": loadScript,
  ".json": loadJson,
  ".yaml": loadYaml,
  ".yml": loadYaml,
  noExt: loadYaml,
};

/**
 * Find, load, resolve and validate the Ubiquity config. Every failure is a `ConfigError` whose
 * message names the file and the problem.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const explorer = cosmiconfig("ubiquity", {
    searchPlaces: [...CONFIG_SEARCH_PLACES],
    loaders: LOADERS,
    // Walk up to the project root (the nearest package.json), like ESLint and Prettier.
    searchStrategy: "project",
    cache: false,
  });

  const explicit = options.configFile ? resolve(cwd, options.configFile) : undefined;
  if (explicit && !existsSync(explicit)) throw new ConfigError("config file not found (given with --config / configFile)", explicit);
  let found: { config: unknown; filepath: string } | null;
  try {
    found = explicit ? await explorer.load(explicit) : await explorer.search(cwd);
  } catch (error) {
    const file = (error as { filepath?: string }).filepath ?? explicit ?? cwd;
    throw moduleError(error, file);
  }
  if (!found) return { config: null, filepath: null };
  const filepath = found.filepath;
  if (!explicit) assertOnlyConfigIn(filepath);

  return { config: await prepare(found.config, filepath, cwd, options), filepath };
}

/** Call a function export, resolve specifiers, validate; errors are pinned to `filepath`. */
async function prepare(exported: unknown, filepath: string, cwd: string, options: LoadConfigOptions): Promise<UbiquityConfig> {
  try {
    let raw: unknown = exported ?? {};
    if (typeof raw === "function") raw = await (raw as (env: { cwd: string; command: string }) => unknown)({ cwd, command: options.command ?? "api" });
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new ConfigError(`the config must be an object (or a function returning one), got ${describeValue(raw)}`);
    }
    const config = await resolveEntries(raw as UbiquityConfig, dirname(filepath));
    const presets = config.presets ?? (await options.defaultPresets?.()) ?? [];
    const expansion = expandPlugins({ ...config, presets });
    const claimed = new Set(expansion.plugins.map((p) => p.plugin.configKey).filter((k): k is string => !!k));
    validateConfig(config as Record<string, unknown>, claimed);
    return config;
  } catch (error) {
    throw pinToFile(error, filepath);
  }
}

/** Attach the config file to an error that does not name a file yet. */
export function pinToFile(error: unknown, filepath: string): ConfigError {
  if (error instanceof ConfigError) return error.file || error.message.startsWith(filepath) ? error : new ConfigError(error.message, filepath);
  if (error instanceof Error && error.name === "PluginResolutionError") return new ConfigError(error.message, filepath);
  return moduleError(error, filepath);
}

/** Two config files in one folder would make the choice silent; refuse and name both. */
function assertOnlyConfigIn(filepath: string) {
  const inDotConfig = basename(dirname(filepath)) === ".config";
  const folder = inDotConfig ? dirname(dirname(filepath)) : dirname(filepath);
  const present = CONFIG_SEARCH_PLACES.filter((place) => {
    const file = join(folder, place);
    if (!existsSync(file)) return false;
    if (place !== "package.json") return true;
    try {
      return (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>).ubiquity !== undefined;
    } catch {
      return false;
    }
  });
  if (present.length > 1) {
    throw new ConfigError(
      `${present.length} config files in one folder: ${present.join(", ")}; keep one (move the settings into it and delete the others)`,
      folder,
    );
  }
}
