/**
 * The package entry (`import … from "ubiquity"`): what an application uses — `summon()` bound to
 * the default preset, config files, the option and message types, sessions, checkpoints, model
 * helpers and the errors it may catch. What a plugin author needs is `ubiquity/plugin`
 * (`sdk/plugin.ts`); each built-in plugin is `ubiquity/plugins/<name>`. Every name is listed
 * (no `export *`), and api/ubiquity.api.md is the reviewed report of this surface
 * (`npm run api:update` after a deliberate change).
 */

// Running an agent.
export { summon, defineConfig, loadConfig } from "./facade";
export type { Options, PluginOptions, UbiquityConfig, SummonOptions, Query } from "./facade";
export type { SessionControls } from "./summon";
export { LiveInput, userTurn, type UserInput, type AgentSdkContentBlock } from "./live";
export type { RunInput, UserTurn, UserContentParts, PluginEntry, PluginObject, PresetEntry } from "../src/index";
export type { LoadConfigOptions, LoadedConfig, ConfigEnv } from "../loader/index";
// A kernel of one's own (DESIGN §1), and the pieces a config lists inline: plugins, presets, tools.
export { createKernel, Tool } from "../src/index";
export type { Kernel, Plugin, PluginFactory, Preset, ToolContext, ToolPermission, Logger } from "../src/index";
export { definePlugin, definePreset, defineTool, type ToolSpec } from "../plugins/_kits/authoring/index";
export { builtinTools } from "./facade";

// Messages a run yields (`Message` is the union; plugins add theirs through `PluginMessages`).
export type {
  Message,
  MessageBase,
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
export type { SystemCompactBoundaryMessage } from "../plugins/compaction-summarize/index";
export type { SystemMicrocompactMessage } from "../plugins/compaction-micro/index";
export type { SystemSessionWriteFailedMessage } from "../plugins/sessions/index";
export type { SandboxViolationEvent } from "./facade";

// The vocabulary of the options.
export { PERMISSION_MODES, HOOK_EVENTS } from "./facade";
export type {
  PermissionMode,
  PermissionResult,
  PermissionUpdateRules,
  CanUseToolResult,
  CanUseTool,
  HookEventName,
  HookMatcher,
  HookInput,
  HookOutput,
  HookSpecificOutput,
  HookCallback,
} from "./facade";
export type {
  McpServerConfig,
  SandboxOption,
  AgentDefinition,
  ModelPricing,
  McpElicitation,
  McpElicitationResult,
  McpElicitationValue,
  OnElicitation,
  McpResourceContents,
  McpResourceInfo,
  McpResourceTemplateInfo,
  TaskInfo,
  TaskKind,
  TaskState,
  CommandInfo,
  ShellOutcome,
  OutputMode,
  OutputSchema,
  StructuredMessage,
  StructuredResultMessage,
} from "./facade";
export { parseMcpConfig, type ParseMcpConfigOptions } from "./facade";

// Models: aliases, OpenAI-compatible servers, prices and context windows.
export { registerAlias, openaiCompatible, registerPricing, registerContextWindow } from "./facade";
export type { OpenAICompatibleSettings } from "./facade";

// Sessions and checkpoints.
export { SessionStore, SessionNotFoundError } from "./facade";
export type {
  SessionInfo,
  SessionStoreOptions,
  StoredSession,
  ForkOptions,
  TranscriptRecord,
  PersistedMessage,
  TranscriptNote,
} from "./facade";
export type { ListOptions, ForkedSession } from "../plugins/sessions/index";
export { listCheckpoints, rewindFiles, rewindConversation, CheckpointNotFoundError, ActiveRunError } from "./facade";
export type {
  CheckpointInfo,
  CheckpointQuery,
  RewindOptions,
  RewindResult,
  FileChange,
  FileAction,
  RefusedChange,
  NotCovered,
  NotCoveredReason,
} from "./facade";

// Errors an application may catch (`summon()` reports failures as a `result` message instead).
export { UbiquityError, ConfigError, PluginError, PluginResolutionError, ModelError } from "../src/index";
