import type { z } from "zod";
import type { Kernel, ResolvedOptions } from "./kernel";
import type { RunContext } from "./run";
import { ConfigError } from "./errors";

/**
 * What the kernel hands a plugin's `apply` besides the kernel (Rollup's plugin context is the
 * model): the plugin's own state slots, its options (the kernel's and each run's, typed by its
 * `options` slice) and a `warn` that names it. State lives in the kernel and in each run, so a
 * plugin keeps no module-level maps and casts no options.
 */
export interface PluginContext<S = unknown, R = unknown, O = {}> {
  /** The plugin's name. */
  readonly name: string;
  /** This plugin's per-kernel state: what its `state()` returned (undefined without one). */
  readonly state: S;
  /**
   * This plugin's state in `run`, created by its `runState(run)` on first use. A subagent's run
   * has its own; `run.parent` reaches the parent's.
   */
  run(run: RunContext): R;
  /** The kernel's resolved options, typed by the plugin's `options` slice; readable from `kernel.configResolved` on. */
  readonly options: ResolvedOptions & Readonly<O>;
  /**
   * Resolved options typed by the plugin's `options` slice: those a run (or a model reference)
   * runs with (a subagent's may be its own), or an options object a hook or an API handed over.
   */
  optionsOf(of: OptionsHolder | ResolvedOptions): ResolvedOptions & Readonly<O>;
  /** Log a warning that names the plugin. */
  warn(message: string): void;
}

/** What carries resolved options: a run, a model reference. */
export type OptionsHolder = { readonly options: ResolvedOptions };

/** The resolved options `of` carries, or `of` itself (what `context.optionsOf` returns). */
export function optionsIn(of: OptionsHolder | ResolvedOptions): ResolvedOptions {
  const held = (of as Partial<OptionsHolder>).options;
  return typeof held === "object" && held !== null ? held : (of as ResolvedOptions);
}

/** A plugin: a name and an `apply` that taps kernel hooks and fills registries (synchronously). */
export interface Plugin<S = unknown, R = unknown, O = {}> {
  /** `ubiquity:<feature>` for built-ins, `ubiquity-plugin-<x>` (or anything unique) otherwise. */
  name: string;
  /** Taps and registrations only; runs once per kernel, before `kernel.ready`. */
  apply(kernel: Kernel, context: PluginContext<S, R, O>): void;
  /** Plugins that must also be in the list (checked at boot). */
  dependsOn?: string[];
  /**
   * The zod slice of the top-level run options this plugin reads. The kernel composes the slices
   * of the plugins in the list into the schema that validates a config (a key no plugin in the
   * list declares is an unknown key), and `inspect`/the JSON Schema show them. Two plugins may
   * declare the same key (a reader may reuse its owner's slice); the first in list order wins.
   */
  options?: z.ZodObject;
  /** Creates the plugin's per-kernel state (`context.state`), once, before `apply`. */
  state?(kernel: Kernel): S;
  /** Creates the plugin's state for one run (`context.run(run)`), on first use in that run. */
  runState?(run: RunContext): R;
  /** A top-level config key this plugin claims without a schema (prefer `options`). */
  configKey?: string;
}

// Option key → the plugins seen in this process that declare it (in the order they were made),
// so an option of a plugin left out of a list gets an error naming that plugin.
const declarers = new Map<string, string[]>();

/**
 * A zod object's fields as declared, without building those given as getters: a plugin's slice
 * may build its fields when first read (issue 40), so a getter field must accept being left out.
 * With `wanted`, only the fields it wants and those that may not be left out (built for that).
 */
export function fieldsOf(schema?: z.ZodObject, wanted?: (key: string) => boolean): Record<string, z.ZodType> {
  // zod's own `util.rawShape`, not imported: the kernel's first import of zod stays where it was (cold start).
  const shape = Object.getOwnPropertyDescriptor(schema?._zod.def ?? {}, "shape");
  const fields = (shape?.get as { raw?: Record<string, z.ZodType> } | undefined)?.raw ?? shape?.value ?? {};
  const needed = (key: string) => wanted!(key) || (!isGetter(fields, key) && fields[key]._zod.optin !== "optional");
  return wanted ? Object.fromEntries(Object.keys(fields).flatMap((k) => (needed(k) ? [[k, fields[k]]] : []))) : fields;
}
const isGetter = (object: object, key: string) => !!Object.getOwnPropertyDescriptor(object, key)!.get;

/** Remember which option keys `plugin` declares (called for every plugin `definePlugin` makes, and by the kernel). */
export function rememberOptions(plugin: Pick<Plugin, "name" | "options">): void {
  for (const key of Object.keys(fieldsOf(plugin.options))) {
    const names = declarers.get(key) ?? [];
    if (!names.includes(plugin.name)) declarers.set(key, [...names, plugin.name]);
  }
}

/** The plugins seen in this process that declare the option `key` (empty for a key nobody declares). */
export function knownDeclarers(key: string): readonly string[] {
  return declarers.get(key) ?? [];
}

/** The options type a plugin's `options` slice declares (what a config may set). */
export type PluginOptionsOf<P> = P extends { options?: infer S } ? (S extends z.ZodType ? z.input<S> : {}) : {};

/** A function returning a plugin (what `definePlugin` makes). */
export type PluginFactory<O = never> = (options?: O) => Plugin;

/** Duck-typed plugin check (several copies of ubiquity may coexist). */
export function isPlugin(value: unknown): value is Plugin {
  const p = value as Plugin | null;
  return (
    typeof p === "object" &&
    p !== null &&
    typeof p.name === "string" &&
    p.name.length > 0 &&
    typeof p.apply === "function"
  );
}

/** Throw a clear error unless `value` is a plugin. */
export function assertPlugin(value: unknown, where: string): asserts value is Plugin {
  if (!isPlugin(value)) {
    throw new ConfigError(
      `${where} is not a plugin: expected { name: string, apply(kernel) } (or a factory returning one), got ${describeValue(value)}`,
    );
  }
}

/** A short, safe description of a value for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "object") {
    const keys = Object.keys(value as object).slice(0, 5);
    return `an object with keys {${keys.join(", ")}}`;
  }
  if (typeof value === "function") return `a function ${value.name || "(anonymous)"}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}
