/** How every runner command loads the config: trust decided first, the default preset when none is named. */
import { dirname, resolve } from "node:path";
import { createKernel, type Kernel } from "../src/kernel";
import { loadConfig, UsageError } from "../loader/index";
import { parseCompatFlag } from "../plugins/_kits/sources/index";
import { defaultPreset } from "../sdk/facade";
import { consoleLogger } from "../sdk/console-logger";
import type { UbiquityConfig } from "../src/config/schema";
import { decideTrust, untrustedWarning, type TrustAsk, type TrustDecision } from "./trust";
import type { CliArgs, CliFlag } from "./types";
import { composeConfigSchema, ConfigSchema, expandPlugins } from "../src/index";

/**
 * Whether the kernel or a plugin `config` lists (presets, plugins and `disable` applied) declares
 * the option `key`: the runner fills its defaults (`settingSources`, `trust`, `canUseTool`) only then.
 */
export function declaresOption(config: UbiquityConfig, key: string): boolean {
  if (key in ConfigSchema.shape) return true;
  try {
    return composeConfigSchema(expandPlugins(config).plugins.map((p) => p.plugin)).declarers.has(key);
  } catch {
    return true; // a list that does not expand fails at createKernel, with its own error
  }
}

/** The flags every config-reading command shares. */
export const CONFIG_FLAGS: Record<string, CliFlag> = {
  config: { type: "string", value: "<file>", description: "Use this config file (skips the search)" },
  cwd: { type: "string", value: "<dir>", description: "Working directory; the config search starts here [.]" },
  trust: {
    type: "boolean",
    description: "Apply this folder's own config and settings for this run (not remembered; also UBIQUITY_TRUST=1)",
  },
  // As `run --compat`: `ubiquity mcp list --compat codex` sees the servers the run would start.
  compat: {
    type: "string",
    value: "<tools>",
    description:
      "Read Claude Code's or Codex's files too, as run --compat does: claude, codex or claude,codex (the compat option; also UBIQUITY_COMPAT)",
  },
};

/** Where the settings plugin reads from in the runner unless the config says otherwise, as `claude -p` does. */
export const RUNNER_SETTING_SOURCES = ["user", "project", "local"] as const;

/** How a config-reading command talks to the user about trust. */
export interface TrustIO {
  /** Present only in a terminal: asks the trust question. */
  ask?: TrustAsk;
  /** Prints the warning naming what an untrusted folder's run skipped. */
  warn?: (line: string) => void;
}

/** What `loadCliConfig` resolves to. */
export interface LoadedCliConfig {
  config: UbiquityConfig;
  filepath: string | null;
  trust: TrustDecision;
  /** A project config that was found but not loaded, because its folder is not trusted. */
  skipped: readonly string[];
}

/**
 * The trust decision as the warning tells it: a config file named with `--config` is the caller's
 * and was loaded whatever the folder's trust (the loader's rule), so the warning must not list it
 * (or the modules it imports) among the files "not applied". The decision itself is unchanged.
 */
function withoutNamedConfig(trust: TrustDecision, filepath: string | null, named: unknown): TrustDecision {
  if (typeof named !== "string" || !filepath) return trust;
  // The file itself, and the local modules it imports (listed as `<config> → <specifier>`).
  const applied = (path: string) => path === filepath || path.startsWith(`${filepath} → `);
  return {
    ...trust,
    files: trust.files.filter((f) => !applied(f.path)),
    unapproved: trust.unapproved.filter((f) => !applied(f.path)),
  };
}

/**
 * Load the config the way every command does: decide whether the folder is trusted, then
 * `--config` or the search from `--cwd` (a project's config only when trusted), string
 * specifiers resolved, the default preset when the config names no presets, settings from the
 * user, project and local files unless the config picks, and `trust` passed on so the plugins
 * skip an untrusted folder's own files.
 */
export async function loadCliConfig(
  values: CliArgs["values"],
  command: string,
  io: TrustIO = {},
): Promise<LoadedCliConfig> {
  const cwd = resolve(typeof values.cwd === "string" ? values.cwd : process.cwd());
  const trust = await decideTrust({ cwd, flag: values.trust === true, ask: io.ask });
  const defaults = async () => [await defaultPreset()];
  const loaded = await loadConfig({
    cwd,
    configFile: typeof values.config === "string" ? values.config : undefined,
    command,
    defaultPresets: defaults,
    trust: trust.option,
  });
  const warning = untrustedWarning(withoutNamedConfig(trust, loaded.filepath, values.config), cwd);
  if (warning) (io.warn ?? ((line: string) => void process.stderr.write(`${line}\n`)))(warning);
  const config: UbiquityConfig = { ...(loaded.config ?? {}) };
  config.presets ??= await defaults();
  // Only for a plugin list that reads them (a bare kernel would reject them as unknown keys).
  if (declaresOption(config, "settingSources")) config.settingSources ??= [...RUNNER_SETTING_SOURCES];
  // The folder's files stay out unless it is trusted — and then each only while unchanged since
  // it was approved — whoever's config asked for them.
  if (trust.option !== true && declaresOption(config, "trust")) config.trust = trust.option;
  if (typeof values.compat === "string") {
    if (!declaresOption(config, "compat"))
      throw new UsageError(
        "--compat: no plugin of this config reads other tools' files (the default preset's settings, memory, skills, agents and commands plugins do)",
      );
    config.compat = parseCompatFlag(values.compat);
  } else compatFromEnv(config);
  // --cwd wins over the config's `cwd`; a relative `cwd` in the config is relative to its folder.
  if (typeof values.cwd === "string" || config.cwd === undefined) config.cwd = cwd;
  else config.cwd = resolve(loaded.filepath ? dirname(loaded.filepath) : cwd, config.cwd);
  return { config, filepath: loaded.filepath, trust, skipped: loaded.skipped };
}

/**
 * UBIQUITY_COMPAT (`claude`, `codex`, `claude,codex`): `--compat` for every run of the job or shell,
 * as UBIQUITY_MESSAGE_FORMAT is `--message-format`'s. Someone who runs ubiquity where `claude` ran
 * cannot put the flag in a shell alias (scripts do not read aliases) nor in a wrapper (`ubiquity
 * --compat claude --version` is refused); a config's own `compat` wins over it, and the folder's
 * files still apply only when it is trusted.
 */
function compatFromEnv(config: UbiquityConfig): void {
  const value = process.env.UBIQUITY_COMPAT?.trim();
  if (!value || config.compat !== undefined || !declaresOption(config, "compat")) return;
  try {
    config.compat = parseCompatFlag(value);
  } catch (error) {
    throw new UsageError(`UBIQUITY_COMPAT: ${(error as Error).message.replace(/^--compat /, "")}`);
  }
}

/** Build a kernel for a loaded config; an error names the config file it came from. */
export function kernelFor(config: UbiquityConfig, filepath: string | null): Kernel {
  try {
    return createKernel({ logger: consoleLogger(), ...config });
  } catch (error) {
    // Keep the error's class (PluginError, ConfigError) but say which config file it came from.
    if (filepath && error instanceof Error && !error.message.startsWith(filepath))
      error.message = `${filepath}: ${error.message}`;
    throw error;
  }
}
