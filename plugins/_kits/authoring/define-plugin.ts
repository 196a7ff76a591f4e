/**
 * `definePlugin`: a plugin factory whose options are validated when it is called, and the object
 * form whose context is typed by the plugin's `options`, `state` and `runState`. The kernel reads
 * plugins, never calls this (Babel's `declare` in `@babel/helper-plugin-utils` is the model): it
 * only remembers which options each plugin made here declares, for its unknown-key errors.
 */
import { z } from "zod";
import { assertPlugin, ConfigError, isPlugin, rememberOptions, type Plugin, type PluginSpec } from "../../../src/index";

// Marks the factories made here (`Symbol.for`: one mark across copies of ubiquity).
const FACTORY = Symbol.for("ubiquity.pluginFactory");

/**
 * Define a plugin factory. Pass a zod schema to validate options when the factory is called,
 * and the plugin's name first so an options error names the plugin before the factory runs
 * (`definePlugin("acme:rules", schema, factory)`).
 */
export function definePlugin<O = undefined>(factory: (options: O) => Plugin): (options?: O) => Plugin;
export function definePlugin<O = undefined>(name: string, factory: (options: O) => Plugin): (options?: O) => Plugin;
export function definePlugin<S extends z.ZodType>(
  schema: S,
  factory: (options: z.output<S>) => Plugin,
): (options?: z.input<S>) => Plugin;
export function definePlugin<S extends z.ZodType>(
  name: string,
  schema: S,
  factory: (options: z.output<S>) => Plugin,
): (options?: z.input<S>) => Plugin;
export function definePlugin<Shape extends z.ZodObject = z.ZodObject<{}>, S = undefined, R = undefined>(
  plugin: PluginSpec<Shape, S, R>,
): () => Plugin<S, R, z.output<Shape>>;
export function definePlugin(...args: unknown[]) {
  if (isPlugin(args[0]) && !(args[0] instanceof z.ZodType)) {
    const plugin = args[0];
    rememberOptions(plugin);
    // Its options are run options (its `options` slice), set at the config's top level: options
    // given to the factory itself (`[specifier, { … }]` in a config file) would be ignored.
    const factory = (options?: unknown) => {
      if (
        options !== undefined &&
        !(typeof options === "object" && options !== null && Object.keys(options).length === 0)
      ) {
        const keys = Object.keys(plugin.options?.shape ?? {});
        throw new ConfigError(
          `plugin ${plugin.name} takes no options where it is listed (it is made with definePlugin({ … })); ` +
            (keys.length
              ? `set the options it declares (${keys.join(", ")}) at the top level of the config instead`
              : "remove the options"),
        );
      }
      return plugin;
    };
    Object.defineProperty(factory, FACTORY, { value: true });
    Object.defineProperty(factory, "name", { value: plugin.name });
    return factory;
  }
  const name = typeof args[0] === "string" ? (args.shift() as string) : undefined;
  const [a, b] = args;
  const schema = typeof a === "function" ? undefined : (a as z.ZodType);
  const factory = (typeof a === "function" ? a : b) as (options: unknown) => Plugin;
  if (typeof factory !== "function") throw new TypeError("definePlugin: expected a factory function");
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
