/**
 * The plugins of the active preset, and what they contribute to the runner: commands, `run`
 * flags, terminal answerers. Read from the config the command line names (`--config`, `--cwd`,
 * `--trust`, `--preset`) without building a kernel and without asking the trust question; when
 * the config cannot be loaded, the default preset's plugins stand in and the error is kept for
 * the command that reads the config.
 */
import { basename, resolve } from "node:path";
import { expandPlugins, type Preset } from "../src/preset";
import type { Plugin } from "../src/plugin";
import type { PluginCommand, TerminalAnswerer } from "../loader/index";
import { resolveEntries } from "../loader/index";
import { ConfigError } from "../src/errors";
import { didYouMean } from "../src/suggest";
import { defaultPreset } from "../sdk/facade";
import { loadCliConfig, type LoadedCliConfig } from "./config";
import type { RunValues } from "./flags";

/** The built-in presets by name, for `ubiquity run --preset`. Static imports, so the build resolves each file. */
export const BUILTIN_PRESETS = {
  default: () => import("../presets/default"),
  minimal: () => import("../presets/minimal"),
  headless: () => import("../presets/headless"),
  harness: () => import("../presets/harness"),
} as const satisfies Record<string, () => Promise<{ default: Preset }>>;

/** A preset by name: a built-in, else a module resolved from `cwd`. */
export async function presetByName(name: string, cwd: string): Promise<Preset> {
  // A built-in by its name, or by its preset name as `inspect` shows it (`ubiquity:minimal`).
  const load = (BUILTIN_PRESETS as Record<string, (() => Promise<{ default: Preset }>) | undefined>)[
    name.replace(/^ubiquity:/, "")
  ];
  if (load) return (await load()).default;
  const resolved = await resolveEntries({ presets: [name] }, cwd).catch((error: unknown) => {
    if (!(error instanceof ConfigError)) throw error;
    // A typo of a built-in is no package to install.
    const near = didYouMean(name, Object.keys(BUILTIN_PRESETS));
    if (near && !/[./]/.test(name))
      throw new ConfigError(
        `--preset ${name}: no such preset${near}; the built-in presets are ${Object.keys(BUILTIN_PRESETS).join(", ")}, or name a module`,
      );
    // A bare name may be meant as a built-in, so say which ones there are.
    const builtins = /[./]/.test(name) ? "" : ` (the built-in presets are ${Object.keys(BUILTIN_PRESETS).join(", ")})`;
    throw new ConfigError(
      `${error.message.replace(`presets[0] ${JSON.stringify(name)}`, `--preset ${name}`)}${builtins}`,
    );
  });
  const preset = resolved.presets?.[0];
  if (!preset || typeof preset !== "object" || Array.isArray(preset))
    throw new ConfigError(`--preset ${name}: not a preset`);
  return preset as Preset;
}

/** The active plugins and the config they came from. */
export interface ActivePlugins {
  plugins: Plugin[];
  /** The command-line values they were read for (`--config`, `--cwd`, `--trust`, `--preset`). */
  values: RunValues;
  /** The loaded config (quietly: no trust question, no warning); absent when loading failed. */
  loaded?: LoadedCliConfig;
  /** Why the config could not be loaded (the default preset's plugins stand in). */
  error?: unknown;
}

/** The plugins a command line runs with. */
export async function activePlugins(values: RunValues, command: string): Promise<ActivePlugins> {
  try {
    const loaded = await loadCliConfig(values, command, { warn: () => {} });
    const presets =
      typeof values.preset === "string"
        ? [await presetByName(values.preset, loaded.config.cwd ?? resolve("."))]
        : loaded.config.presets;
    const { plugins } = expandPlugins({ presets, plugins: loaded.config.plugins, disable: loaded.config.disable });
    return { plugins: plugins.map((p) => p.plugin), values, loaded };
  } catch (error) {
    const { plugins } = expandPlugins({ presets: [await defaultPreset()] });
    return { plugins: plugins.map((p) => p.plugin), values, error };
  }
}

/**
 * The folder's config file a run skipped, why, and how to apply it: the folder is not trusted, or
 * it is and the file is new or changed since it was approved (every edit of a trusted config needs
 * approving again; "not trusted" sent the user to trust a folder the store already trusts).
 * Undefined when no config was skipped.
 */
export function skippedConfig(active: ActivePlugins): { file: string; why: string; fix: string } | undefined {
  const loaded = active.loaded;
  const file = loaded?.skipped[0];
  if (!loaded || !file) return undefined;
  const name = basename(file);
  if (loaded.trust.trusted && !loaded.trust.legacy)
    return {
      file: name,
      why: "the folder is trusted but the file is new or changed since it was approved",
      fix: "review it, then approve it with `ubiquity trust .`",
    };
  if (loaded.trust.trusted)
    return {
      file: name,
      why: "the folder was trusted before ubiquity recorded what its files contain",
      fix: "approve its files with `ubiquity trust .`",
    };
  return { file: name, why: "the folder is not trusted", fix: "trust the folder with `ubiquity trust .`" };
}

/**
 * For an unknown command or flag: the folder's config that was skipped may be what adds it. ""
 * when no config was skipped.
 */
export function skippedConfigHint(active: ActivePlugins): string {
  const skipped = skippedConfig(active);
  return skipped
    ? `; this folder's ${skipped.file} was not loaded, as ${skipped.why}: if its plugins add it, ${skipped.fix} (or UBIQUITY_TRUST=1 for one run)`
    : "";
}

/** The commands the plugins add, by name (the first plugin to name one has it). */
export function pluginCommands(plugins: readonly Plugin[]): Record<string, PluginCommand> {
  const commands: Record<string, PluginCommand> = {};
  for (const plugin of plugins)
    for (const [name, command] of Object.entries(plugin.commands ?? {})) commands[name] ??= command;
  return commands;
}

/** The plugins' terminal answerers, in plugin order. */
export function answerersOf(plugins: readonly Plugin[]): TerminalAnswerer[] {
  return plugins.flatMap((p) => (p.terminal ? [p.terminal] : []));
}
