/**
 * The package entry (`import … from "ubiquity"`): the kernel's public API (`./index`) plus the
 * product facade — `summon()` bound to the default preset, and the public helpers that live in
 * built-in plugins. Kept apart from `./index` so plugins, which import `./index`, never import
 * the facade back (no module cycle).
 */
export * from "../src/index";
export { consoleLogger } from "./console-logger";
// The authoring kit: what makes plugins, presets and tools (the kernel takes them however made).
export {
  definePlugin,
  definePreset,
  defineTool,
  functionSchema,
  type ToolSpec,
  type PluginSpec,
  type FactoryOptionsOf,
  type SpecContext,
} from "../plugins/_kits/authoring/index";
// The loader (config files, trust, safe reads): the runner's and `loadConfig()`'s, public as before.
export {
  findConfigFile,
  trustFromEnv,
  CONFIG_SEARCH_PLACES,
  configSearchFolders,
  resolveEntries,
  configJsonSchema,
} from "../loader/index";
export { readRegularFile, readRegularFileSync, describeJsonError, type RegularFileRead } from "../loader/index";
export {
  isFolderTrusted,
  rememberTrust,
  revokeTrust,
  readTrustStore,
  trustStorePath,
  trustPinsFor,
  TrustPins,
  isProjectFileTrusted,
  type TrustEntry,
  type FolderPins,
  type ProjectTrust,
} from "../loader/index";
export { UsageError } from "../loader/index";
export {
  findProjectFiles,
  pathExists,
  peekJsonOrYaml,
  printable,
  displayPath,
  type LoadConfigOptions,
  type LoadedConfig,
  type ConfigEnv,
} from "../loader/index";
// The plugin contract the runner and the trust question read (commands, run flags, terminal answerers, project files).
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
export { summon, defaultPreset, defaultPlugins, defineConfig, loadConfig } from "./facade";
export type { Options, PluginOptions, UbiquityConfig, SummonOptions, Query } from "./facade";
export type { SessionControls } from "./summon";
export { LiveInput, userTurn, type UserInput } from "./live";
export { PERMISSION_MODES, HOOK_EVENTS } from "./facade";
export type {
  PermissionMode,
  PermissionResult,
  CanUseTool,
  HookEventName,
  HookMatcher,
  HookInput,
  HookOutput,
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
} from "./facade";
export type { SandboxViolationEvent } from "./facade";
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
export { registerAlias, openaiCompatible, registerPricing, registerContextWindow } from "./facade";
export type { OpenAICompatibleSettings } from "./facade";
export { builtinTools, parseMcpConfig, type ParseMcpConfigOptions } from "./facade";
// The subprocess environment (the process kit: Bash, command hooks and stdio MCP servers build theirs with it).
export {
  buildSubprocessEnv,
  isCredentialVariable,
  isScrubbedVariable,
  type SubprocessEnvOptions,
} from "../plugins/_kits/process/index";
// Helpers the built-in plugins share and that plugin authors use too, from the kits that own them.
export { isInside, resolveReal } from "../plugins/_kits/paths/index";
export { estimateTokens, IMAGE_TOKENS } from "../plugins/_kits/compaction/index";
// Redaction of whole values (moved out of the kernel in 0.2; same names).
export { redactValue, redactStrings } from "../plugins/_kits/redaction/index";
export { SourcesSchema } from "../plugins/_kits/sources/index";
export type { SystemCompactBoundaryMessage } from "../plugins/compaction-summarize/index";
export type { SystemMicrocompactMessage } from "../plugins/compaction-micro/index";
export type {
  SystemSessionWriteFailedMessage,
  SessionLoadRequest,
  LoadedSession,
  SessionLoader,
} from "../plugins/sessions/index";
