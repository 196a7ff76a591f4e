/** The options the permissions plugin reads, and the permission vocabulary they use. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { PermissionResult, ResolvedOptions } from "../../src/index";
import { functionSchema } from "../_kits/authoring/index";

/** A permission mode. */
export const PERMISSION_MODES = ["default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export type { PermissionResult };

/** The Claude Agent SDK's permission update that adds rules (the only kind a `canUseTool` answer applies). */
export interface PermissionUpdateRules {
  /** The only kind applied. */
  type: "addRules";
  /** Allow rules only: a handler's answer never adds a deny or ask rule that outlives the call. */
  behavior: "allow";
  /** Each is the rule `toolName(ruleContent)`, or the bare tool name without `ruleContent`. */
  rules: readonly { toolName: string; ruleContent?: string | undefined }[];
  /** Accepted and not read: the rules hold for the session, never written to a settings file. */
  destination?: string | undefined;
}

/** What a `canUseTool` handler answers: a `PermissionResult`, and with an allow the rules that hold from now on. */
export type CanUseToolResult =
  | PermissionResult
  | (Extract<PermissionResult, { behavior: "allow" }> & {
      /**
       * Allow rules that hold for the rest of the session, its subagents too (what the runner's
       * "always" does): the `suggestions` the handler was given, or rules of its own; a deny or
       * ask rule still wins. The Claude Agent SDK's `addRules` entries are read too.
       */
      updatedPermissions?: readonly (string | PermissionUpdateRules)[] | undefined;
    });

/** Called when a tool call needs a human decision. */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  context: CanUseToolContext,
) => Promise<CanUseToolResult> | CanUseToolResult;

/**
 * What a `canUseTool` handler is told besides the call. The Claude Agent SDK's names of the same
 * facts (`toolUseID`, `agentID`) also answer in JavaScript, left out of a spread or `JSON.stringify`.
 */
export interface CanUseToolContext {
  /** Aborts when the run is aborted or `permissionPromptTimeoutMs` passes: stop waiting for a person. */
  signal: AbortSignal;
  /** Rules that would allow this kind of call from now on (give them back as `updatedPermissions`). */
  suggestions: string[];
  /** The call's id, as in its `tool_use` message. */
  toolUseId: string;
  /** The subagent asking, when a subagent makes the call (its `agentId` in the stream); absent for the main agent. */
  agentId?: string;
  /** Why the call is asked about (the permission engine's message), when it says. */
  decisionReason?: string;
}

/** The permissions plugin's slice of the config schema. */
export const permissionsOptions = lazyOptions(
  [
    "permissionMode",
    "allowedTools",
    "approvedTools",
    "availableTools",
    "disallowedTools",
    "askTools",
    "canUseTool",
    "permissionPromptTimeoutMs",
  ],
  () => ({
    permissionMode: z.enum(PERMISSION_MODES).optional().describe("['default']"),
    allowedTools: z.array(z.string()).optional(),
    approvedTools: z
      .array(z.string())
      .optional()
      .describe(
        "Rules that run without asking and never limit the tools offered, even a bare name (what `claude -p --allowedTools` means; the runner's --allowedTools)",
      ),
    availableTools: z
      .array(z.string())
      .optional()
      .describe(
        "Only these tools are offered (names; MCP tools stay unless an entry names one, e.g. mcp__github__*); approves nothing (the runner's --tools)",
      ),
    disallowedTools: z.array(z.string()).optional(),
    askTools: z.array(z.string()).optional(),
    canUseTool: functionSchema<CanUseTool>("canUseTool").optional(),
    permissionPromptTimeoutMs: z.number().positive().optional(),
  }),
);
export type PermissionsOptions = z.input<typeof permissionsOptions>;
/** The resolved options as the permissions plugin (and the plugins reading its keys) see them. */
export type PermissionsResolvedOptions = ResolvedOptions & Readonly<PermissionsOptions>;

/** The run's permission mode: `permissionMode`, or "default". */
export function permissionModeOf(options: Readonly<Record<string, unknown>>): PermissionMode {
  const mode = options.permissionMode;
  return PERMISSION_MODES.find((m) => m === mode) ?? "default";
}

// Which modes allow at least everything `mode` allows. plan and dontAsk are incomparable
// (plan runs read-only calls that dontAsk would deny; dontAsk runs pre-approved edits that
// plan refuses), so neither narrows the other.
const WIDER: Record<PermissionMode, readonly PermissionMode[]> = {
  bypassPermissions: ["bypassPermissions"],
  acceptEdits: ["acceptEdits", "bypassPermissions"],
  default: ["default", "acceptEdits", "bypassPermissions", "auto"],
  plan: ["plan", "default", "acceptEdits", "bypassPermissions", "auto"],
  dontAsk: ["dontAsk", "default", "acceptEdits", "bypassPermissions", "auto"],
  // auto asks a reviewer where default asks the user: wider than default, narrower than bypass.
  auto: ["auto", "bypassPermissions"],
};

/** A subagent's mode: the one it asks for when that narrows the parent's, else the parent's. */
export function narrowMode(parent: PermissionMode, wanted: PermissionMode | undefined): PermissionMode {
  if (!wanted) return parent;
  return WIDER[wanted].includes(parent) ? wanted : parent;
}
