/**
 * The one deliberate edge from the kernel to the product (DESIGN §5): `summon()` and the
 * runner bind to the default preset when no presets are given. Loaded lazily, so importing
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

/** The built-in presets by name, for `ubiquity run --preset`. Static imports, so the build resolves each file. */
export const BUILTIN_PRESETS = {
  default: () => import("../presets/default"),
  minimal: () => import("../presets/minimal"),
  headless: () => import("../presets/headless"),
} as const satisfies Record<string, () => Promise<{ default: Preset }>>;

/** A built-in preset by name, or undefined when there is none of that name. */
export async function builtinPreset(name: string): Promise<Preset | undefined> {
  const load = (BUILTIN_PRESETS as Record<string, (() => Promise<{ default: Preset }>) | undefined>)[name];
  return load ? (await load()).default : undefined;
}

/**
 * Run an agent: yields `system/init` first, then the conversation, and always a `result` last.
 * With no `presets` the default preset applies; `plugins` are added after it (a same-name plugin
 * replaces a built-in in place).
 */
export function summon(prompt: string, options: SummonOptions = {}): AsyncGenerator<Message> {
  if (typeof prompt !== "string") throw new TypeError(`summon(prompt, options): prompt must be a string, got ${typeof prompt}`);
  if (typeof options !== "object" || options === null) throw new TypeError("summon(prompt, options): options must be an object");
  return runSummon(prompt, options, async () => [await defaultPreset()]);
}

// Sessions: the store is public API, and the runner's `sessions` command is its view.
export { SessionStore, SessionNotFoundError } from "../plugins/sessions/store";
export type { SessionInfo, SessionStoreOptions, StoredSession, ForkOptions } from "../plugins/sessions/store";
export type { TranscriptRecord, PersistedMessage } from "../plugins/sessions/records";
export { sessionsCommand } from "../plugins/sessions/command";

// The model layer's public helpers live in their plugins; these lines are the package entry's
// only view of them (the modules they come from import no provider package).
export { registerAlias, openaiCompatible, type OpenAICompatibleSettings } from "../plugins/model/index";
export { registerPricing, registerContextWindow } from "../plugins/pricing/index";
export { listModelProviders, formatModelProviders, type ModelProviderRow } from "../plugins/model/models-report";

// MCP: `ubiquity mcp list` is the mcp plugin's view of a kernel's servers. Loaded on first use,
// like the default preset, so the package entry does not load the plugin.
import type { Kernel } from "./kernel";
import type { McpCommandArgs, McpCommandIO } from "../plugins/mcp/command";
/** Run `ubiquity mcp list` against a kernel built from the config; disposes it; resolves to the exit code. */
export async function mcpListCommand(kernel: Kernel, args: McpCommandArgs, io: McpCommandIO): Promise<number> {
  return (await import("../plugins/mcp/command")).mcpListCommand(kernel, args, io);
}
export type { McpCommandArgs, McpCommandIO } from "../plugins/mcp/command";

// Sandbox: `ubiquity sandbox check`, loaded on use.
/** Run `ubiquity sandbox …`; resolves to the exit code. */
export async function sandboxCommand(argv: string[], io: { stdout(text: string): void; stderr(text: string): void }): Promise<number> {
  return (await import("../plugins/sandbox/command")).sandboxCommand.raw(argv, io);
}

// The built-in tool suite, for `tools: [...builtinTools(), mine]`.
export { builtinTools } from "../plugins/tools/index";

// Permissions: `ubiquity permissions check`, loaded on use (the permissions plugin brings the bash grammar).
/** Run `ubiquity permissions …`; resolves to the exit code. */
export async function permissionsCommand(argv: string[], io: { stdout(text: string): void; stderr(text: string): void }): Promise<number> {
  return (await import("../plugins/permissions/command")).permissionsCommand.raw(argv, io);
}

// MCP configs in the `.mcp.json` shape, for `ubiquity run --mcp-config <file>`.
export { parseMcpConfig } from "../plugins/mcp/config";
