/**
 * The plugin author's entry (`import … from "ubiquity/plugin"`): how plugins, presets and tools
 * are made (`definePlugin`, `defineTool`, `Tool`), the kernel they tap (its hooks, stages,
 * payload types and run context), the errors they throw, and the kits' helpers the built-in
 * plugins use for the same jobs (paths, subprocess environments, secrets, token estimates).
 * Applications import `ubiquity`; tests of a plugin add `ubiquity/testing`. Every name is
 * listed, and api/ubiquity-plugin.api.md is the reviewed report of this surface.
 */

// Making plugins, presets and tools.
export {
  definePlugin,
  definePreset,
  defineTool,
  functionSchema,
  readOption,
  type TextBlocksResult,
  type ToolSpec,
  type PluginSpec,
  type FactoryOptionsOf,
  type SpecContext,
} from "../plugins/_kits/authoring/index";
export { Tool } from "../src/index";
export type { Plugin, PluginFactory, PluginContext, PluginOptionsOf, Preset } from "../src/index";
export type { ToolContext, ToolPermission, ToolKind, SubprocessEnvMode } from "../src/index";

// The kernel: its hooks (types derived from their constructors), the order of taps, the run.
export type { Kernel, ResolvedOptions, TapDescription, TapOrder } from "../src/index";
export type {
  Hooks,
  KernelEvent,
  PluginEvents,
  BeforeCall,
  CompactInfo,
  CompactState,
  ModelErrorInfo,
  ModelProvider,
  ModelPurpose,
  ModelRecovery,
  ModelRef,
  ModelRequest,
  ModelResponse,
  PermissionResult,
  PermissionVerdict,
  StopDecision,
  StopInfo,
  SystemSection,
  ToolCall,
  TurnInfo,
  TurnPrompt,
} from "../src/index";
export {
  ASK_STAGE,
  COMPACT_STAGE,
  ERROR_STAGE,
  PERMISSION_STAGE,
  PROMPT_STAGE,
  REQUEST_STAGE,
  SYSTEM_STAGE,
} from "../src/index";
export type { RunContext, AgentIdentity, RunInput, UserTurn, UserContentParts } from "../src/index";
export type { RegistryApi, RegistryEntry } from "../src/index";
export type {
  UbiquityConfig as KernelConfig,
  KernelOptions,
  PluginEntry,
  PluginObject,
  PresetEntry,
  Logger,
} from "../src/index";
// A plugin that asks a model goes through the one path every model call takes (request hooks, usage).
export { callModel, resolveModel } from "../src/index";
export type { ModelCall, ModelRequestInit } from "../src/index";

// Messages (a plugin adds its own to `Message` by merging into `PluginMessages`).
export type {
  Message,
  MessageBase,
  MessageInit,
  SystemMessage,
  SystemInitMessage,
  UserMessage,
  AssistantMessage,
  AssistantBlock,
  ToolUseMessage,
  ToolResultMessage,
  StreamEventMessage,
  ResultMessage,
  ResultSubtypes,
  PluginMessage,
  PluginMessages,
  PermissionDenial,
  StopReason,
  ToolOutput,
  ToolContentPart,
  Usage,
} from "../src/index";

// The runner's contract: plugin commands and run flags, terminal answerers, project files under trust.
export type {
  PluginCommand,
  CommandFlag,
  CommandArgs,
  CommandIO,
  RunFlag,
  FlagValue,
  Terminal,
  TerminalCall,
  TerminalAnswerer,
  ProjectFile,
  ProjectPlace,
} from "../loader/index";

// Errors a plugin throws (each message names the fix).
export { UbiquityError, ConfigError, PluginError, ModelError, HookUsageError } from "../src/index";
export { UsageError } from "../loader/index";

// The kits' helpers the built-in plugins use for the same jobs.
export { isInside, resolveReal } from "../plugins/_kits/paths/index";
export { absolutePath } from "../src/index";
export {
  buildSubprocessEnv,
  isCredentialVariable,
  isScrubbedVariable,
  type SubprocessEnvOptions,
} from "../plugins/_kits/process/index";
export { redactText, secretsOf } from "../src/index";
export { redactValue } from "../plugins/_kits/redaction/index";
export type { LoadedSession, SessionLoadRequest, SessionLoader } from "../plugins/sessions/index";
export { estimateTokens, IMAGE_TOKENS } from "../plugins/_kits/compaction/index";
export { SourcesSchema } from "../plugins/_kits/sources/index";
