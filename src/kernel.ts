import { resolve } from "node:path";
import {
  createHooks,
  OBSERVER_HOOKS,
  type Hooks,
  type KernelEvent,
  type ModelProvider,
  type PermissionVerdict,
  type TapOrder,
} from "./hooks";
import { Registry, type RegistryApi } from "./registry";
import { expandPlugins, type ResolvedPlugin } from "./preset";
import { fieldsOf, knownDeclarers, optionsIn, rememberOptions, type Plugin, type PluginContext } from "./plugin";
import type { Tool } from "./tool";
import type { RunContext } from "./run";
import { ConfigError, HookUsageError, PluginError, PluginResolutionError, describeError } from "./errors";
// zod after ./errors: the kernel chunk's first imports decide whether `ai` or zod evaluates first, and
// zod first fills V8's young generation earlier (two more scavenges, ~25 ms of a cold run; bench/lean-profile.md).
import { z } from "zod";
import { ConfigSchema, type KernelOptions, type Logger, type UbiquityConfig } from "./config/schema";
import { defaultLogger } from "./logger";
import { maskSecrets, redactingLogger, secretsOf, secretsOfRun, type SecretBearingOptions } from "./redact";
import { didYouMean } from "./suggest";

/** Options after validation, with the kernel's own defaults applied. Plugins apply their own. */
export type ResolvedOptions = Readonly<
  Omit<KernelOptions, "cwd" | "maxTurns" | "logger"> & {
    cwd: string;
    maxTurns: number;
    logger: Logger;
  }
> & { readonly [configKey: string]: unknown };

/** A tap as `inspect` shows it. */
export interface TapDescription {
  plugin: string;
  name: string;
  stage: number;
  type: string;
  order?: "first" | "last";
}

/** The kernel: hooks, registries, the resolved plugin list and the options of one product instance. */
export interface Kernel {
  readonly hooks: Hooks;
  readonly registries: { readonly tools: RegistryApi<Tool>; readonly providers: RegistryApi<ModelProvider> };
  readonly plugins: readonly ResolvedPlugin[];
  /** Plugins removed by `disable`. */
  readonly disabled: readonly ResolvedPlugin[];
  readonly options: ResolvedOptions;
  readonly logger: Logger;
  hasPlugin(name: string): boolean;
  /** Every hook's taps in run order (stage, then registration). */
  taps(): Record<string, TapDescription[]>;
  /** Run `kernel.ready` once and seal the hooks. */
  ready(): Promise<void>;
  /** Run `kernel.dispose` once. */
  dispose(): Promise<void>;
  /** Fire an `event`, with the run it belongs to when there is one (observers are isolated). */
  emit(event: KernelEvent, run?: RunContext): void;
}

interface TapRecord extends TapOrder {
  name: string;
  stage?: number;
  type: "sync" | "async" | "promise";
  fn: (...args: unknown[]) => unknown;
  owner?: string;
  /** `before` as the kernel orders it (tapable's own `before` names taps, not plugins). */
  runsBefore?: string[];
}
/** The shape of any tapable hook, as the interceptor sees it. */
interface AnyHook {
  tap: (...args: never[]) => void;
  taps: TapRecord[];
  intercept(interceptor: { register: (tap: TapRecord) => TapRecord }): void;
}

function eachHook(hooks: Hooks): [string, AnyHook][] {
  return Object.entries(hooks).flatMap(([group, value]): [string, AnyHook][] =>
    typeof (value as { tap?: unknown }).tap === "function"
      ? [[group, value as unknown as AnyHook]]
      : Object.entries(value as unknown as Record<string, AnyHook>).map(([name, hook]) => [`${group}.${name}`, hook]),
  );
}

/** The schema a config validates against, and which plugin declared each option it adds. */
export interface ComposedSchema {
  schema: z.ZodObject;
  /** Option key → every plugin in the list that declares it, in list order (the first is the owner). */
  declarers: ReadonlyMap<string, readonly string[]>;
}

/**
 * The kernel's own fields plus the `options` slice of each plugin in `plugins`, in list order
 * (the first declaration of a key wins; the kernel's own fields always do).
 */
export function composeConfigSchema(plugins: readonly Pick<Plugin, "name" | "options">[]): ComposedSchema {
  // One list is composed several times per run (the runner's checks, each kernel): reusing the
  // schema also reuses the parser zod compiles on a schema's first parse (cold start).
  const hit = composed.find(
    (c) =>
      c.plugins.length === plugins.length &&
      c.plugins.every((p, i) => p.name === plugins[i]!.name && p.options === plugins[i]!.options),
  );
  if (hit) return hit.result;
  const shape: Record<string, z.ZodType> = {};
  const declarers = new Map<string, string[]>();
  for (const plugin of plugins) {
    rememberOptions(plugin);
    const fields = fieldsOf(plugin.options);
    for (const key of Object.keys(fields)) {
      if (key in ConfigSchema.shape) continue;
      if (declarers.get(key)?.push(plugin.name)) continue; // a later declarer: the first one's field stays
      declarers.set(key, [plugin.name]);
      Object.defineProperty(shape, key, Object.getOwnPropertyDescriptor(fields, key)!); // a getter stays one
    }
  }
  const result = { schema: declarers.size ? ConfigSchema.extend(shape) : ConfigSchema, declarers };
  if (composed.unshift({ plugins: plugins.map(({ name, options }) => ({ name, options })), result }) > 4)
    composed.pop();
  return result;
}

// The last few lists composed, newest first (a hit has had its options remembered already).
const composed: { plugins: Pick<Plugin, "name" | "options">[]; result: ComposedSchema }[] = [];

/** What `validateConfig` knows about the plugin list, to compose the schema and explain errors. */
export interface ValidationPlugins {
  /** The plugins in the list (their `options` slices are composed into the schema). */
  plugins?: readonly Pick<Plugin, "name" | "options">[];
  /** Plugins removed by `disable` or by a `false` entry: their options are unknown keys, and the error says why. */
  disabled?: readonly Pick<Plugin, "name" | "options">[];
}

/**
 * Validate options/config: strict against the kernel's fields and the plugins' option slices,
 * except for top-level keys claimed by plugins' `configKey`.
 */
export function validateConfig(
  config: Record<string, unknown>,
  claimed: ReadonlySet<string> = new Set(),
  file?: string,
  { plugins = [], disabled = [] }: ValidationPlugins = {},
) {
  const { schema, declarers } = composeConfigSchema(plugins);
  // jitless: a configuration is parsed a few times per process, and compiling zod's fast path
  // for this wide schema cost more than the parses it would speed up (cold start). Only the keys
  // given (and any that may not be left out) are parsed: same issues, in the same order, and no
  // field built only to learn it was not set (a getter field is optional: see `fieldsOf`).
  const input = Object.fromEntries(Object.entries(config).filter(([key]) => !claimed.has(key)));
  const fields = fieldsOf(schema, (key) => key in input);
  const result = z.strictObject(fields).safeParse(input, { jitless: true });
  if (!result.success) {
    const off = composeConfigSchema(disabled).declarers;
    const hints = result.error.issues
      .flatMap((issue) => (issue.code === "unrecognized_keys" && issue.path.length === 0 ? issue.keys : []))
      .map((key) => {
        // Never a key the list declares (those are in the schema): perhaps a disabled plugin's.
        if (off.has(key))
          return `→ ${JSON.stringify(key)} is an option of the plugin ${off.get(key)![0]}, which is not in the plugin list (disabled)`;
        const absent = knownDeclarers(key);
        if (absent.length)
          return `→ ${JSON.stringify(key)} is an option of ${pluginNames(absent)}, which ${absent.length > 1 ? "are" : "is"} not in the plugin list; add it to plugins (or a preset that has it) or remove the key`;
        const hint = didYouMean(key, [...Object.keys(fieldsOf(schema)), ...claimed]);
        return hint ? `→ ${JSON.stringify(key)}${hint}` : "";
      })
      .filter(Boolean);
    const named = [
      ...new Set(
        result.error.issues
          .map((issue) => issue.path[0])
          .filter((key) => typeof key === "string" && declarers.has(key)),
      ),
    ].map((key) => `→ ${JSON.stringify(key)} is an option of ${pluginNames(declarers.get(key as string)!)}`);
    const tail = [...named, ...hints].map((line) => `\n${line}`).join("");
    throw new ConfigError(`invalid configuration:\n${z.prettifyError(result.error)}${tail}`, file);
  }
  return result.data;
}

/** "the plugin a" or "the plugins a and b". */
function pluginNames(names: readonly string[]): string {
  if (names.length === 1) return `the plugin ${names[0]}`;
  return `the plugins ${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

class KernelImpl implements Kernel {
  readonly hooks = createHooks();
  readonly registries;
  readonly plugins: readonly ResolvedPlugin[];
  readonly disabled: readonly ResolvedPlugin[];
  readonly logger: Logger;
  options!: ResolvedOptions;
  #applying: string | undefined;
  #sealed = false;
  #ready?: Promise<void>;
  #disposed?: Promise<void>;

  constructor(config: UbiquityConfig) {
    // Every line any plugin logs is masked with the run's secrets (keys from options and from the
    // environment), asked at each line so options resolved later count.
    const base = (config.logger as Logger | undefined) ?? defaultLogger();
    this.logger = redactingLogger(base, () => secretsOf((this.options ?? config) as SecretBearingOptions));
    const onOverride = (event: KernelEvent) => this.emit(event);
    this.registries = Object.freeze({
      tools: new Registry<Tool>("tools", onOverride),
      providers: new Registry<ModelProvider>("providers", onOverride),
    });
    for (const [name, hook] of eachHook(this.hooks)) this.#intercept(name, hook);

    const expansion = expandPlugins(config);
    this.plugins = Object.freeze(expansion.plugins);
    this.disabled = Object.freeze(expansion.disabled);
    const names = [...expansion.plugins, ...expansion.disabled].map((p) => p.plugin.name);
    for (const name of expansion.unmatchedDisable)
      this.logger.warn(
        `disable: no plugin named ${name} is in the list; nothing was removed${didYouMean(name, names)}`,
      );
    this.#checkDependencies();

    const claimed = new Set(this.plugins.map((p) => p.plugin.configKey).filter((k): k is string => !!k));
    const merged = { ...expansion.defaults, ...config } as Record<string, unknown>;
    const listed = { plugins: this.plugins.map((p) => p.plugin), disabled: this.disabled.map((p) => p.plugin) };
    validateConfig(merged, claimed, undefined, listed);

    for (const { plugin } of this.plugins) {
      this.#applying = plugin.name;
      try {
        plugin.apply(this, this.#context(plugin));
      } catch (error) {
        throw error instanceof HookUsageError || error instanceof PluginError
          ? error
          : new PluginError(plugin.name, "apply", error);
      } finally {
        this.#applying = undefined;
      }
    }
    for (const [name, hook] of eachHook(this.hooks)) orderTaps(name, hook);

    const rewritten = this.hooks.kernel.config.call(merged as UbiquityConfig) as Record<string, unknown>;
    if (rewritten !== merged) validateConfig(rewritten, claimed, undefined, listed);
    this.options = Object.freeze(this.#resolve(rewritten));
    try {
      this.hooks.kernel.configResolved.call(this.options);
    } catch (error) {
      throw badOptionError(error);
    }
    for (const tool of this.options.tools ?? []) this.registries.tools.register(tool.name, tool, "options.tools");
  }

  /** A plugin's context: its state slots (per kernel, per run), its options, a `warn` naming it. */
  #context(plugin: Plugin): PluginContext {
    const kernel = this;
    const runKey = {}; // this plugin's slot in each run's state map
    const state = plugin.state?.(this);
    return Object.freeze({
      name: plugin.name,
      state,
      run(run: RunContext) {
        if (!run.state.has(runKey)) run.state.set(runKey, plugin.runState?.(run));
        return run.state.get(runKey);
      },
      get options() {
        if (!kernel.options) {
          throw new HookUsageError(
            `plugin ${plugin.name} read context.options before the options were resolved; read them at kernel.configResolved or later`,
          );
        }
        return kernel.options;
      },
      optionsOf: optionsIn,
      warn: (message: string) => this.logger.warn(`[${plugin.name}] ${message}`),
    });
  }

  #resolve(config: Record<string, unknown>): ResolvedOptions {
    const { presets: _p, plugins: _pl, disable: _d, $schema: _s, ...rest } = config;
    return {
      ...rest,
      cwd: resolve(typeof rest.cwd === "string" ? rest.cwd : process.cwd()),
      maxTurns: (rest.maxTurns as number | undefined) ?? 40,
      logger: this.logger,
    } as ResolvedOptions;
  }

  #checkDependencies() {
    const names = new Set(this.plugins.map((p) => p.plugin.name));
    for (const { plugin } of this.plugins) {
      for (const dep of plugin.dependsOn ?? []) {
        if (!names.has(dep)) {
          throw new PluginResolutionError(
            `plugin ${plugin.name} depends on ${dep}, which is not in the plugin list` +
              (this.disabled.some((p) => p.plugin.name === dep) ? " (it was disabled)" : "") +
              `; add ${dep} to plugins or remove ${plugin.name}`,
          );
        }
      }
    }
  }

  /** One interceptor per hook: sealing, no tapAsync/before, error attribution, observer isolation. */
  #intercept(hookName: string, hook: AnyHook) {
    const observer = OBSERVER_HOOKS.has(hookName);
    const finalDeny = hookName === "tool.permission";
    hook.intercept({
      register: (tap) => {
        const owner = this.#applying ?? tap.name;
        const misuse = tapMisuse(tap, hookName, this.#sealed, this.#applying !== undefined);
        if (misuse) throw new HookUsageError(`plugin ${owner} ${misuse}`);
        const fn = tap.fn;
        // A failure is attributed to the plugin and hook; an observer's is logged and ignored.
        const failed = (error: unknown) => {
          if (!observer) throw error instanceof PluginError ? error : new PluginError(owner, hookName, error);
          this.logger.error(`[plugin ${owner}] hook ${hookName} failed (ignored): ${describeError(error)}`);
          if (hookName !== "event") this.emit({ type: "plugin.error", plugin: owner, hook: hookName, error });
          return undefined;
        };
        const denied = (args: unknown[]) => finalDeny && (args[0] as PermissionVerdict).behavior === "deny";
        const wrapped =
          tap.type === "sync"
            ? (...args: unknown[]) => {
                if (denied(args)) return args[0];
                try {
                  return fn(...args);
                } catch (error) {
                  return failed(error);
                }
              }
            : // The executor calls the tap at once, as tapable would; a synchronous throw rejects.
              (...args: unknown[]) =>
                denied(args) ? Promise.resolve(args[0]) : new Promise((done) => done(fn(...args))).catch(failed);
        const runsBefore = [tap.before ?? []].flat();
        return Object.assign(tap, { fn: wrapped, owner, before: undefined, runsBefore });
      },
    });
  }

  hasPlugin(name: string) {
    return this.plugins.some((p) => p.plugin.name === name);
  }

  taps() {
    const out: Record<string, TapDescription[]> = {};
    for (const [name, hook] of eachHook(this.hooks)) {
      out[name] = hook.taps.map((t) => ({
        plugin: t.owner ?? t.name,
        name: t.name,
        stage: t.stage ?? 0,
        type: t.type,
        ...(t.order ? { order: t.order } : {}),
      }));
    }
    return out;
  }

  emit(event: KernelEvent, run?: RunContext) {
    if (this.hooks.event.taps.length === 0) return;
    // A message left run.emit masked; any other event may quote outside text (an MCP server's log
    // line, a refused command's output, a plugin's warning): it reaches the taps masked too.
    const secrets = run ? secretsOfRun(run) : secretsOf(undefined);
    this.hooks.event.call(event.type === "message" ? event : maskSecrets(event, secrets), run);
  }

  ready() {
    this.#sealed = true;
    this.#ready ??= this.hooks.kernel.ready.promise(this);
    return this.#ready;
  }

  dispose() {
    this.#disposed ??= this.hooks.kernel.dispose.promise(this);
    return this.#disposed;
  }
}

/** What is wrong with a tap being registered: after the seal, outside `apply`, `tapAsync`, an unknown order. */
function tapMisuse(tap: TapRecord, hook: string, sealed: boolean, applying: boolean): string | undefined {
  if (sealed) return `tapped ${hook} after kernel.ready; tap only inside plugin.apply()`;
  if (!applying) return `tapped ${hook} outside plugin.apply(); tap only inside plugin.apply()`;
  if (tap.type === "async") return `used tapAsync on ${hook}; use tapPromise (or tap for sync work)`;
  if (tap.order !== undefined && tap.order !== "first" && tap.order !== "last")
    return `tapped ${hook} with order ${tap.order}; use "first" or "last"`;
  return undefined;
}

/**
 * Put a hook's taps in run order once every plugin tapped: `order` first, then stage, then
 * `before`/`after` constraints (a tap waits for the taps it must follow), ties in plugin order.
 */
function orderTaps(hookName: string, hook: AnyHook) {
  if (!hook.taps.some((t) => t.order || t.runsBefore?.length || t.after)) return;
  const rank = (t: TapRecord) => (t.order === "first" ? 0 : t.order === "last" ? 2 : 1);
  const base = hook.taps
    .map((t, i) => ({ t, i }))
    .sort((a, b) => rank(a.t) - rank(b.t) || (a.t.stage ?? 0) - (b.t.stage ?? 0) || a.i - b.i)
    .map((x) => x.t);
  // `a` must run before `b`: `a` names b's plugin in `before`, or `b` names a's in `after`.
  const precedes = (a: TapRecord, b: TapRecord) =>
    a.owner !== b.owner && (!!a.runsBefore?.includes(b.owner!) || [b.after ?? []].flat().includes(a.owner!));
  // A tap moves just before the first tap it must precede, or just after the last it must follow.
  const at = (t: TapRecord, plugins: string[] | undefined, pick: (...n: number[]) => number, shift: number) => {
    const found = base.flatMap((u, j) => (u.owner !== t.owner && plugins?.includes(u.owner!) ? [j] : []));
    return found.length ? pick(...found) + shift : undefined;
  };
  const key = new Map(
    base.map((t, i) => [t, at(t, t.runsBefore, Math.min, -0.5) ?? at(t, [t.after ?? []].flat(), Math.max, 0.5) ?? i]),
  );
  const pending = [...base].sort((a, b) => key.get(a)! - key.get(b)!);
  const sorted: TapRecord[] = [];
  while (pending.length > 0) {
    const next = pending.findIndex((t) => !pending.some((u) => precedes(u, t)));
    if (next < 0) {
      const plugins = [...new Set(pending.map((t) => t.owner))].join(", ");
      throw new HookUsageError(`the before/after orders of ${plugins} on ${hookName} contradict each other; drop one`);
    }
    sorted.push(...pending.splice(next, 1));
  }
  hook.taps.splice(0, hook.taps.length, ...sorted);
  // tapable compiles a hook's calls on first use: a hook already called (an `event`) must compile again.
  (hook as { _resetCompilation?: () => void })._resetCompilation?.();
}

/** Build a kernel from presets, plugins, `disable` and options. Throws on a bad config. */
export function createKernel(config: UbiquityConfig = {}): Kernel {
  if (typeof config !== "object" || config === null)
    throw new TypeError("createKernel(config): config must be an object");
  return new KernelImpl(config);
}

/**
 * A TypeError a plugin throws while judging the resolved options is a bad option (DESIGN §1: an
 * unknown `providerSettings` key): `createKernel()` throws that TypeError itself, its message
 * naming the plugin and hook, rather than the PluginError wrapped around it.
 */
function badOptionError(error: unknown): unknown {
  if (!(error instanceof PluginError) || !(error.original instanceof TypeError)) return error;
  const original = error.original;
  original.message = error.message;
  return original;
}
