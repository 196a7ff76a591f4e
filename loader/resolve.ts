/**
 * Module specifiers in `plugins` and `presets` (`"ubiquity-plugin-foo"`, `"./my-plugin.ts"`,
 * `["name", options]`) become plugin and preset objects, resolved relative to the file that
 * names them. Identity checks are duck-typed: a config importing `ubiquity` gets another copy
 * of the kernel (the built one), so `instanceof` and module identity would lie.
 */
import { dirname } from "node:path";
import {
  ConfigError,
  describeValue,
  isPlugin,
  type Plugin,
  type PluginEntry,
  type Preset,
  type PresetEntry,
} from "../src/index";
import { createModuleLoader, type ModuleLoader } from "./module";

/** The kernel fields after resolution: no strings left, only objects, factories and `false`. */
export interface ResolvableFields {
  presets?: PresetEntry[];
  plugins?: PluginEntry[];
}

/**
 * Resolve string plugin/preset entries of `config` relative to `baseDir` (recursing into
 * presets, whose own strings resolve relative to their module). Returns a copy; throws a
 * `ConfigError` naming the entry and the fix.
 */
export async function resolveEntries<C extends ResolvableFields>(config: C, baseDir: string): Promise<C> {
  const loader = createModuleLoader(baseDir);
  const out = { ...config };
  if (config.presets !== undefined) out.presets = await resolvePresetList(config.presets, loader, "presets", new Set());
  if (config.plugins !== undefined) out.plugins = await resolvePluginList(config.plugins, loader, "plugins");
  return out;
}

function listOf<T>(value: unknown, where: string): T[] {
  if (!Array.isArray(value)) throw new ConfigError(`${where} must be an array, got ${describeValue(value)}`);
  return value as T[];
}

/** `"spec"` or `["spec", options]` → the parts; anything else → undefined. */
function specifierOf(entry: unknown): { specifier: string; options: unknown; hasOptions: boolean } | undefined {
  if (typeof entry === "string") return { specifier: entry, options: undefined, hasOptions: false };
  if (Array.isArray(entry) && typeof entry[0] === "string") {
    if (entry.length > 2)
      throw new ConfigError(
        `entry ${JSON.stringify(entry[0])}: expected ["name", options], got an array of ${entry.length}`,
      );
    return { specifier: entry[0], options: entry[1], hasOptions: entry.length === 2 };
  }
  return undefined;
}

async function resolvePluginList(list: unknown, loader: ModuleLoader, where: string): Promise<PluginEntry[]> {
  const entries = listOf<unknown>(list, where);
  return Promise.all(
    entries.map(async (entry, i) => {
      const spec = specifierOf(entry);
      if (!spec) return entry as PluginEntry;
      const what = `${where}[${i}] ${JSON.stringify(spec.specifier)}`;
      if (/^ubiquity:[\w-]+$/.test(spec.specifier)) throw builtinNameError(spec.specifier, what);
      const file = loader.resolve(spec.specifier, what);
      const value = await loader.importDefault(file, what);
      return toPlugin(value, spec, what);
    }),
  );
}

/** `plugins: [ubiquity:tool-bash]`: a built-in's name is not a module to load. */
function builtinNameError(name: string, what: string): ConfigError {
  const feature = name.slice("ubiquity:".length);
  return new ConfigError(
    `${what} is the name of a built-in plugin, not a module: the presets bring the built-ins. ` +
      `To remove it, list ${name} under "disable"; to replace it, add your own plugin named ${name}; ` +
      `to add it to a preset that lacks it, list the module "ubiquity/plugins/${feature}"`,
  );
}

async function resolvePresetList(
  list: unknown,
  loader: ModuleLoader,
  where: string,
  stack: Set<object>,
): Promise<PresetEntry[]> {
  const entries = listOf<unknown>(list, where);
  return Promise.all(
    entries.map(async (entry, i) => {
      const spec = specifierOf(entry);
      const what = `${where}[${i}]${spec ? ` ${JSON.stringify(spec.specifier)}` : ""}`;
      if (!spec) {
        if (!isPresetLike(entry)) return entry as PresetEntry;
        return resolvePreset(entry, loader, what, stack);
      }
      const file = resolvePresetModule(spec.specifier, loader, what);
      const value = await loader.importDefault(file, what);
      const preset = toPreset(value, spec, what);
      return resolvePreset(preset, createModuleLoader(dirname(file), file), what, stack);
    }),
  );
}

/**
 * A preset's module. A built-in's bare name (`minimal`, or its preset name `ubiquity:minimal`),
 * as `--preset` takes it, is no package here: name the module instead of suggesting `npm i minimal`.
 */
function resolvePresetModule(specifier: string, loader: ModuleLoader, what: string): string {
  const builtin = /^(?:ubiquity:)?(default|minimal|headless)$/.exec(specifier)?.[1];
  if (specifier.startsWith("ubiquity:") && builtin)
    throw new ConfigError(`${what}: the built-in preset is the module "ubiquity/presets/${builtin}"`);
  try {
    return loader.resolve(specifier, what);
  } catch (error) {
    if (builtin)
      throw new ConfigError(
        `${what}: the built-in preset is the module "ubiquity/presets/${builtin}" (a bare name is a package, which is not installed)`,
      );
    throw error;
  }
}

/** Resolve the strings inside a preset; a preset that includes itself is left for expandPlugins to report. */
async function resolvePreset(preset: Preset, loader: ModuleLoader, what: string, stack: Set<object>): Promise<Preset> {
  if (stack.has(preset)) return preset;
  stack.add(preset);
  try {
    const out: Preset = { ...preset };
    if (preset.presets !== undefined)
      out.presets = await resolvePresetList(preset.presets, loader, `${what} > ${preset.name}.presets`, stack);
    if (preset.plugins !== undefined)
      out.plugins = await resolvePluginList(preset.plugins, loader, `${what} > ${preset.name}.plugins`);
    return out;
  } finally {
    stack.delete(preset);
  }
}

/** A preset has a name and lists, but no `apply` (that would make it a plugin). */
export function isPresetLike(value: unknown): value is Preset {
  const p = value as Preset | null;
  return (
    typeof p === "object" &&
    p !== null &&
    !Array.isArray(p) &&
    typeof p.name === "string" &&
    typeof (p as { apply?: unknown }).apply !== "function" &&
    (Array.isArray(p.plugins) || Array.isArray(p.presets) || typeof p.config === "object")
  );
}

const EXPECTED_PLUGIN =
  "expected a default export that is a plugin ({ name, apply(kernel) }) or a factory (options) => plugin";

function toPlugin(
  value: unknown,
  spec: { specifier: string; options: unknown; hasOptions: boolean },
  what: string,
): Plugin {
  if (isPlugin(value)) {
    if (spec.hasOptions)
      throw new ConfigError(
        `${what} exports a plugin object, not a factory, so it takes no options; remove the options`,
      );
    return value;
  }
  if (typeof value === "function") {
    let made: unknown;
    try {
      made = (value as (options?: unknown) => unknown)(spec.options);
    } catch (error) {
      // Listed as a bare name, a factory whose options are required fails on none: say how to pass them.
      const message = error instanceof Error ? error.message : String(error);
      const bare =
        spec.hasOptions || !/\boptions?\b/i.test(message)
          ? ""
          : ` (listed without options: pass them as [${JSON.stringify(spec.specifier)}, { … }] in a JSON or YAML config)`;
      throw new ConfigError(`${what}: the plugin factory threw: ${message}${bare}`);
    }
    if (isPlugin(made)) return made;
    throw new ConfigError(`${what}: the factory returned ${describeValue(made)}, not a plugin; ${EXPECTED_PLUGIN}`);
  }
  if (isPresetLike(value))
    throw new ConfigError(`${what} is a preset (${value.name}), not a plugin; list it under "presets"`);
  throw new ConfigError(
    `${what} is neither a plugin nor a plugin factory: ${EXPECTED_PLUGIN}, got ${describeValue(value)}`,
  );
}

function toPreset(value: unknown, spec: { options: unknown; hasOptions: boolean }, what: string): Preset {
  if (isPresetLike(value)) {
    if (spec.hasOptions)
      throw new ConfigError(
        `${what} exports a preset object, not a factory, so it takes no options; remove the options`,
      );
    return value;
  }
  if (typeof value === "function") {
    const made = (value as (options?: unknown) => unknown)(spec.options);
    if (isPresetLike(made)) return made;
    throw new ConfigError(
      `${what}: the preset factory returned ${describeValue(made)}, not a preset ({ name, plugins?, presets? })`,
    );
  }
  if (isPlugin(value))
    throw new ConfigError(`${what} is a plugin (${value.name}), not a preset; list it under "plugins"`);
  throw new ConfigError(
    `${what} is not a preset: expected a default export { name, plugins?, presets? }, got ${describeValue(value)}`,
  );
}
