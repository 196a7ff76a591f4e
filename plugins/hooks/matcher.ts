import { basename } from "node:path";
import { micromatch } from "../_kits/lazy/index";

const REGEX_ONLY = /\.\*|\.\+|\\|[()^$[\]]/;

/** Claude Code's exact matchers: letters, digits, `_` and `|` only (`Bash`, `Edit|Write`). */
const EXACT_ONLY = /^[A-Za-z0-9_|]+$/;

/**
 * Does `matcher` select `toolName`? Absent, empty or `*` matches everything (and is the only
 * matcher for events without a tool). Otherwise `A|B`, each exact or a glob (`mcp__github__*`);
 * a part written as a regular expression (`Notebook.*`, as Claude Code settings allow) is tried
 * as an anchored regex. And, as Claude Code reads it, a matcher holding any other character than
 * letters, digits, `_` and `|` is one regular expression tested against the name unanchored:
 * `mcp__(github|slack)__.*` (an alternation inside a group, which splitting at `|` breaks) and
 * `mcp__(?:plugin_[^_]+_)?serena__` (a prefix) select what their authors meant.
 */
export function matches(matcher: string | undefined, toolName: string | undefined): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  if (toolName === undefined) return false;
  // apply_patch is the edit surface some models get instead of Edit and Write (toolProfile): a hook
  // written to watch edits (`Edit|Write`) must not be skipped because the model edits by patch.
  if (toolName === "apply_patch")
    return matchesName(matcher, toolName) || matchesName(matcher, "Edit") || matchesName(matcher, "Write");
  // `Task` is the Agent tool's former name, and Claude Code's hooks matched `Task` still run for it:
  // a guard hook written before the rename must not be skipped (claude -p 2.1.197 runs it).
  if (toolName === "Agent") return matchesName(matcher, toolName) || matchesName(matcher, "Task");
  return matchesName(matcher, toolName);
}

function matchesName(matcher: string, toolName: string): boolean {
  if (!EXACT_ONLY.test(matcher)) {
    try {
      if (new RegExp(matcher).test(toolName)) return true;
    } catch {
      // not a regular expression as a whole: its parts are read below
    }
  }
  for (const raw of matcher.split("|")) {
    const part = raw.trim();
    if (!part) continue;
    if (part === toolName) return true;
    if (micromatch().isMatch(toolName, part)) return true;
    if (REGEX_ONLY.test(part)) {
      try {
        if (new RegExp(`^(?:${part})$`).test(toolName)) return true;
      } catch {
        // not a valid regex either: it simply does not match
      }
    }
  }
  return false;
}

/** Events whose matcher is matched against the tool's name. */
const TOOL_EVENTS = new Set([
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "PermissionDenied",
]);

/**
 * What an event's matcher is matched against, as in Claude Code: the tool's name for tool events,
 * SessionStart's `source` (startup, resume, clear, compact), PreCompact's and PostCompact's
 * `trigger` (manual, auto), Notification's `notification_type`, the agent type for SubagentStart
 * and SubagentStop, SessionEnd's `reason`, StopFailure's `error` (rate_limit, server_error, ...),
 * InstructionsLoaded's `load_reason`, the MCP server's name for Elicitation and ElicitationResult,
 * the changed file's name (its basename) for FileChanged, ConfigChange's `source`. `null` for events without one (UserPromptSubmit, Stop, PostToolBatch):
 * their hooks run whatever the matcher says.
 */
export function matchTarget(input: {
  hookEventName: string;
  toolName?: string;
  agentType?: string;
  extra: Readonly<Record<string, unknown>>;
}): string | undefined | null {
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  if (TOOL_EVENTS.has(input.hookEventName)) return input.toolName;
  switch (input.hookEventName) {
    case "SessionStart":
      return text(input.extra.source);
    case "PreCompact":
    case "PostCompact":
      return text(input.extra.trigger);
    case "Notification":
      return text(input.extra.notificationType);
    case "SubagentStart":
    case "SubagentStop":
      return input.agentType;
    case "SessionEnd":
      return text(input.extra.reason);
    case "UserPromptExpansion":
      return text(input.extra.commandName);
    case "StopFailure":
      return text(input.extra.error);
    case "InstructionsLoaded":
      return text(input.extra.loadReason);
    case "Elicitation":
    case "ElicitationResult":
      return text(input.extra.mcpServerName);
    case "FileChanged": {
      const path = text(input.extra.filePath);
      return path === undefined ? undefined : basename(path);
    }
    case "ConfigChange":
      return text(input.extra.source);
    default:
      return null;
  }
}
