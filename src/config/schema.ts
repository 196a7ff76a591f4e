/**
 * The one schema: the source of the `Options` type, of runtime validation and of the
 * committed JSON Schema (`schema/ubiquity.config.schema.json`). Fields that only code can
 * supply (functions, model instances, signals) are `z.custom` and render as `{}` in JSON Schema.
 */
import { z } from "zod";
import type { LanguageModel } from "ai";
import type { Plugin, PluginFactory } from "../plugin";
import type { Preset } from "../preset";
import type { Tool } from "../tool";

const fn = <T extends (...args: never[]) => unknown>(what: string) =>
  z.custom<T>((v) => typeof v === "function", { message: `expected a function (${what})` });

/** A permission mode. */
export const PERMISSION_MODES = ["default", "acceptEdits", "bypassPermissions", "plan", "dontAsk"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** The user-facing hook events (see the hooks plugin). */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "PermissionDenied",
  "UserPromptSubmit",
  "SessionStart",
  "SessionEnd",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "Notification",
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** A model: a `"provider:model"` string, an alias, or a constructed AI SDK `LanguageModel`. */
export const ModelSchema = z.union([
  z.string().min(1).describe('"provider:model" (e.g. "openai:gpt-5"), an alias, or "test"'),
  z.custom<Exclude<LanguageModel, string>>(
    (v) => typeof v === "object" && v !== null && typeof (v as { modelId?: unknown }).modelId === "string",
    { message: "expected a model string or an AI SDK LanguageModel" },
  ),
]);

/** What a user hook receives (see the hooks plugin). */
export interface HookInput {
  hookEventName: HookEventName;
  sessionId: string;
  cwd: string;
  permissionMode: string;
  /** Set when the event fires inside a subagent. */
  agentId?: string;
  agentType?: string;
  toolName?: string;
  toolInput?: Record<string, unknown>;
  toolUseId?: string;
  /** PostToolUse / PostToolUseFailure: the tool's output content. */
  toolOutput?: string;
  /** UserPromptSubmit: the prompt. */
  prompt?: string;
  /** Notification, PermissionDenied, Stop, SessionEnd, PostCompact: the text of the event. */
  message?: string;
  /** Event-specific facts (e.g. `reason` of a Notification, `source` of SessionStart). */
  extra: Record<string, unknown>;
}

/** What a user hook may answer; `undefined` (or `{}`) means no opinion. */
export interface HookOutput {
  decision?: "block" | "approve";
  reason?: string;
  /** PreToolUse: replace the tool input (later hooks and the permission check see it). */
  updatedInput?: Record<string, unknown>;
  /** UserPromptSubmit/SessionStart: context ahead of the prompt; PostToolUse: appended to the result. */
  additionalContext?: string;
  /** A message for the person running the program (logged at info). */
  systemMessage?: string;
  /** Accepted for compatibility with Claude Code hook scripts. */
  suppressOutput?: boolean;
  /** `false` stops the run after this event (the reason says why). */
  continue?: boolean;
}

/** A hook callback. */
export type HookCallback = (input: HookInput) => HookOutput | undefined | void | Promise<HookOutput | undefined | void>;

const CommandHookSchema = z.strictObject({
  type: z.literal("command"),
  command: z.string().min(1),
  timeout: z.number().positive().optional().describe("seconds"),
});

const HookMatcherSchema = z.strictObject({
  matcher: z.string().optional().describe('"*", a tool name, or "A|B" with globs like "mcp__github__*"'),
  hooks: z.array(z.union([fn<HookCallback>("hook callback"), CommandHookSchema])),
});

const McpStdioSchema = z.strictObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});
const McpRemoteSchema = (type: "sse" | "http") =>
  z.strictObject({
    type: z.literal(type),
    url: z.string().url(),
    headers: z.record(z.string(), z.string()).optional(),
  });
/** One MCP server: stdio (`command`), `sse` or streamable `http`. */
export const McpServerSchema = z.union([McpStdioSchema, McpRemoteSchema("sse"), McpRemoteSchema("http")]);

/** A subagent definition. */
export const AgentDefinitionSchema = z.strictObject({
  description: z.string().min(1),
  prompt: z.string().min(1),
  tools: z.array(z.string()).optional(),
  disallowedTools: z.array(z.string()).optional(),
  model: z.union([z.literal("inherit"), ModelSchema]).optional(),
  skills: z.array(z.string()).optional(),
  maxTurns: z.number().int().positive().optional(),
  permissionMode: z.enum(PERMISSION_MODES).optional(),
});

/** Prices in USD per million tokens. */
export const ModelPricingSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
  contextWindow: z.number().int().positive().optional(),
});

const SourcesSchema = z.array(z.enum(["user", "project", "local"]));

/** A console-shaped logger. */
export interface Logger {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

/** Permission handler result shapes. */
export type PermissionResult =
  | { behavior: "allow"; updatedInput?: Record<string, unknown>; message?: string }
  | { behavior: "deny"; message: string; interrupt?: boolean };

/** Called when a tool call needs a human decision. */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  context: { signal: AbortSignal; suggestions: string[]; toolUseId: string },
) => Promise<PermissionResult> | PermissionResult;

const SandboxFilesystemSchema = z.strictObject({
  allowWrite: z.array(z.string()).optional().describe("More folders the sandbox may write (cwd, additionalDirectories and a private temp folder always)"),
  denyWrite: z.array(z.string()).optional().describe("Paths kept read-only inside the writable folders (on top of the built-in list)"),
  denyRead: z.array(z.string()).optional().describe("Paths made unreadable (on top of Read(...) deny rules and the sensitive set)"),
  allowRead: z.array(z.string()).optional().describe("Paths readable again inside a denyRead folder"),
});
const SandboxNetworkSchema = z.union([
  z.literal("none"),
  z.literal("all"),
  z.strictObject({
    allowedDomains: z.array(z.string()).optional().describe('Hosts reachable through the filtering proxy: "example.com", "*.example.com", "localhost:8080"'),
    deniedDomains: z.array(z.string()).optional().describe("Hosts refused even when allowedDomains matches"),
  }),
]);
/** The OS sandbox for Bash, command hooks and stdio MCP servers (the ubiquity:sandbox plugin). */
export const SandboxSchema = z.union([
  z.boolean(),
  z.strictObject({
    enabled: z.boolean().optional().describe("[true when the object is given]"),
    filesystem: SandboxFilesystemSchema.optional(),
    network: SandboxNetworkSchema.optional().describe('["none"]'),
    failIfUnavailable: z.boolean().optional().describe("End the run when the sandbox cannot start [true]; false warns once and runs unsandboxed"),
    autoAllowBash: z.boolean().optional().describe("Sandboxed Bash calls that would only ask run without a prompt; deny and ask rules still apply [true]"),
    autoAllowBashIfSandboxed: z.boolean().optional().describe("Claude Code's name for autoAllowBash"),
    excludedCommands: z.array(z.string()).optional().describe('Commands run outside the sandbox, judged by the rules alone: "docker", "git push"'),
  }),
]);

/** Every option of a run, camelCase; defaults are noted in each description. */
export const OptionsSchema = z.strictObject({
  // model layer
  model: ModelSchema.optional().describe("The model; unset reads UBIQUITY_MODEL"),
  fallbackModel: ModelSchema.optional(),
  modelAliases: z.record(z.string(), z.string()).optional().describe("Run-scoped aliases [{}]"),
  apiKey: z.string().optional().describe("API key handed to every provider built from a string"),
  providerSettings: z.record(z.string(), z.unknown()).optional().describe("Passed verbatim to the provider factory [{}]"),
  providerOptions: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  maxRetries: z.number().int().nonnegative().optional().describe("HTTP retries [3]"),
  retryMaxWaitMs: z.number().nonnegative().optional().describe("[60000]"),
  /** Longest wait from sending a model request to the first part of its answer; then the attempt fails and is retried. */
  requestTimeoutMs: z
    .number()
    .positive()
    .optional()
    .describe("Time to the first part of a model's answer, per attempt; a retryable failure when hit [120000]"),
  /** Longest silence inside a model's streamed answer once it has started; then the attempt fails and is retried. */
  streamIdleTimeoutMs: z
    .number()
    .positive()
    .optional()
    .describe("Longest silence inside a streamed answer, per attempt; a retryable failure when hit [120000]"),
  // prompt
  systemPrompt: z.string().optional(),
  appendSystemPrompt: z.string().optional(),
  // workspace
  cwd: z.string().optional().describe("[process.cwd()]"),
  additionalDirectories: z.array(z.string()).optional(),
  // permissions
  permissionMode: z.enum(PERMISSION_MODES).optional().describe("['default']"),
  allowedTools: z.array(z.string()).optional(),
  disallowedTools: z.array(z.string()).optional(),
  askTools: z.array(z.string()).optional(),
  canUseTool: fn<CanUseTool>("canUseTool").optional(),
  permissionPromptTimeoutMs: z.number().positive().optional(),
  // tools and extensions
  tools: z.array(z.custom<Tool>((v) => typeof v === "object" && v !== null, { message: "expected a Tool" })).optional(),
  mcpServers: z.record(z.string(), McpServerSchema).optional(),
  agents: z.record(z.string(), AgentDefinitionSchema).optional(),
  agentSources: SourcesSchema.optional(),
  hooks: z.partialRecord(z.enum(HOOK_EVENTS), z.array(HookMatcherSchema)).optional(),
  skills: z.array(z.string()).optional(),
  skillSources: SourcesSchema.optional(),
  memory: z.array(z.string()).optional(),
  memorySources: SourcesSchema.optional(),
  // limits and generation
  maxTurns: z.number().int().positive().optional().describe("[40]"),
  maxTokens: z.number().int().positive().optional(),
  maxThinkingTokens: z.number().int().nonnegative().optional(),
  temperature: z.number().min(0).max(2).optional(),
  // context management
  cachePrompt: z.union([z.boolean(), z.enum(["5m", "1h"])]).optional().describe("[true]"),
  detectCacheBreaks: z.boolean().optional(),
  modelPricing: z.record(z.string(), ModelPricingSchema).optional(),
  marketPricing: z.boolean().optional().describe("[true]"),
  autoCompact: z.boolean().optional().describe("[true]"),
  autoMicrocompact: z.boolean().optional().describe("[true]"),
  microcompactKeepRecent: z.number().int().nonnegative().optional().describe("[5]"),
  maxContextTokens: z.number().int().positive().optional(),
  compactKeepRecent: z.number().int().nonnegative().optional().describe("[6]"),
  compactModel: ModelSchema.optional(),
  compactInstructions: z.string().optional(),
  compactThreshold: z.number().gt(0).lt(1).optional(),
  // streaming and sessions
  includePartialMessages: z.boolean().optional(),
  resume: z.string().optional(),
  continueConversation: z.boolean().optional(),
  forkSession: z.boolean().optional(),
  sessionId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "a session id is letters, digits, _ and - (a UUID fits)")
    .optional()
    .describe("The id of the run's session [a fresh UUID]; with forkSession, the fork's id"),
  persistSession: z.boolean().optional().describe("[true]"),
  sessionDir: z.string().optional().describe("[~/.ubiquity/sessions]"),
  persistTodos: z.boolean().optional().describe("[true]"),
  todoDir: z.string().optional().describe("[~/.ubiquity/todos]"),
  todoScope: z.enum(["project", "session"]).optional(),
  settingSources: SourcesSchema.optional(),
  trust: z
    .boolean()
    .optional()
    .describe(
      "Whether the cwd's own files (project/local settings beyond their deny and ask rules, .mcp.json, agents, skills, memory) apply [true: code that asks for a project source has decided; the runner sets it from the trust store]",
    ),
  env: z
    .record(z.string(), z.string())
    .optional()
    .describe("Variables added to the environment of Bash, command hooks and stdio MCP servers; they win and are never scrubbed"),
  /**
   * What Bash, command hooks and stdio MCP servers inherit from this process: "scrubbed" drops
   * every credential variable (provider keys, *_API_KEY, *_TOKEN, *_SECRET, …, URLs with a
   * password) and UBIQUITY_*; "inherit" passes them all, as before. `env` adds variables in both.
   */
  subprocessEnv: z
    .enum(["scrubbed", "inherit"])
    .optional()
    .describe("Subprocesses inherit credential variables only with \"inherit\" ['scrubbed']"),
  sandbox: SandboxSchema.optional().describe("Run Bash, command hooks and stdio MCP servers in an OS sandbox [off]"),
  abortSignal: z.custom<AbortSignal>((v) => typeof v === "object" && v !== null && "aborted" in v).optional(),
  logger: z
    .custom<Logger>((v) => typeof v === "object" && v !== null && typeof (v as Logger).warn === "function")
    .optional(),
});

/** A plugin list entry: a plugin, a factory, a module specifier, `[specifier, options]`, or `false`. */
export type PluginEntry = Plugin | PluginFactory | string | [string, unknown] | false | null | undefined;
/** A preset list entry: a preset, a module specifier, or `[specifier, options]`. */
export type PresetEntry = Preset | string | [string, unknown] | false | null | undefined;

const PluginEntrySchema = z.union([
  z.string().min(1),
  z.tuple([z.string().min(1), z.unknown()]),
  z.literal(false),
  z.null(),
  z.custom<Plugin | PluginFactory>(
    (v) => typeof v === "function" || (typeof v === "object" && v !== null && !Array.isArray(v)),
    { message: "expected a plugin" },
  ),
]);
const PresetEntrySchema = z.union([
  z.string().min(1),
  z.tuple([z.string().min(1), z.unknown()]),
  z.literal(false),
  z.null(),
  z.custom<Preset>((v) => typeof v === "object" && v !== null && !Array.isArray(v), { message: "expected a preset" }),
]);

/** The kernel fields: which plugins make up the product. */
export const KernelFieldsSchema = z.strictObject({
  $schema: z.string().optional(),
  presets: z.array(PresetEntrySchema).optional().describe("Presets, expanded depth-first in reading order"),
  plugins: z.array(PluginEntrySchema).optional().describe("Plugins after the presets; a same-name plugin replaces in place"),
  disable: z.array(z.string()).optional().describe("Plugin names to remove"),
});

/** A config file's (or createKernel's) full shape: options plus kernel fields. */
export const ConfigSchema = OptionsSchema.extend(KernelFieldsSchema.shape);

/** Every option of a run. */
export type Options = z.input<typeof OptionsSchema>;
/** A config object: options plus `presets`, `plugins`, `disable`. */
export type UbiquityConfig = Omit<z.input<typeof ConfigSchema>, "plugins" | "presets"> & {
  presets?: PresetEntry[];
  plugins?: PluginEntry[];
};
export type McpServerConfig = z.input<typeof McpServerSchema>;
export type SandboxOption = z.input<typeof SandboxSchema>;
export type AgentDefinition = z.input<typeof AgentDefinitionSchema>;
export type ModelPricing = z.input<typeof ModelPricingSchema>;
export type HookMatcher = z.input<typeof HookMatcherSchema>;
