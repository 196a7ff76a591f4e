import { z } from "zod";
import type { Kernel } from "./kernel";
import { ConfigError } from "./errors";

const FACTORY = Symbol.for("ubiquity.pluginFactory");

/** A plugin: a name and an `apply` that taps kernel hooks and fills registries (synchronously). */
export interface Plugin {
  /** `ubiquity:<feature>` for built-ins, `ubiquity-plugin-<x>` (or anything unique) otherwise. */
  name: string;
  /** Taps and registrations only; runs once per kernel, before `kernel.ready`. */
  apply(kernel: Kernel): void;
  /** Plugins that must also be in the list (checked at boot). */
  dependsOn?: string[];
  /** A top-level config key this plugin claims (so validation does not reject it). */
  configKey?: string;
}

/** A function returning a plugin; `definePlugin` marks and types it. */
export type PluginFactory<O = never> = ((options?: O) => Plugin) & { readonly [FACTORY]?: true };

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
export function definePlugin(...args: unknown[]) {
  const name = typeof args[0] === "string" ? (args.shift() as string) : undefined;
  const [a, b] = args;
  const schema = typeof a === "function" ? undefined : (a as z.ZodType);
  const factory = (typeof a === "function" ? a : b) as (options: unknown) => Plugin;
  if (typeof factory !== "function") throw new TypeError("definePlugin: expected a factory function");
  const label = name ?? (factory.name || "(anonymous)");
  const wrapped = (options?: unknown) => {
    let parsed = options;
    if (schema) {
      const result = schema.safeParse(options ?? {});
      if (!result.success) {
        throw new ConfigError(`invalid options for plugin ${label}:\n${z.prettifyError(result.error)}`);
      }
      parsed = result.data;
    }
    const plugin = factory(parsed);
    assertPlugin(plugin, `the factory ${label}`);
    return plugin;
  };
  Object.defineProperty(wrapped, FACTORY, { value: true });
  Object.defineProperty(wrapped, "name", { value: name ?? factory.name });
  return wrapped;
}

/** Duck-typed plugin check (several copies of ubiquity may coexist). */
export function isPlugin(value: unknown): value is Plugin {
  const p = value as Plugin | null;
  return typeof p === "object" && p !== null && typeof p.name === "string" && p.name.length > 0 && typeof p.apply === "function";
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
