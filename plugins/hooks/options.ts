/** The options the hooks plugin reads (`hooks`), and the user-hook vocabulary. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";
import { functionSchema } from "../_kits/authoring/index";
import { permissionsOptions } from "../permissions/api";
import { settingsOptions } from "../settings/api";
import { ClaudePluginsOption } from "../_kits/sources/index";

/** The user-facing hook events (see the hooks plugin). */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "PermissionDenied",
  "UserPromptSubmit",
  "UserPromptExpansion",
  "SessionStart",
  "SessionEnd",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "Notification",
  "StopFailure",
  "PostToolBatch",
  "InstructionsLoaded",
  "Elicitation",
  "ElicitationResult",
  "WorktreeCreate",
  "WorktreeRemove",
  "FileChanged",
  "ConfigChange",
  "TaskCreated",
  "TaskCompleted",
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/**
 * Claude Code hook events ubiquity has no lifecycle point for, and why. A settings file that uses
 * one loads: its hooks for the event never run, which is said once per event (a note, not a
 * warning: the file is not wrong, ubiquity just has no such moment).
 */
export const NOT_FIRED_EVENTS: Readonly<Record<string, string>> = Object.freeze({
  Setup: "ubiquity has no --init/--maintenance run",
  TeammateIdle: "ubiquity has no agent teams",
  CwdChanged: "the working directory never changes during a run (a Bash `cd` lasts for that command only)",
  // Claude Code 2.1.152+: rewrites only what its screen shows of a message, never what the model or the transcript has.
  MessageDisplay: "ubiquity shows the model's text as written; no hook rewrites the display",
});

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
  /** The session's transcript file (JSONL), when the run keeps one. */
  transcriptPath?: string;
  /**
   * Event-specific facts (e.g. `notificationType` of a Notification, `source` of SessionStart,
   * `trigger` of PreCompact, `toolCalls` of PostToolBatch, `error` of StopFailure, `filePath` of
   * InstructionsLoaded); a command hook reads them in snake_case.
   */
  extra: Record<string, unknown>;
}

/** What a user hook may answer; `undefined` (or `{}`) means no opinion. */
export interface HookOutput {
  decision?: "block" | "approve" | undefined;
  reason?: string | undefined;
  /** PreToolUse: replace the tool input (later hooks and the permission check see it). */
  updatedInput?: Record<string, unknown> | undefined;
  /** UserPromptSubmit/SessionStart: context ahead of the prompt; PostToolUse: appended to the result. */
  additionalContext?: string | undefined;
  /** A message for the person running the program (logged at info). */
  systemMessage?: string | undefined;
  /** Accepted for compatibility with Claude Code hook scripts. */
  suppressOutput?: boolean | undefined;
  /** `false` stops the run after this event (the reason says why). */
  continue?: boolean | undefined;
  /**
   * Elicitation: the answer to an MCP server's question, given instead of asking anyone;
   * ElicitationResult: the answer sent instead of the one given (`content` only with accept).
   * A command or HTTP hook writes it as `hookSpecificOutput.action` and `.content`.
   */
  elicitation?: { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> } | undefined;
  /**
   * WorktreeCreate: the absolute path of the worktree the hook made (a command hook prints it as
   * its last line on stdout; an HTTP hook answers `hookSpecificOutput.worktreePath`).
   */
  worktreePath?: string | undefined;
  /**
   * SessionStart and FileChanged: absolute paths FileChanged watches from now on besides its
   * matcher's file names, replacing the list an earlier answer gave (a command or HTTP hook
   * writes `hookSpecificOutput.watchPaths`).
   */
  watchPaths?: string[] | undefined;
  /** With `continue: false`: why the run stopped (the Claude Agent SDK's name; `reason` is ours). */
  stopReason?: string | undefined;
  /**
   * The Claude Agent SDK's (and a command hook's) event-specific answer, read as Claude Code reads
   * it: `permissionDecision: "deny"` blocks with `permissionDecisionReason`, `"allow"` approves,
   * `"ask"` asks; `updatedInput` and `additionalContext` as above. A hook ported from that SDK
   * answers this way unchanged.
   */
  hookSpecificOutput?: HookSpecificOutput | undefined;
}

/** The Claude Agent SDK's `hookSpecificOutput` (see `HookOutput.hookSpecificOutput`). */
export interface HookSpecificOutput {
  /** The event answered (informative: the event that fired is the one answered). */
  hookEventName?: string | undefined;
  /** PreToolUse: `deny` blocks the call, `allow` approves what the mode would ask, `ask` asks. */
  permissionDecision?: "allow" | "deny" | "ask" | undefined;
  /** Why: the blocked call's result the model sees. */
  permissionDecisionReason?: string | undefined;
  /** PreToolUse: the input the call runs with (judged again by the rules). */
  updatedInput?: Record<string, unknown> | undefined;
  /** Context for the model, as `HookOutput.additionalContext`. */
  additionalContext?: string | undefined;
  /** Elicitation, WorktreeCreate, SessionStart/FileChanged: as in a command hook's JSON. */
  [key: string]: unknown;
}

/**
 * A hook callback, called as the Claude Agent SDK calls one: `(input, toolUseId, { signal })` (the
 * call's id for the tool events, else undefined; the run's abort signal). `(input) => …` is one too.
 */
export type HookCallback = (
  input: HookInput,
  toolUseId: string | undefined,
  options: { signal: AbortSignal },
) => HookOutput | undefined | void | Promise<HookOutput | undefined | void>;

const CommandHookSchema = z.strictObject({
  type: z.literal("command"),
  command: z.string().min(1),
  args: z
    .array(z.string())
    .optional()
    .describe("Exec form: command is the program, run with these arguments and no shell"),
  timeout: z.number().positive().optional().describe("seconds"),
  if: z
    .string()
    .min(1)
    .optional()
    .describe('A permission rule ("Bash(git push *)"): the hook runs only for tool calls it may match'),
  async: z.boolean().optional().describe("Started and not waited for: it cannot block or add context"),
  asyncRewake: z
    .boolean()
    .optional()
    .describe(
      "Started and not waited for; when it exits 2, its stderr reaches the model with the next tool result or prompt",
    ),
  rewakeMessage: z.string().optional().describe("The line put before a rewaking hook's stderr"),
  rewakeSummary: z.string().optional().describe("What the user is told (logged) when a rewaking hook reports"),
});

const HttpHookSchema = z.strictObject({
  type: z.literal("http"),
  url: z.url({ protocol: /^https?$/ }),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .describe("$VAR / ${VAR} filled only for variables allowedEnvVars lists"),
  allowedEnvVars: z.array(z.string()).optional(),
  timeout: z.number().positive().optional().describe("seconds"),
  if: CommandHookSchema.shape.if,
});

const ModelHookSchema = z.strictObject({
  type: z.enum(["prompt", "agent"]),
  prompt: z.string().min(1).describe("$ARGUMENTS is replaced by the hook input as JSON"),
  model: z.string().min(1).optional(),
  timeout: z.number().positive().optional().describe("seconds"),
  if: CommandHookSchema.shape.if,
});

const HookMatcherSchema = z.strictObject({
  matcher: z.string().optional().describe('"*", a tool name, or "A|B" with globs like "mcp__github__*"'),
  hooks: z.array(
    z.union([functionSchema<HookCallback>("hook callback"), CommandHookSchema, HttpHookSchema, ModelHookSchema]),
  ),
  timeout: z
    .number()
    .positive()
    .optional()
    .describe(
      "seconds each callback of the group may take, as the Claude Agent SDK's matcher timeout (past it: its signal aborts and the hook is skipped); a command, HTTP or model hook keeps its own timeout",
    ),
});
export type HookMatcher = z.input<typeof HookMatcherSchema>;

/**
 * The hooks plugin's slice of the config schema. `permissionMode` and `canUseTool` are the
 * permissions plugin's; hooks read them too (the payload's mode, whether an ask will be denied).
 */
export const hooksOptions = lazyOptions(
  ["hooks", "permissionMode", "canUseTool", "trust", "claudePlugins", "allowedHttpHookUrls", "httpHookAllowedEnvVars"],
  () => ({
    hooks: z.partialRecord(z.enum(HOOK_EVENTS), z.array(HookMatcherSchema)).optional(),
    permissionMode: permissionsOptions.shape.permissionMode,
    canUseTool: permissionsOptions.shape.canUseTool,
    trust: settingsOptions.shape.trust,
    claudePlugins: ClaudePluginsOption,
    /** URL patterns (`*` a wildcard) HTTP hooks may call; joined with the settings files' lists. Unset everywhere: any URL. */
    allowedHttpHookUrls: z.array(z.string()).optional(),
    /** Variables HTTP hooks may fill into headers (narrows each hook's `allowedEnvVars`); joined with the settings files'. */
    httpHookAllowedEnvVars: z.array(z.string()).optional(),
  }),
);
export type HooksOptions = z.input<typeof hooksOptions>;
export type HooksResolvedOptions = ResolvedOptions & Readonly<HooksOptions>;
