export type { HookInput, HookOutput, HookSpecificOutput, HookCallback } from "./options";
import type { HookEventName, HookCallback, HookOutput } from "./options";

/** A shell-command hook (the Claude Code settings-file form). */
export interface CommandHook {
  type: "command";
  command: string;
  /** Exec form: the program `command` runs with these arguments, without a shell. */
  args?: string[];
  /** Seconds [60]. */
  timeout?: number;
  /** Claude Code's `if`: a permission rule (`Bash(git push *)`); the hook runs only for tool calls it may match. */
  if?: string;
  /** Claude Code's `async`: started and not waited for, so it cannot block or add context. */
  async?: boolean;
  /**
   * Claude Code's `asyncRewake`: started and not waited for, like `async`; when it exits 2, what it
   * wrote to stderr reaches the model with the next tool result or prompt, after `rewakeMessage`
   * (an idle live session is woken: the report enters as its next message).
   */
  asyncRewake?: boolean;
  /** The line put before a rewaking hook's stderr [a background hook's report]. */
  rewakeMessage?: string;
  /** What the user is told when a rewaking hook reports (logged). */
  rewakeSummary?: string;
  /**
   * The Claude Code plugin folder the hook came from (set when its plugin's hooks are read, never
   * from a file): CLAUDE_PLUGIN_ROOT in its environment, as Claude Code sets it for plugin hooks.
   */
  pluginRoot?: string;
}

/**
 * An HTTP hook (Claude Code's `type: "http"`): the hook input is POSTed as JSON to `url`; a 2xx
 * answer with a JSON body is read as a command hook's stdout. Only URLs `allowedHttpHookUrls`
 * admits are called.
 */
export interface HttpHook {
  type: "http";
  url: string;
  /** Extra headers; `$VAR`/`${VAR}` in a value is filled only for variables `allowedEnvVars` names. */
  headers?: Record<string, string>;
  allowedEnvVars?: string[];
  /** Seconds [30]. */
  timeout?: number;
  if?: string;
  /** Set by the loader: `project` for a project's settings file or plugin (held to the user's own limits). */
  origin?: "user" | "project";
}

/**
 * A model-judged hook: `prompt` (Claude Code's `type: "prompt"`, one model call) or `agent` (a
 * subagent with Read, Grep and Glob). `$ARGUMENTS` in the prompt is replaced by the hook input
 * as JSON (appended when absent). The model answers `{"ok": true}` or `{"ok": false, "reason"}`.
 */
export interface ModelHook {
  type: "prompt" | "agent";
  prompt: string;
  /** A model string or alias; Claude tiers (`haiku`, `sonnet`, `opus`) no alias maps use the run's model. */
  model?: string;
  /** Seconds [30 for prompt, 60 for agent]. */
  timeout?: number;
  if?: string;
}

/** A hook handler from a settings file, a plugin or `options.hooks` (besides callbacks). */
export type HookHandler = CommandHook | HttpHook | ModelHook;

/** One matcher group of `options.hooks[event]`. */
export interface HookMatcherGroup {
  matcher?: string;
  hooks: (HookCallback | HookHandler)[];
  /** Seconds each callback of the group may take (the Claude Agent SDK's matcher `timeout`); a handler keeps its own. */
  timeout?: number;
}

/** `options.hooks`. */
export type HooksConfig = Partial<Record<HookEventName, HookMatcherGroup[]>>;

/** The combined answer of one event's hooks. */
export interface HookOutcome {
  /** Set when a hook blocked (or stopped): the reason. */
  blocked?: string;
  /** Set when a hook returned `continue: false`. */
  stopped?: string;
  /** The input after every `updatedInput` rewrite (PreToolUse). */
  input?: Record<string, unknown>;
  approved: boolean;
  /** A command hook's `permissionDecision: "ask"`. */
  ask: boolean;
  /** The first asking hook's `permissionDecisionReason`: said where the call's approval is asked for. */
  askReason?: string;
  context: string[];
  /** Elicitation / ElicitationResult: the answer the hooks gave (the last hook that gave one wins). */
  elicitation?: HookOutput["elicitation"];
  /** WorktreeCreate: the path the hooks made (the last hook that gave one wins). */
  worktreePath?: string;
  /** SessionStart / FileChanged: the paths the hooks named to watch, every hook's joined (none named: undefined). */
  watchPaths?: string[];
}
