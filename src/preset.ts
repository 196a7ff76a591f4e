import { assertPlugin, describeValue, type Plugin, type PluginFactory } from "./plugin";
import type { PluginEntry, PresetEntry } from "./config/schema";
import { ConfigError } from "./errors";

/** A preset: a named list of plugins (and nested presets), plus config defaults. */
export interface Preset {
  name: string;
  presets?: PresetEntry[];
  plugins?: PluginEntry[];
  /** Option defaults the preset contributes (the user's options win). */
  config?: Record<string, unknown>;
}

/** A plugin in the resolved list, with where it came from. */
export interface ResolvedPlugin {
  plugin: Plugin;
  /** `preset <name>` (with the chain for nested presets) or `config`. */
  origin: string;
  /** Plugins of the same name it replaced in place (their `apply` never runs). */
  replaced: { origin: string }[];
}

/** The result of expanding presets and plugin lists. */
export interface Expansion {
  plugins: ResolvedPlugin[];
  /** Merged `config` defaults of the presets, in reading order (later wins). */
  defaults: Record<string, unknown>;
  /** Names in `disable` that matched nothing (worth a warning: a typo disables nothing). */
  unmatchedDisable: string[];
  /** Plugins removed by `disable`. */
  disabled: ResolvedPlugin[];
}

/** The kernel takes objects: a specifier left in a list is the loader's to resolve first. */
function specifierError(kind: string, entry: string | [string, unknown], where: string, fix: string): ConfigError {
  return new ConfigError(
    `${kind} ${JSON.stringify(Array.isArray(entry) ? entry[0] : entry)} (${where}) is a module specifier; ${fix}`,
  );
}

function materialize(entry: PluginEntry, origin: string): Plugin | undefined {
  if (entry === false || entry === null || entry === undefined) return undefined;
  if (typeof entry === "string" || Array.isArray(entry)) {
    throw specifierError(
      "plugin",
      entry,
      origin,
      "load it through loadConfig() or resolveEntries() first, or import the plugin and pass it",
    );
  }
  const value = typeof entry === "function" ? (entry as PluginFactory<unknown>)() : entry;
  assertPlugin(
    value,
    `the plugin entry ${typeof entry === "function" ? `${entry.name || "(factory)"}() ` : ""}in ${origin}`,
  );
  return value;
}

/**
 * Expand presets depth-first in reading order (nested presets, then the preset's plugins),
 * then the config's own plugins. A same-name plugin replaces the earlier one in place;
 * `false` entries are skipped; names in `disable` are removed.
 */
export function expandPlugins(config: {
  presets?: PresetEntry[];
  plugins?: PluginEntry[];
  disable?: string[];
}): Expansion {
  const list: ResolvedPlugin[] = [];
  const defaults: Record<string, unknown> = {};
  const seen = new Set<Preset>();

  const add = (entry: PluginEntry, origin: string) => {
    const plugin = materialize(entry, origin);
    if (!plugin) return;
    const at = list.findIndex((p) => p.plugin.name === plugin.name);
    if (at === -1) list.push({ plugin, origin, replaced: [] });
    else list[at] = { plugin, origin, replaced: [...list[at]!.replaced, { origin: list[at]!.origin }] };
  };

  const visit = (entry: PresetEntry, chain: string) => {
    if (entry === false || entry === null || entry === undefined) return;
    if (typeof entry === "string" || Array.isArray(entry))
      throw specifierError("preset", entry, chain || "config", "load it through loadConfig() first");
    if (typeof entry !== "object" || typeof entry.name !== "string") {
      throw new ConfigError(
        `a preset entry${chain ? ` in ${chain}` : ""} is not a preset: expected { name, plugins?, presets? }, got ${describeValue(entry)}`,
      );
    }
    if (seen.has(entry)) throw new ConfigError(`preset ${entry.name} includes itself (${chain} > ${entry.name})`);
    seen.add(entry);
    const origin = chain ? `${chain} > ${entry.name}` : `preset ${entry.name}`;
    for (const nested of entry.presets ?? []) visit(nested, origin);
    for (const plugin of entry.plugins ?? []) add(plugin, origin);
    Object.assign(defaults, entry.config ?? {});
    seen.delete(entry);
  };

  for (const preset of config.presets ?? []) visit(preset, "");
  for (const plugin of config.plugins ?? []) add(plugin, "config");

  const disable = new Set(config.disable ?? []);
  const disabled = list.filter((p) => disable.has(p.plugin.name));
  const matched = new Set(disabled.map((p) => p.plugin.name));
  return {
    plugins: list.filter((p) => !disable.has(p.plugin.name)),
    defaults,
    disabled,
    unmatchedDisable: [...disable].filter((n) => !matched.has(n)),
  };
}
