export type { HookInput, HookOutput, HookCallback } from "./options";
import type { HookEventName, HookCallback } from "./options";

/** A shell-command hook (the Claude Code settings-file form). */
export interface CommandHook {
  type: "command";
  command: string;
  /** Seconds [60]. */
  timeout?: number;
  /** Claude Code's `if`: a permission rule (`Bash(git push *)`); the hook runs only for tool calls it may match. */
  if?: string;
}

/** One matcher group of `options.hooks[event]`. */
export interface HookMatcherGroup {
  matcher?: string;
  hooks: (HookCallback | CommandHook)[];
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
  context: string[];
}
