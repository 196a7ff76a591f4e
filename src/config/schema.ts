/**
 * The kernel's slice of the config schema: the options `src/` reads and the kernel fields.
 * Each plugin declares the options it reads (`Plugin.options`); `composeConfigSchema` joins the
 * slices of a plugin list into the schema that validates a config, types it and generates the
 * committed JSON Schema (`schema/ubiquity.config.schema.json`). Fields that only code can
 * supply (functions, model instances, signals) are `z.custom` and render as `{}` in JSON Schema.
 */
import { z } from "zod";
import type { LanguageModel } from "ai";
import type { Plugin, PluginFactory } from "../plugin";
import type { Preset } from "../preset";
import { isTool, type Tool } from "../tool";

/** A model: a `"provider:model"` string, an alias, or a constructed AI SDK `LanguageModel`. */
export const ModelSchema = z.union([
  z.string().min(1).describe('"provider:model" (e.g. "openai:gpt-5"), an alias, or "test"'),
  z.custom<Exclude<LanguageModel, string>>(
    (v) => typeof v === "object" && v !== null && typeof (v as { modelId?: unknown }).modelId === "string",
    { message: "expected a model string or an AI SDK LanguageModel" },
  ),
]);

/** A time limit in milliseconds (each one's description says what it bounds and its default). */
const limitMs = (description: string) => z.number().positive().optional().describe(description);

/** A console-shaped logger. */
export interface Logger {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

/**
 * The options the kernel itself reads (the loop, the funnel, the run); every other option is
 * declared by the plugin that reads it (`Plugin.options`) and composed in by `composeConfigSchema`.
 * Defaults are noted in each description.
 */
export const OptionsSchema = z.strictObject({
  // model layer
  model: ModelSchema.optional().describe("The model; unset reads UBIQUITY_MODEL"),
  providerOptions: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  /** Longest wait from sending a model request to the first part of its answer; then the attempt fails and is retried. */
  requestTimeoutMs: limitMs(
    "Time to the first part of a model's answer, per attempt; a retryable failure when hit [120000]",
  ),
  /** Longest silence inside a model's streamed answer once it has started; then the attempt fails and is retried. */
  streamIdleTimeoutMs: limitMs(
    "Longest silence (no byte received) inside a streamed answer, per attempt; a retryable failure when hit [120000]",
  ),
  /** Longest a model's whole answer may take, from the request to its end; then the attempt fails and is retried. */
  responseTimeoutMs: limitMs(
    "Time from sending a model request to the end of its answer, per attempt; a retryable failure when hit [600000]",
  ),
  // workspace
  cwd: z.string().optional().describe("[process.cwd()]"),
  additionalDirectories: z.array(z.string()).optional(),
  // tools
  tools: z.array(z.custom<Tool>(isTool, { message: "expected a Tool (use defineTool() or extend Tool)" })).optional(),
  toolTimeoutMs: limitMs(
    "Longest a tool call may run unless the tool sets its own; then it is stopped, or abandoned when it ignores its signal [600000]",
  ),
  toolTimeouts: z
    .record(z.string(), z.number().positive())
    .optional()
    .describe("Time limits of named tools (ms), over the tool's own and toolTimeoutMs"),
  // limits and generation
  maxTurns: z.number().int().positive().optional().describe("[40]"),
  maxTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  // streaming
  includePartialMessages: z.boolean().optional(),
  env: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      "Variables added to the environment of every process the run starts (commands, command hooks, local servers); they win and are never scrubbed",
    ),
  /**
   * What subprocesses (Bash, command hooks, stdio MCP servers) get from this process: "scrubbed"
   * passes only an allow-list (locale, terminal, PATH without relative entries, HOME, temp, TLS and
   * proxy settings; never a credential, UBIQUITY_* or anything else); "inherit" passes everything,
   * as before, to Bash and hooks (stdio MCP servers keep the allow-list). `env` adds variables in both.
   */
  subprocessEnv: z
    .enum(["scrubbed", "inherit"])
    .optional()
    .describe(
      "Subprocesses get only the allow-list (locale, terminal, PATH, HOME, temp, TLS, proxies) plus `env`, or with \"inherit\" (Bash, hooks) everything ['scrubbed']",
    ),
  abortSignal: z.custom<AbortSignal>((v) => typeof v === "object" && v !== null && "aborted" in v).optional(),
  logger: z
    .custom<Logger>((v) => typeof v === "object" && v !== null && typeof (v as Logger).warn === "function")
    .optional(),
});

/**
 * A plugin list entry: a plugin, a factory, a module specifier, `[specifier, options]`, or `false`.
 * A function is never taken for a plugin object (it has a `name` and an `apply` too): a factory
 * whose options are required must be called (`weather({ key })`), or tsc says so.
 */
export type PluginEntry = PluginObject | PluginFactory | string | [string, unknown] | false | null | undefined;
/** A plugin object (a function is a factory: it has a `name` and an `apply` too). */
export type PluginObject = Plugin & { call?: never };
/** A preset list entry: a preset, a module specifier, or `[specifier, options]`. */
export type PresetEntry = Preset | string | [string, unknown] | false | null | undefined;

/** A list entry: a module specifier, `[specifier, options]`, `false`/`null` (skipped), or the thing itself. */
const entrySchema = <T>(what: string, isThing: (v: unknown) => boolean) =>
  z.union([
    z.string().min(1),
    z.tuple([z.string().min(1), z.unknown()]),
    z.literal(false),
    z.null(),
    z.custom<T>(isThing, { message: `expected a ${what}` }),
  ]);
const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
const PluginEntrySchema = entrySchema<Plugin | PluginFactory>("plugin", (v) => typeof v === "function" || isObject(v));
const PresetEntrySchema = entrySchema<Preset>("preset", isObject);

/** The kernel fields: which plugins make up the product. */
export const KernelFieldsSchema = z.strictObject({
  $schema: z.string().optional(),
  presets: z.array(PresetEntrySchema).optional().describe("Presets, expanded depth-first in reading order"),
  plugins: z
    .array(PluginEntrySchema)
    .optional()
    .describe("Plugins after the presets; a same-name plugin replaces in place"),
  disable: z.array(z.string()).optional().describe("Plugin names to remove"),
});

/** A config file's (or createKernel's) full shape: options plus kernel fields. */
export const ConfigSchema = OptionsSchema.extend(KernelFieldsSchema.shape);

/**
 * The options the kernel reads. The options of a product are these plus its plugins' slices:
 * the default preset's are `DefaultOptions` (`Options` of the package entry).
 */
export type KernelOptions = z.input<typeof OptionsSchema>;
/**
 * A config object: the kernel's options plus `presets`, `plugins`, `disable`, and the options
 * declared by the plugins in the list (validated at `createKernel` against their slices).
 * `O` types the plugin options (the package entry's `UbiquityConfig` passes the default preset's).
 */
export type UbiquityConfig<O extends object = { [option: string]: unknown }> = Omit<
  z.input<typeof ConfigSchema>,
  "plugins" | "presets"
> & {
  presets?: PresetEntry[];
  plugins?: PluginEntry[];
} & O;
