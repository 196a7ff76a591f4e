/**
 * Variables of a Claude Code settings file's `env` that configure Claude Code itself (its model,
 * endpoint, thinking budget, compaction, timeouts). ubiquity passes a file's `env` to the commands
 * it runs, as Claude Code does, but reads none of these for itself: a file that sets one is told
 * so, with the option that does the job here, rather than having it do nothing in silence (a
 * settings file never configures the model provider here: its key or endpoint would be the
 * project's to choose).
 */

const PROVIDER = "the provider is set by your shell's environment or providerSettings, never by a settings file";
const MODEL = "pass --model, or map Claude's names with modelAliases";

/** Claude Code's own variables ubiquity has an answer for: what to use instead. */
const ANSWERS: Readonly<Record<string, string>> = {
  ANTHROPIC_BASE_URL: PROVIDER,
  ANTHROPIC_AUTH_TOKEN: PROVIDER,
  ANTHROPIC_API_KEY: PROVIDER,
  ANTHROPIC_CUSTOM_HEADERS: PROVIDER,
  ANTHROPIC_MODEL: MODEL,
  ANTHROPIC_SMALL_FAST_MODEL: MODEL,
  ANTHROPIC_DEFAULT_HAIKU_MODEL: MODEL,
  ANTHROPIC_DEFAULT_SONNET_MODEL: MODEL,
  ANTHROPIC_DEFAULT_OPUS_MODEL: MODEL,
  CLAUDE_CODE_SUBAGENT_MODEL: "give the agent a model, or map Claude's names with modelAliases",
  MAX_THINKING_TOKENS: "set maxThinkingTokens",
  CLAUDE_CODE_MAX_OUTPUT_TOKENS: "set maxTokens",
  CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "set compactThreshold (a fraction: 80 is 0.8)",
  BASH_DEFAULT_TIMEOUT_MS: "Bash takes a timeout per call (2 minutes unless the call sets one, at most 10)",
  BASH_MAX_TIMEOUT_MS: "Bash takes a timeout per call (at most 10 minutes)",
  CLAUDE_CODE_ENABLE_TELEMETRY:
    'set telemetry in the config, with a tracer of the OpenTelemetry SDK the config starts (docs/guide/telemetry.md, "From the runner")',
};

/** Claude Code's variables a switcher's shell may export that configure the run (the provider's are read by the model plugin; ANTHROPIC_MODEL is named with the "no model" error), each with the option that does its job here. */
const SHELL_ANSWERS: Readonly<Record<string, { option?: "maxThinkingTokens" | "maxTokens"; answer: string }>> = {
  MAX_THINKING_TOKENS: { option: "maxThinkingTokens", answer: "set maxThinkingTokens in the config" },
  CLAUDE_CODE_MAX_OUTPUT_TOKENS: { option: "maxTokens", answer: "set maxTokens in the config" },
  BASH_DEFAULT_TIMEOUT_MS: { answer: ANSWERS.BASH_DEFAULT_TIMEOUT_MS! },
  BASH_MAX_TIMEOUT_MS: { answer: ANSWERS.BASH_MAX_TIMEOUT_MS! },
};

/**
 * The warning for Claude Code's variables set in the environment that ubiquity does not read
 * (Claude Code does, in -p too), naming what does each job here; undefined when none is set. A
 * variable whose option the run sets anyway is left out: the option decides, as it would here.
 */
export function unreadClaudeVariables(
  env: Readonly<Record<string, string | undefined>>,
  options: { maxThinkingTokens?: unknown; maxTokens?: unknown },
): string | undefined {
  const items = Object.entries(SHELL_ANSWERS)
    .filter(([name, { option }]) => env[name]?.trim() && (option === undefined || options[option] === undefined))
    .map(([name, { answer }]) => `${name} (${answer})`);
  if (!items.length) return undefined;
  return `warning: Claude Code's variables set in the environment are not read here: ${items.join(", ")}`;
}

/**
 * The report items for the Claude Code variables among `names` (`env.NAME (… instead)`): those of
 * `ANSWERS`, one item per answer, then the other `CLAUDE_CODE_*` switches in one item. Telemetry opt-outs and the like
 * are left out: ubiquity has nothing they would turn off.
 */
export function claudeOwnVariables(names: readonly string[]): string[] {
  // One item per answer: a file that points Claude Code at a proxy sets four of them at once.
  const byAnswer = new Map<string, string[]>();
  for (const name of names.filter((n) => Object.hasOwn(ANSWERS, n)))
    byAnswer.set(ANSWERS[name]!, [...(byAnswer.get(ANSWERS[name]!) ?? []), name]);
  const items = [...byAnswer].map(
    ([answer, group]) =>
      `env.${group.join(", env.")} (Claude Code reads ${group.length > 1 ? "them" : "it"}, ubiquity does not: ${answer})`,
  );
  const switches = names.filter((name) => name.startsWith("CLAUDE_CODE_") && !Object.hasOwn(ANSWERS, name));
  if (switches.length)
    items.push(
      `env.${switches.join(", env.")} (Claude Code's own switch${switches.length > 1 ? "es" : ""}; ubiquity has no such setting)`,
    );
  return items;
}
