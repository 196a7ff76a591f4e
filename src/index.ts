/**
 * The kernel's public API: what plugins import (`../../src/index`). The package entry
 * (`sdk/index.ts`) adds the product facade on top; this file never imports plugins, so plugins
 * importing it form no cycle. A module whose every export is public is re-exported whole.
 */
export { createKernel, validateConfig, composeConfigSchema } from "./kernel";
export type { Kernel, ResolvedOptions, TapDescription } from "./kernel";
export { isPlugin, assertPlugin, describeValue, rememberOptions, fieldsOf } from "./plugin";
export type { Plugin, PluginFactory, PluginContext, PluginOptionsOf } from "./plugin";
export { expandPlugins } from "./preset";
export type { Preset, ResolvedPlugin } from "./preset";
export type { RegistryApi, RegistryEntry } from "./registry";
export * from "./stages";
export { restartRequestTimer, noteBytesReceived } from "./call-limits";
export { OBSERVER_HOOKS } from "./hooks";
export type * from "./hooks";
export * from "./tool";
export * from "./messages";
export * from "./errors";
export { ConfigSchema, KernelFieldsSchema, ModelSchema } from "./config/schema";
export * from "./paths";
export * from "./tokens";
export type { KernelOptions, UbiquityConfig, PluginEntry, PluginObject, PresetEntry, Logger } from "./config/schema";
export * from "./logger";
export * from "./live";
export { driveRun, INTERRUPTED_MARKER } from "./loop";
export { callModel, resolveModel, modelLabel, requestedModel, toolSetOf, RunEnd } from "./model-call";
export type { ModelCall, ModelRequestInit } from "./model-call";
export { createRun } from "./run";
export { testModel } from "./testing/test-model";
export type { RunContext, AgentIdentity } from "./run";
export { runToolCall, runToolCalls, toolContext, capContent, DEFAULT_MAX_RESULT_CHARS } from "./funnel";
export type { RawToolCall } from "./funnel";
export * from "./redact";
export { closest, didYouMean } from "./suggest";
