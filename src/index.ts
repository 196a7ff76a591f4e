/**
 * The kernel's public API: what plugins import (`../../src/index`). The package entry
 * (`sdk/index.ts`) adds the product facade on top; this file never imports plugins, so plugins
 * importing it form no cycle.
 */
export { createKernel, validateConfig, composeConfigSchema, hasTaps, OptionsSchema } from "./kernel";
export type { Kernel, ResolvedOptions, TapDescription, ComposedSchema, ValidationPlugins } from "./kernel";
export { definePlugin, isPlugin, describeValue } from "./plugin";
export type { Plugin, PluginFactory, PluginContext, PluginSpec, PluginOptionsOf } from "./plugin";
export { definePreset, expandPlugins } from "./preset";
export type { Preset, ResolvedPlugin, Expansion } from "./preset";
export { Registry } from "./registry";
export type { RegistryEntry } from "./registry";
export { REQUEST_STAGE, SYSTEM_STAGE, COMPACT_STAGE, PERMISSION_STAGE, ASK_STAGE, PROMPT_STAGE, ERROR_STAGE } from "./stages";
export { CallWatch, ModelTimeoutError, restartRequestTimer, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_STREAM_IDLE_TIMEOUT_MS, type CallLimit } from "./call-limits";
export { OBSERVER_HOOKS } from "./hooks";
export type * from "./hooks";
export { Tool, defineTool, isTool, toolJsonSchema } from "./tool";
export type { ToolContext, ToolSpec, ToolPermission, SubprocessEnvMode } from "./tool";
export { emptyUsage, addUsage, stamp } from "./messages";
export type * from "./messages";
export {
  UbiquityError,
  PluginError,
  HookUsageError,
  PluginResolutionError,
  ConfigError,
  ModelError,
  UsageError,
  describeError,
} from "./errors";
export { ConfigSchema, KernelFieldsSchema, ModelSchema, functionSchema } from "./config/schema";
export { absolutePath } from "./paths";
export { CHARS_PER_TOKEN } from "./tokens";
export type { KernelOptions, UbiquityConfig, PluginEntry, PresetEntry, Logger } from "./config/schema";
export { defaultLogger, debugEnabled } from "./logger";
export { UserInterrupt } from "./live";
export type { UserTurn, UserContentParts, RunInput } from "./live";
export { driveRun } from "./loop";
export { callModel, resolveModel, modelLabel, requestedModel, RunEnd } from "./model-call";
export type { ModelCall, ModelRequestInit } from "./model-call";
export { createRun, chargeUsage } from "./run";
export { testModel } from "./testing/test-model";
export type { RunContext, AgentIdentity, CreateRunInit } from "./run";
export { runToolCall, runToolCalls, toolContext, capContent, DEFAULT_MAX_RESULT_CHARS } from "./funnel";
export type { RawToolCall, CallOutcome } from "./funnel";
export { redactText, redactValue, redactStrings, redactingLogger, secretsOf, isCredentialName, credentialValues, urlPasswords, MIN_SECRET_LENGTH } from "./redact";
export type { SecretBearingOptions } from "./redact";
