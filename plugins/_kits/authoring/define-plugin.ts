/**
 * `definePlugin`: the one way to write a plugin. It takes the plugin object itself (what the kernel
 * reads, as a Rollup or Vite plugin is a plain object) and returns the factory a config calls; the
 * object's `options` slice, `factoryOptions` schema, `state` and `runState` type its `apply`
 * context, so a plugin reads its options through that context and casts none. The kernel reads
 * plugins, never calls this (Babel's `declare` in `@babel/helper-plugin-utils` is the model): it
 * only remembers which options each plugin made here declares, for its unknown-key errors.
 */
import { z } from "zod";
import {
  assertPlugin,
  ConfigError,
  didYouMean,
  isPlugin,
  rememberOptions,
  type Kernel,
  type Plugin,
  type PluginContext,
  type RunContext,
} from "../../../src/index";

/**
 * What `definePlugin` takes: a plugin whose context is typed by its `options` slice (run options,
 * set at the config's top level), its `factoryOptions` schema (what the factory is called with),
 * its `state` and its `runState`. Everything else a plugin may carry (`dependsOn`, `configKey`,
 * the runner's `commands`, `flags`, …) is as on `Plugin`.
 */
export interface PluginSpec<
  Shape extends z.ZodObject = z.ZodObject<{}>,
  S = undefined,
  R = undefined,
  F extends z.ZodType | undefined = undefined,
> extends Omit<Plugin<S, R, z.input<Shape>>, "apply" | "options" | "state" | "runState"> {
  /** The run options this plugin reads (its zod slice of the config schema). */
  options?: Shape;
  /** The options the factory takes (`plugin({ … })`, `[specifier, { … }]` in a config file), validated when it is called. */
  factoryOptions?: F;
  /** Creates the plugin's per-kernel state (`context.state`), once, before `apply`. */
  state?(kernel: Kernel, factoryOptions: FactoryOptionsOf<F>): S;
  /** Creates the plugin's state for one run (`context.run(run)`), on first use in that run. */
  runState?(run: RunContext): R;
  /** Taps and registrations only; runs once per kernel, before `kernel.ready`. */
  apply(kernel: Kernel, context: SpecContext<S, R, z.input<Shape>, FactoryOptionsOf<F>>): void;
}

/** The context `definePlugin` hands `apply`: the kernel's, with what the factory was called with. */
export type SpecContext<S, R, O, F> = PluginContext<S, R, O> & {
  /** What the factory was called with (`plugin({ … })`, `[specifier, { … }]`), parsed by `factoryOptions` (undefined without it). */
  readonly factoryOptions: F;
};

/** The parsed factory options of a `factoryOptions` schema (undefined without one). */
export type FactoryOptionsOf<F> = F extends z.ZodType ? z.output<F> : undefined;

// Marks the factories made here (`Symbol.for`: one mark across copies of ubiquity).
const FACTORY = Symbol.for("ubiquity.pluginFactory");

/**
 * The factory `definePlugin` returns: it takes the plugin's factory options when it declares a
 * `factoryOptions` schema — required when the schema requires a key (`plugin()` would fail at run
 * time, so it fails in tsc), optional when `{}` passes. Its plugin is a plain `Plugin` (the typed
 * context is the author's business), so plugins of different shapes share one list type.
 */
export type DefinedPlugin<F extends z.ZodType | undefined> = F extends z.ZodType
  ? {} extends z.input<F>
    ? (options?: z.input<F>) => Plugin
    : (options: z.input<F>) => Plugin
  : () => Plugin;

/**
 * Define a plugin: `definePlugin({ name, options?, factoryOptions?, state?, runState?, dependsOn?, apply(kernel, context) })`.
 * `context.optionsOf(run)` and `context.options` are typed by `options` (the run options it reads),
 * `context.factoryOptions` by `factoryOptions` (what the returned factory is called with, validated
 * then), `context.state`/`context.run(run)` by `state`/`runState`.
 */
export function definePlugin<
  Shape extends z.ZodObject = z.ZodObject<{}>,
  S = undefined,
  R = undefined,
  F extends z.ZodType | undefined = undefined,
>(plugin: PluginSpec<Shape, S, R, F>): DefinedPlugin<F>;
/** @deprecated Pass the plugin object instead: `definePlugin({ name, apply(kernel, context) { … } })` (see CHANGELOG). */
export function definePlugin<O = undefined>(factory: (options: O) => Plugin): (options?: O) => Plugin;
/** @deprecated Pass the plugin object instead: `definePlugin({ name, apply(kernel, context) { … } })` (see CHANGELOG). */
export function definePlugin<O = undefined>(name: string, factory: (options: O) => Plugin): (options?: O) => Plugin;
/** @deprecated Pass the plugin object with a `factoryOptions` schema: `definePlugin({ name, factoryOptions: schema, apply })`. */
export function definePlugin<S extends z.ZodType>(
  schema: S,
  factory: (options: z.output<S>) => Plugin,
): (options?: z.input<S>) => Plugin;
/** @deprecated Pass the plugin object with a `factoryOptions` schema: `definePlugin({ name, factoryOptions: schema, apply })`. */
export function definePlugin<S extends z.ZodType>(
  name: string,
  schema: S,
  factory: (options: z.output<S>) => Plugin,
): (options?: z.input<S>) => Plugin;
export function definePlugin(...args: unknown[]) {
  if (isPlugin(args[0]) && !(args[0] instanceof z.ZodType)) {
    return fromSpec(args[0] as PluginSpec<z.ZodObject, unknown, unknown, z.ZodType | undefined>);
  }
  return fromFactory(args);
}

/** The factory of a plugin object: it returns the object itself, or (with `factoryOptions`) a copy bound to the parsed options. */
function fromSpec(spec: PluginSpec<z.ZodObject, unknown, unknown, z.ZodType | undefined>) {
  const { factoryOptions: schema, ...rest } = spec;
  // The same object for every call without factory options: its `state` takes none.
  const plain = rest as Plugin;
  rememberOptions(spec);
  const factory = (options?: unknown) => {
    if (!schema) {
      if (options !== undefined && !isEmptyObject(options)) throw optionsWhereListed(spec);
      return plain;
    }
    // jitless: parsed once per factory call; compiling zod's fast path cost more than it saved (cold start).
    const result = schema.safeParse(options ?? {}, { jitless: true });
    if (!result.success) {
      throw new ConfigError(`invalid options for plugin ${spec.name}:\n${z.prettifyError(result.error)}`);
    }
    const stray = strayKeys(schema, options);
    if (stray.length > 0) throw strayOptions(spec.name, stray, schema as z.ZodObject);
    return bind(rest, result.data);
  };
  Object.defineProperty(factory, FACTORY, { value: true });
  Object.defineProperty(factory, "name", { value: spec.name });
  return factory;
}

/** A plugin whose `state` and `apply` see `factoryOptions`. */
function bind(spec: Omit<PluginSpec<z.ZodObject, unknown, unknown, z.ZodType>, "factoryOptions">, parsed: unknown) {
  const state = spec.state;
  return {
    ...spec,
    state: state ? (kernel: Kernel) => state.call(spec, kernel, parsed) : undefined,
    apply(kernel: Kernel, context: PluginContext) {
      if (!context) throw new TypeError(unwrappedContext(spec.name));
      // The kernel's context (its getters stay live) with the factory options on top.
      const bound = Object.create(context, { factoryOptions: { value: parsed, enumerable: true } });
      spec.apply(kernel, Object.freeze(bound) as SpecContext<unknown, unknown, {}, FactoryOptionsOf<z.ZodType>>);
    },
  } satisfies Plugin;
}

/** A wrapper that calls `plugin.apply(kernel)` drops the context the plugin reads its options and state through. */
function unwrappedContext(name: string): string {
  return `plugin ${name}: apply was called without its context; a wrapper must pass it on: apply: (kernel, context) => plugin.apply(kernel, context)`;
}

/**
 * The keys of `options` a plain `z.object` schema would strip without a word: a typo in a config
 * file's `[specifier, { lod: true }]` was dropped and the plugin ran on its default. Only a schema
 * that strips (not `z.strictObject`, which fails anyway, nor `z.looseObject`, which keeps them).
 */
function strayKeys(schema: z.ZodType, options: unknown): string[] {
  if (!(schema instanceof z.ZodObject) || schema.def.catchall !== undefined) return [];
  if (typeof options !== "object" || options === null || Array.isArray(options)) return [];
  const known = new Set(Object.keys(schema.shape));
  return Object.keys(options).filter((key) => !known.has(key));
}

function strayOptions(name: string, stray: string[], schema: z.ZodObject): ConfigError {
  const known = Object.keys(schema.shape);
  const each = stray.map((key) => `"${key}"${didYouMean(key, known)}`).join(", ");
  return new ConfigError(
    `invalid options for plugin ${name}: unknown ${stray.length === 1 ? "key" : "keys"} ${each}; it takes ${known.map((k) => `"${k}"`).join(", ") || "no options"}`,
  );
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length === 0;
}

// Its run options (its `options` slice) are set at the config's top level: options given to the
// factory of a plugin without `factoryOptions` (`[specifier, { … }]` in a config file) would be ignored.
function optionsWhereListed(spec: PluginSpec<z.ZodObject, unknown, unknown, z.ZodType | undefined>): ConfigError {
  const keys = Object.keys(spec.options?.shape ?? {});
  return new ConfigError(
    `plugin ${spec.name} takes no options where it is listed (it declares no factoryOptions); ` +
      (keys.length
        ? `set the options it declares (${keys.join(", ")}) at the top level of the config instead`
        : "remove the options"),
  );
}

/** The deprecated factory forms: `(factory)`, `(name, factory)`, `(schema, factory)`, `(name, schema, factory)`. */
function fromFactory(args: unknown[]) {
  const name = typeof args[0] === "string" ? (args.shift() as string) : undefined;
  const [a, b] = args;
  const schema = typeof a === "function" ? undefined : (a as z.ZodType);
  const factory = (typeof a === "function" ? a : b) as (options: unknown) => Plugin;
  if (typeof factory !== "function")
    throw new TypeError("definePlugin: expected a plugin object or a factory function");
  const label = name ?? (factory.name || "(anonymous)");
  const wrapped = (options?: unknown) => {
    let parsed = options;
    if (schema) {
      // jitless: parsed once per factory call, where compiling zod's fast path costs more than it saves.
      const result = schema.safeParse(options ?? {}, { jitless: true });
      if (!result.success) {
        throw new ConfigError(`invalid options for plugin ${label}:\n${z.prettifyError(result.error)}`);
      }
      parsed = result.data;
    }
    const plugin = factory(parsed);
    assertPlugin(plugin, `the factory ${label}`);
    rememberOptions(plugin);
    return plugin;
  };
  Object.defineProperty(wrapped, FACTORY, { value: true });
  Object.defineProperty(wrapped, "name", { value: name ?? factory.name });
  return wrapped;
}
