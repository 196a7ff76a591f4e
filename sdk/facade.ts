/**
 * The one deliberate edge from the kernel to the product (DESIGN §5): `summon()` and the
 * runner bind to the default preset when no presets are given; and the public helpers the
 * package entry re-exports from built-in plugins. Loaded lazily, so importing
 * `ubiquity` stays cheap and the kernel stays feature-free.
 */
import {
  expandPlugins,
  type Message,
  type Plugin,
  type Preset,
  type UbiquityConfig as KernelConfig,
} from "../src/index";
import {
  UsageError,
  configJsonSchemaText,
  loadConfig as loadConfigWith,
  type ConfigEnv,
  type LoadConfigOptions,
  type LoadedConfig,
} from "../loader/index";
import type { UserInput } from "./live";
import { runSummon } from "./summon";
import type { LanguageModel } from "ai";
import type { PermissionMode } from "../plugins/permissions/options";
import type { DefaultOptions } from "../presets/default";
import type { output, ZodType } from "zod";
import type { StructuredMessage } from "../plugins/structured-output/options";
import type { TaskInfo } from "../plugins/_kits/tasks/index";
import type { CommandInfo, ShellOutcome } from "../plugins/commands/api";
import type { ReasoningLevel, ReasoningSchedule } from "../plugins/reasoning/api";
import type { McpResourceContents, McpResourceInfo, McpResourceTemplateInfo } from "../plugins/mcp/resources";
import { queryShapeHint } from "./agent-sdk-names";

declare global {
  /**
   * Types third-party plugins extend by declaration merging. It is a global namespace, not a
   * module's interface, so a plugin's augmentation reaches the config's `ubiquity` even when the
   * plugin type-checks against a second copy of the package (`npm i ../my-plugin`):
   *
   * ```ts
   * declare global { namespace Ubiquity { interface PluginOptions { greeting?: string } } }
   * ```
   */
  namespace Ubiquity {
    /** The top-level options third-party plugins declare (their `options` slice), merged into `Options`. */
    interface PluginOptions {}
  }
}

/** The top-level options the installed third-party plugins declare (`Ubiquity.PluginOptions`, filled by declaration merging). */
export type PluginOptions = { [K in keyof Ubiquity.PluginOptions]: Ubiquity.PluginOptions[K] };
/** Every option of a run with the default preset: the kernel's, each built-in plugin's slice, and third-party plugins' (`PluginOptions`). */
export type Options = DefaultOptions & PluginOptions;
/**
 * A config object for the default product: its options plus `presets`, `plugins`, `disable`.
 * `Extra` adds the options of plugins that declare no `Ubiquity.PluginOptions` merge (a typed
 * alternative: `defineConfig<{ greeting?: string }>({ … })`).
 */
export type UbiquityConfig<Extra extends object = {}> = KernelConfig<Options & Extra>;
/** Options of `summon()`: every option of the default preset plus the kernel fields `presets`, `plugins`, `disable`. */
export type SummonOptions = UbiquityConfig;

/**
 * Identity helper that types a config file's default export. Not generic over the config itself,
 * so `tsc` reports an unknown key (`maxTurnz`), an unknown hook event (`PreToolUze`) and a wrong
 * option type, including third-party plugins' options (`Ubiquity.PluginOptions`, or `Extra`).
 */
export function defineConfig<Extra extends object = {}>(
  config: (env: ConfigEnv) => NoInfer<UbiquityConfig<Extra>> | Promise<NoInfer<UbiquityConfig<Extra>>>,
): (env: ConfigEnv) => UbiquityConfig<Extra> | Promise<UbiquityConfig<Extra>>;
export function defineConfig<Extra extends object = {}>(config: NoInfer<UbiquityConfig<Extra>>): UbiquityConfig<Extra>;
export function defineConfig(config: unknown): unknown {
  return config;
}

// The option vocabulary of the built-in plugins (their `options.ts`: zod and types only, so the
// package entry stays cheap): what `Options` is made of.
export {
  PERMISSION_MODES,
  type PermissionMode,
  type PermissionResult,
  type PermissionUpdateRules,
  type CanUseTool,
  type CanUseToolResult,
} from "../plugins/permissions/options";
export {
  HOOK_EVENTS,
  type HookEventName,
  type HookMatcher,
  type HookInput,
  type HookOutput,
  type HookSpecificOutput,
  type HookCallback,
} from "../plugins/hooks/options";
export type { McpServerConfig } from "../plugins/mcp/options";
export type {
  McpElicitation,
  McpElicitationResult,
  McpElicitationValue,
  OnElicitation,
} from "../plugins/mcp/elicitation";
export type { McpResourceContents, McpResourceInfo, McpResourceTemplateInfo } from "../plugins/mcp/resources";
export type { SandboxOption } from "../plugins/sandbox/options";
export type { AgentDefinition } from "../plugins/agents/options";
export type { TaskInfo, TaskKind, TaskState } from "../plugins/_kits/tasks/index";
export type { CommandInfo, ShellOutcome } from "../plugins/commands/api";
export type { ModelPricing } from "../plugins/pricing/options";
export type {
  OutputMode,
  OutputSchema,
  StructuredMessage,
  StructuredResultMessage,
} from "../plugins/structured-output/options";

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
 * A running `summon()`: its messages (`for await`), and controls shaped like the Claude Agent
 * SDK's `Query`. Each control acts on the session once `system/init` is out (it waits until then).
 */
export interface Query<M = Message> extends AsyncGenerator<M> {
  /** Stop the work in progress: the model stream and the tool calls see their abort signal; the work ends in a `result`. */
  interrupt(): Promise<void>;
  /** Judge the next tool calls in `mode` (through the permissions plugin); rejects without it or for an unknown mode. */
  setPermissionMode(mode: PermissionMode): Promise<void>;
  /** Send the next model request to `spec` (resolved through `model.resolve`); rejects when no provider knows it. */
  setModel(spec: string | Exclude<LanguageModel, string>): Promise<void>;
  /** Reason at `level` (or a `{ plan, work, verify }` schedule) from the next model request on, over the `reasoning` option; undefined goes back to it. */
  setReasoning(level: ReasoningLevel | ReasoningSchedule | undefined): Promise<void>;
  /** End the session now: the input ends, work in progress is aborted, the stream ends with a final `result`. */
  close(): void;
  /**
   * The session's background tasks (shells from `Bash run_in_background`, background agents),
   * running and ended, oldest first (after the session too); [] without `ubiquity:background`.
   */
  backgroundTasks(): Promise<TaskInfo[]>;
  /** Stop a running background task and every process it started; false when no task of that id runs. */
  stopTask(id: string): Promise<boolean>;
  /**
   * The slash commands a prompt may start with (command files, then skills by name), sorted by
   * name; [] without `ubiquity:commands`.
   */
  supportedCommands(): Promise<CommandInfo[]>;
  /**
   * Claude Code's `!` bash mode: run a command the user typed now, with no model turn, as a Bash
   * tool call judged by the rules, the mode, the hooks and the sandbox like the model's own; what it
   * printed goes ahead of the next prompt (`<bash-input>`, `<bash-stdout>`). Rejects without `ubiquity:commands`.
   */
  shell(command: string): Promise<ShellOutcome>;
  /** The resources (and uri templates) of the session's connected MCP servers, or of `server`; empty lists without `ubiquity:mcp`. */
  listMcpResources(server?: string): Promise<{ resources: McpResourceInfo[]; templates: McpResourceTemplateInfo[] }>;
  /** Read one resource of an MCP server of the session; rejects naming the problem (unknown server, not connected, no resources, the server's error). */
  readMcpResource(server: string, uri: string): Promise<McpResourceContents>;
}

/**
 * Run an agent: yields `system/init` first, then the conversation, and always a `result` last.
 * The prompt is a string, or an async iterable of `UserInput` for a live session (open while the
 * iterable is; a `result` ends each stretch of work, see README "Live sessions").
 * With no `presets` the default preset applies; `plugins` are added after it (a same-name plugin
 * replaces a built-in in place). With a zod `outputSchema`, the result's `structuredOutput` has
 * the schema's output type (a JSON Schema gives `unknown`).
 */
export function summon<S extends ZodType>(
  prompt: string | AsyncIterable<UserInput>,
  options: SummonOptions & { outputSchema: S },
): Query<StructuredMessage<output<S>>>;
export function summon(prompt: string | AsyncIterable<UserInput>, options?: SummonOptions): Query;
export function summon(prompt: string | AsyncIterable<UserInput>, options: SummonOptions = {}): Query {
  const live =
    typeof prompt === "object" &&
    prompt !== null &&
    typeof (prompt as AsyncIterable<UserInput>)[Symbol.asyncIterator] === "function";
  if (typeof prompt !== "string" && !live)
    throw new TypeError(
      `summon(prompt, options): prompt must be a string or an async iterable of user messages, got ${typeof prompt}${queryShapeHint(prompt)}`,
    );
  if (typeof options !== "object" || options === null)
    throw new TypeError("summon(prompt, options): options must be an object");
  const { stream, started } = runSummon(prompt, options, async () => [await defaultPreset()]);
  return Object.assign(stream, {
    async setPermissionMode(mode: PermissionMode) {
      const run = await started();
      if (!run) throw new UsageError("setPermissionMode: the session has ended");
      if (!run.kernel.plugins.some((p) => p.plugin.name === "ubiquity:permissions"))
        throw new UsageError("setPermissionMode needs the ubiquity:permissions plugin, which this run does not have");
      // Loaded on use: the package entry stays cheap.
      (await import("../plugins/permissions/api")).getPermissionsApi(run.kernel).setMode(run, mode);
    },
    async setReasoning(level: ReasoningLevel | ReasoningSchedule | undefined) {
      const run = await started();
      if (!run) throw new UsageError("setReasoning: the session has ended");
      if (!run.kernel.plugins.some((p) => p.plugin.name === "ubiquity:reasoning"))
        throw new UsageError("setReasoning needs the ubiquity:reasoning plugin, which this run does not have");
      const api = await import("../plugins/reasoning/api");
      const parsed =
        level === undefined || typeof level === "string"
          ? api.ReasoningLevel.optional().safeParse(level)
          : { success: true as const };
      if (!parsed.success)
        throw new UsageError(
          `setReasoning: ${JSON.stringify(level)} is not a reasoning level; use one of ${api.REASONING_LEVELS.join(", ")}`,
        );
      api.getReasoningApi(run.kernel).set(run, level);
    },
    async backgroundTasks() {
      const run = await started();
      return (await import("../plugins/_kits/tasks/index")).tasksOf(run)?.list() ?? [];
    },
    async stopTask(id: string) {
      if (typeof id !== "string") throw new TypeError(`stopTask(id): id must be a string, got ${typeof id}`);
      const run = await started();
      return (await (await import("../plugins/_kits/tasks/index")).tasksOf(run)?.stop(id, "by stopTask()")) ?? false;
    },
    async supportedCommands() {
      const run = await started();
      if (!run) return [];
      return (await import("../plugins/commands/api")).getCommandsApi(run.kernel)?.list(run) ?? [];
    },
    async shell(command: string) {
      if (typeof command !== "string" || !command.trim())
        throw new TypeError("shell(command): command must be a non-empty string");
      const run = await started();
      if (!run) throw new UsageError("shell: the session has ended");
      const api = (await import("../plugins/commands/api")).getCommandsApi(run.kernel);
      if (!api) throw new UsageError("shell needs the ubiquity:commands plugin, which this run does not have");
      return api.shell(run, command);
    },
    async listMcpResources(server?: string) {
      const run = await started();
      if (!run) throw new UsageError("listMcpResources: the session has ended");
      const api = (await import("../plugins/mcp/index")).getMcpApi(run.kernel);
      return api ? api.listMcpResources(server) : { resources: [], templates: [] };
    },
    async readMcpResource(server: string, uri: string) {
      if (typeof server !== "string" || typeof uri !== "string")
        throw new TypeError("readMcpResource(server, uri): both must be strings");
      const run = await started();
      if (!run) throw new UsageError("readMcpResource: the session has ended");
      const api = (await import("../plugins/mcp/index")).getMcpApi(run.kernel);
      if (!api) throw new UsageError("readMcpResource needs the ubiquity:mcp plugin, which this run does not have");
      return api.readMcpResource(server, uri);
    },
  });
}

// Sessions: the store is public API.
export { SessionStore, SessionNotFoundError } from "../plugins/sessions/store";
export type { SessionInfo, SessionStoreOptions, StoredSession, ForkOptions } from "../plugins/sessions/store";
export type { TranscriptRecord, PersistedMessage, TranscriptNote } from "../plugins/sessions/records";
export {
  listCheckpoints,
  rewindFiles,
  rewindConversation,
  CheckpointNotFoundError,
  ActiveRunError,
} from "../plugins/checkpoints/rewind-api";
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
} from "../plugins/checkpoints/api";

// The model layer's public helpers live in their plugins; these lines are the package entry's
// only view of them (the modules they come from import no provider package).
export { registerAlias, openaiCompatible, type OpenAICompatibleSettings } from "../plugins/model/index";
export { registerPricing, registerContextWindow } from "../plugins/pricing/index";

// MCP server configs from JSON (`.mcp.json`, Claude Desktop files): the seed's `parse_config`.
// The module imports no MCP client, only its schema.
export { parseMcpConfig, type ParseMcpConfigOptions } from "../plugins/mcp/config";

// The built-in tool suite, for `tools: [...builtinTools(), mine]`.
export { builtinTools } from "../plugins/tools/index";

// Events built-in plugins add to the `event` firehose (their types augment `PluginEvents`).
export type { SandboxViolationEvent } from "../plugins/sandbox/events";
