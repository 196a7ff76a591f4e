/**
 * `loadConfig()`: find and load `ubiquity.config.ts` (or `.ubiquityrc*`, or package.json's
 * `"ubiquity"` key), resolve its plugin/preset specifiers and validate it. cosmiconfig finds
 * the file; jiti loads TypeScript (cosmiconfig's own TS path is Node's type stripping, which
 * rejects enums and plain `import` of types); YAML goes through the `yaml` package.
 */
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import type { Loader } from "cosmiconfig";
import {
  ConfigError,
  describeError,
  describeValue,
  expandPlugins,
  validateConfig,
  type Preset,
  type UbiquityConfig,
} from "../src/index";
import { createModuleLoader, moduleError } from "./module";
import { rememberRunConfigFile } from "./run-config-files";
import { resolveEntries } from "./resolve";
import { CONFIG_SEARCH_PLACES, configFilesIn, configSearchFolders } from "./search";
import { describeFileKind, readRegularFileSync } from "./safe-read";
import { readTrustStore, trustPinsFor } from "./trust-store";
import type { ProjectTrust } from "./trust-pins";
import { isConfigTrusted } from "./project-files";

export { CONFIG_SEARCH_PLACES } from "./search";

/** What a function config export receives. */
export interface ConfigEnv {
  cwd: string;
  /** The runner command (`run`, `inspect`, ...) or `"api"` for loadConfig() from code. */
  command: string;
}

/** Options of `loadConfig`. */
export interface LoadConfigOptions {
  /** Where the search starts (and what a function config receives) [process.cwd()]. */
  cwd?: string;
  /** Load this file (relative to `cwd`) instead of searching. A file named here is the caller's: trust does not apply. */
  configFile?: string;
  /** Passed to a function config as `command` (`run`, `inspect`, ...) ["api"]. */
  command?: string;
  /**
   * Whether a config file the search finds in the project may apply (it may run as code). `true`:
   * it applies; `false`: it is skipped; `TrustPins`: it applies only while its contents are the
   * ones approved; unset: the user's trust store decides the same way (`ubiquity trust`), and
   * `UBIQUITY_TRUST=1` counts as `true`. A config found in the user's home always applies.
   */
  trust?: ProjectTrust;
  /** The user's home: where the search stops and whose files are the user's own [os.homedir()]. */
  home?: string;
  /**
   * Presets the config runs with when it names none (the runner passes the default preset),
   * so keys claimed by their plugins (`configKey`) validate.
   */
  defaultPresets?: () => Promise<Preset[]>;
}

/**
 * What `loadConfig` found: the resolved config and its file, or `null`s when there is none (or
 * the one found was skipped). `skipped` names a project config that was not loaded because its
 * folder is not trusted.
 */
export type LoadedConfig =
  | { config: UbiquityConfig; filepath: string; skipped: readonly string[] }
  | { config: null; filepath: null; skipped: readonly string[] };

/** True when `UBIQUITY_TRUST` asks to trust the project for this process (`1`, `true`, `yes`). */
export function trustFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes)$/i.test(env.UBIQUITY_TRUST?.trim() ?? "");
}

const loadScript: Loader = async (filepath) => createModuleLoader(dirname(filepath), filepath).importDefault(filepath);

// cosmiconfig, yaml and jiti load only when there is a config file to load (cold start).
const loadYaml: Loader = async (filepath, content) => {
  try {
    // An empty document (only comments) counts as an empty file, not as `null`.
    return (await import("yaml")).parse(content) ?? undefined;
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
 * message names the file and the problem. The search stops at the project root or the user's
 * home (see `configSearchFolders`); a project's config is loaded only when its folder is trusted.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const home = resolve(options.home ?? homedir());
  const explicit = options.configFile ? resolve(cwd, options.configFile) : undefined;
  if (explicit) {
    const stats = statOrUndefined(explicit);
    if (!stats) throw new ConfigError("config file not found (given with --config / configFile)", explicit);
    if (!stats.isFile())
      throw new ConfigError(`a config file must be a regular file, this is ${describeFileKind(stats)}`, explicit);
  }
  const filepath = explicit ?? findConfigFile(cwd, home);
  if (!filepath) return { config: null, filepath: null, skipped: [] };
  const ownedByUser =
    explicit !== undefined || dirname(filepath) === home || dirname(filepath) === join(home, ".config");
  if (
    !ownedByUser &&
    !isConfigTrusted(
      options.trust ?? (trustFromEnv() || (trustPinsFor(cwd, readTrustStore(home), home)?.pins ?? false)),
      filepath,
    )
  ) {
    return { config: null, filepath: null, skipped: [filepath] };
  }
  assertSize(filepath);
  rememberRunConfigFile(filepath);
  // cosmiconfig loads only now, with a file to load. The walk is ours (configSearchFolders):
  // cosmiconfig only loads the file we chose.
  const explorer = (await import("cosmiconfig")).cosmiconfig("ubiquity", {
    searchPlaces: [...CONFIG_SEARCH_PLACES],
    loaders: LOADERS,
    searchStrategy: "none",
    cache: false,
  });
  let found: { config: unknown; filepath: string } | null;
  try {
    found = await explorer.load(filepath);
  } catch (error) {
    throw moduleError(error, (error as { filepath?: string }).filepath ?? filepath);
  }
  if (!found) return { config: null, filepath: null, skipped: [] };
  return { config: await prepare(found.config, filepath, cwd, options), filepath, skipped: [] };
}

/** The config file the search finds from `cwd` (the nearest folder holding one), without loading it. */
export function findConfigFile(cwd: string, home: string = homedir()): string | undefined {
  for (const folder of configSearchFolders(cwd, home)) {
    const files = configFilesIn(folder, CONFIG_SEARCH_PLACES, packageHasConfigKey);
    if (files.length > 1) {
      const names = files.map((f) => relative(folder, f));
      throw new ConfigError(
        `${files.length} config files in one folder: ${names.join(", ")}; keep one (move the settings into it and delete the others)`,
        folder,
      );
    }
    if (files[0]) return files[0];
  }
  return undefined;
}

const MAX_CONFIG_BYTES = 1024 * 1024;

function statOrUndefined(file: string) {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

function assertSize(file: string) {
  const size = statOrUndefined(file)?.size ?? 0;
  if (size > MAX_CONFIG_BYTES)
    throw new ConfigError(`the config file is ${size} bytes, over the ${MAX_CONFIG_BYTES}-byte limit`, file);
}

/** A package.json counts as a config when it has a "ubiquity" key; one that cannot be parsed counts too, so loading it reports the problem. */
function packageHasConfigKey(file: string): boolean {
  const read = readRegularFileSync(file, MAX_CONFIG_BYTES);
  if (!read.ok) return !read.missing;
  try {
    return (JSON.parse(read.text) as Record<string, unknown> | null)?.ubiquity !== undefined;
  } catch {
    return true;
  }
}

/** Call a function export, resolve specifiers, validate; errors are pinned to `filepath`. */
async function prepare(
  exported: unknown,
  filepath: string,
  cwd: string,
  options: LoadConfigOptions,
): Promise<UbiquityConfig> {
  try {
    let raw: unknown = exported ?? {};
    if (typeof raw === "function")
      raw = await (raw as (env: ConfigEnv) => unknown)({ cwd, command: options.command ?? "api" });
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new ConfigError(`the config must be an object (or a function returning one), got ${describeValue(raw)}`);
    }
    const config = await resolveEntries(raw as UbiquityConfig, dirname(filepath));
    const presets = config.presets ?? (await options.defaultPresets?.()) ?? [];
    const expansion = expandPlugins({ ...config, presets });
    const claimed = new Set(expansion.plugins.map((p) => p.plugin.configKey).filter((k): k is string => !!k));
    validateConfig(config as Record<string, unknown>, claimed, undefined, {
      plugins: expansion.plugins.map((p) => p.plugin),
      disabled: expansion.disabled.map((p) => p.plugin),
    });
    return config;
  } catch (error) {
    throw pinToFile(error, filepath);
  }
}

/** Attach the config file to an error that does not name a file yet. */
export function pinToFile(error: unknown, filepath: string): ConfigError {
  if (error instanceof ConfigError)
    return error.file || error.message.startsWith(filepath) ? error : new ConfigError(error.message, filepath);
  if (error instanceof Error && error.name === "PluginResolutionError") return new ConfigError(error.message, filepath);
  return moduleError(error, filepath);
}
