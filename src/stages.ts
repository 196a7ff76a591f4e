/**
 * Stage constants: the documented order of taps on staged hooks. A tap passes
 * `{ name, stage }`; lower stages run first, equal stages run in plugin order.
 * These numbers are a public contract — plugins rely on them to slot between built-ins.
 */

/** Stages of `model.request`: how a request is built up before it is sent. */
export const REQUEST_STAGE = Object.freeze({
  /** Build the request: messages, tools, settings. */
  ASSEMBLE: -400,
  /** Rewrite the request: provider dialects, generation settings. */
  TRANSFORM: -200,
  /** Shrink the history to fit the context window. */
  COMPACT: 0,
  /** Mark cache breakpoints on the final shape of the prompt. */
  CACHE: 200,
  /** Last checks that may still refuse to send. */
  GUARD: 400,
  /** Read-only observation of the exact request that will be sent. */
  OBSERVE: 600,
});

/** Stages of `turn.system`: the order of the system prompt's sections. */
export const SYSTEM_STAGE = Object.freeze({
  /** The base guidance (replaced entirely by `systemPrompt`). */
  GUIDANCE: -400,
  /** Run sections: cwd, platform, model, tools, permission mode. */
  RUN: -200,
  /** Feature notes: hooks, compaction, skills, subagents. */
  FEATURES: 0,
  /** Memory files written by the user. */
  MEMORY: 200,
  /** `appendSystemPrompt`: the caller's own words, always last. */
  APPEND: 400,
});

/** Stages of `context.compact`: one per compaction tier, cheapest first. */
export const COMPACT_STAGE = Object.freeze({ MICRO: -100, SUMMARIZE: 100 });

/** Stages of `tool.permission`: the order votes are cast (a deny is final whatever the order). */
export const PERMISSION_STAGE = Object.freeze({ RULES: 0, OBSERVE: 400 });

/** Stages of `tool.ask`: who answers a prompt first. */
export const ASK_STAGE = Object.freeze({
  /** Before the user's handler is consulted (user `PermissionRequest` hooks, notifications). */
  BEFORE_HANDLER: -100,
  /** The handler itself (`canUseTool`, through the permissions plugin). */
  HANDLER: 100,
});

/** Stages of `turn.prompt`: the prompt is expanded, context is added, then the prompt is recorded as sent. */
export const PROMPT_STAGE = Object.freeze({
  /** Rewrite the prompt itself before anyone adds context to it (slash commands, MCP resource mentions). */
  EXPAND: -100,
  /** Add context ahead of the prompt, or block it (hooks, todos carry-over). */
  CONTEXT: 0,
  /** Observe the final prompt (transcripts). */
  RECORD: 1000,
});

/** Stages of `model.error`: the same model is tried again before another one takes over. */
export const ERROR_STAGE = Object.freeze({
  /** Another attempt with the same model (timeouts, broken streams, statuses the transport did not see). */
  RETRY: -100,
  /** Another model (`fallbackModel`). */
  FALLBACK: 0,
});
