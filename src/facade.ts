/**
 * The one deliberate edge from the kernel to the product (DESIGN §5): `summon()` and the
 * runner bind to the default preset when no presets are given; and the public helpers the
 * package entry re-exports from built-in plugins. Loaded lazily, so importing
 * `ubiquity` stays cheap and the kernel stays feature-free.
 */
import { expandPlugins, type Preset } from "./preset";
import type { Plugin } from "./plugin";
import { configJsonSchemaText } from "./config/json-schema";
import { loadConfig as loadConfigWith, type LoadConfigOptions, type LoadedConfig } from "./config/load";
import type { Message } from "./messages";
import { runSummon } from "./summon";
import type { UbiquityConfig as KernelConfig } from "./config/schema";
import type { ConfigEnv } from "./kernel";
import type { DefaultOptions } from "../presets/default";
import type { output, ZodType } from "zod";
import type { StructuredMessage } from "../plugins/structured-output/options";

/** Every option of a run with the default preset: the kernel's and each built-in plugin's slice. */
export type Options = DefaultOptions;
/** A config object for the default product: its options plus `presets`, `plugins`, `disable`. */
export type UbiquityConfig = KernelConfig<DefaultOptions>;
/** Options of `summon()`: every option of the default preset plus the kernel fields `presets`, `plugins`, `disable`. */
export type SummonOptions = UbiquityConfig;

/** Identity helper that types a config file's default export (with the default preset's options). */
export function defineConfig<C extends UbiquityConfig | ((env: ConfigEnv) => UbiquityConfig | Promise<UbiquityConfig>)>(config: C): C {
  return config;
}

// The option vocabulary of the built-in plugins (their `options.ts`: zod and types only, so the
// package entry stays cheap): what `Options` is made of.
export { PERMISSION_MODES, type PermissionMode, type PermissionResult, type CanUseTool } from "../plugins/permissions/options";
export { HOOK_EVENTS, type HookEventName, type HookMatcher, type HookInput, type HookOutput, type HookCallback } from "../plugins/hooks/options";
export type { McpServerConfig } from "../plugins/mcp/options";
export type { SandboxOption } from "../plugins/sandbox/options";
export type { AgentDefinition } from "../plugins/agents/options";
export type { ModelPricing } from "../plugins/pricing/options";
export type { OutputMode, OutputSchema, StructuredMessage, StructuredResultMessage } from "../plugins/structured-output/options";

/** The default preset (every built-in plugin, in canonical order). */
export async function defaultPreset(): Promise<Preset> {
  return (await import("../presets/default")).default;
}

/** The plugins of the default preset, in order (their option slices make up `Options` and the JSON Schema). */
export async function defaultPlugins(): Promise<Plugin[]> {
  return expandPlugins({ presets: [await defaultPreset()] }).plugins.map((p) => p.plugin);
}

/** The JSON Schema text of a config for the default preset (`ubiquity schema`, `npm run schema`). */
export async function defaultConfigJsonSchemaText(): Promise<string> {
  return configJsonSchemaText(await defaultPlugins());
}

/**
 * `loadConfig` for the default product: a config that names no presets validates against the
 * default preset's plugins (their options), as it will run with them.
 */
export function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  return loadConfigWith({ defaultPresets: async () => [await defaultPreset()], ...options });
}

/**
 * Run an agent: yields `system/init` first, then the conversation, and always a `result` last.
 * With no `presets` the default preset applies; `plugins` are added after it (a same-name plugin
 * replaces a built-in in place). With a zod `outputSchema`, the result's `structuredOutput` has
 * the schema's output type (a JSON Schema gives `unknown`).
 */
export function summon<S extends ZodType>(prompt: string, options: SummonOptions & { outputSchema: S }): AsyncGenerator<StructuredMessage<output<S>>>;
export function summon(prompt: string, options?: SummonOptions): AsyncGenerator<Message>;
export function summon(prompt: string, options: SummonOptions = {}): AsyncGenerator<Message> {
  if (typeof prompt !== "string") throw new TypeError(`summon(prompt, options): prompt must be a string, got ${typeof prompt}`);
  if (typeof options !== "object" || options === null) throw new TypeError("summon(prompt, options): options must be an object");
  return runSummon(prompt, options, async () => [await defaultPreset()]);
}

// Sessions: the store is public API.
export { SessionStore, SessionNotFoundError } from "../plugins/sessions/store";
export type { SessionInfo, SessionStoreOptions, StoredSession, ForkOptions } from "../plugins/sessions/store";
export type { TranscriptRecord, PersistedMessage, TranscriptNote } from "../plugins/sessions/records";
export { listCheckpoints, rewindFiles, rewindConversation, CheckpointNotFoundError, ActiveRunError } from "../plugins/checkpoints/api";
export type { CheckpointInfo, CheckpointQuery, RewindOptions, RewindResult, FileChange, FileAction, RefusedChange, NotCovered, NotCoveredReason } from "../plugins/checkpoints/api";

// The model layer's public helpers live in their plugins; these lines are the package entry's
// only view of them (the modules they come from import no provider package).
export { registerAlias, openaiCompatible, type OpenAICompatibleSettings } from "../plugins/model/index";
export { registerPricing, registerContextWindow } from "../plugins/pricing/index";

// The built-in tool suite, for `tools: [...builtinTools(), mine]`.
export { builtinTools } from "../plugins/tools/index";

// Events built-in plugins add to the `event` firehose (their types augment `PluginEvents`).
export type { SandboxViolationEvent } from "../plugins/sandbox/events";
