import { describeError, didYouMean, redactText, secretsOf, secretsOfRun, type RunContext } from "../../src/index";
import type { HookEventName } from "./options";
import { matches, matchTarget } from "./matcher";
import { compileIf, compileIfSure, type IfFilter } from "./if-filter";
import { commandPayload, parseCommandOutput, runCommandHook, type HookRunContext } from "./command";
import { runHttpHook } from "./http";
import { hookAgentIds, runModelHook } from "./model-hook";
import { queueRewake } from "./rewake";
import { changedHookScript, untrustedHookData } from "./pins";
import { spawnFolder } from "../_kits/process/index";
import type { CommandHook, HookCallback, HookHandler, HookInput, HookOutcome, HookOutput, HooksConfig } from "./types";

/**
 * Run the hooks of one event in registration order. The first hook that blocks (or returns
 * `continue: false`) wins and the rest are skipped; a hook that throws is logged and skipped.
 * `updatedInput` rewrites chain: later hooks see the rewritten `toolInput`.
 */
export async function dispatch(
  config: HooksConfig | undefined,
  event: HookEventName,
  input: HookInput,
  context: HookRunContext,
): Promise<HookOutcome> {
  const outcome: HookOutcome = { approved: false, ask: false, context: [], input: input.toolInput };
  const groups = config?.[event];
  if (!groups?.length) return outcome;
  const target = matchTarget(input);
  for (const group of groups) {
    if (target !== null && !matches(group.matcher, target)) continue;
    for (const hook of group.hooks) {
      let output: (HookOutput & { ask?: boolean }) | undefined | void;
      const current: HookInput = { ...input, toolInput: outcome.input, extra: { ...input.extra } };
      if (typeof hook !== "function" && hook.if !== undefined && !ifFilter(hook.if)(current)) continue;
      // A hook whose script changed during the run is not the code the user trusted (pins.ts): it is
      // not run; where its answer guards a call, the call is blocked (fail closed).
      const command = typeof hook !== "function" && hook.type === "command" ? hook : undefined;
      const changed = command && changedScript(command, context);
      if (command && changed !== undefined) {
        const why = `the ${event} hook ${JSON.stringify(command.command)} was not run: ${changed} changed since the run started, so it is not the code that was trusted; put it back as it was, or start a new run to use the hook as it is now`;
        context.logger.warn(why);
        if (event !== "PreToolUse" && event !== "PermissionRequest") continue;
        outcome.blocked = why;
        return outcome;
      }
      if (typeof hook !== "function" && hook.type === "command" && (hook.async === true || hook.asyncRewake)) {
        // Claude Code's `async`: started, never waited for; its answer cannot block or add anything
        // now. With `asyncRewake`, a report when it ends reaches the model later (rewake.ts).
        const later = hook.asyncRewake ? rewakeWith(hook, event, context) : undefined;
        void runCommandHook(hook, current, context, later)
          .then((answer) => answer && later?.(answer))
          .catch(() => {});
        continue;
      }
      try {
        output =
          typeof hook === "function"
            ? callbackAnswer(await runCallback(hook as HookCallback, current, context, group.timeout), event, context)
            : await runHandler(hook, current, context);
      } catch (error) {
        context.logger.error(`${event} hook threw (skipped): ${describeError(error)}`);
        continue;
      }
      if (!output || typeof output !== "object") continue;
      output = masked(output, context.run);
      // Claude Code shows systemMessage to the user as a warning; info was not shown by the CLI at all.
      if (output.systemMessage) context.logger.warn(`${event} hook: ${output.systemMessage}`);
      if (output.updatedInput && typeof output.updatedInput === "object") outcome.input = output.updatedInput;
      if (output.additionalContext) outcome.context.push(output.additionalContext);
      if (output.decision === "approve" && approvalCounts(hook, event, context) && ifCovers(hook, current, context))
        outcome.approved = true;
      if (output.ask) {
        outcome.ask = true;
        if (output.reason && output.decision !== "block") outcome.askReason ??= output.reason;
      }
      if (output.elicitation) outcome.elicitation = output.elicitation;
      if (typeof output.worktreePath === "string") outcome.worktreePath = output.worktreePath;
      if (Array.isArray(output.watchPaths))
        outcome.watchPaths = [...(outcome.watchPaths ?? []), ...output.watchPaths.filter((p) => typeof p === "string")];
      if (output.continue === false) {
        outcome.stopped = output.reason ?? `stopped by a ${event} hook`;
        outcome.blocked ??= outcome.stopped;
        return outcome;
      }
      if (output.decision === "block") {
        outcome.blocked = output.reason ?? `Blocked by a ${event} hook`;
        return outcome;
      }
    }
  }
  return outcome;
}

/**
 * Call a hook callback with the Claude Agent SDK's arguments (a hook ported from it destructures
 * `{ signal }` from the third, and threw when given one argument, so the call it guarded ran),
 * bounded by its group's `timeout` in seconds when it has one, as that SDK bounds a matcher's
 * hooks: past it the callback's signal aborts and the call throws, so the hook is skipped as one
 * that throws is. Without a timeout it may take as long as the run.
 */
async function runCallback(
  hook: HookCallback,
  input: HookInput,
  context: HookRunContext,
  timeoutSeconds: number | undefined,
): Promise<HookOutput | undefined | void> {
  if (timeoutSeconds === undefined) return hook(withClaudeNames(input), input.toolUseId, { signal: context.signal });
  const controller = new AbortController();
  const stop = () => controller.abort(context.signal.reason);
  context.signal.addEventListener("abort", stop, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Past setTimeout's range (2^31-1 ms, ~24.8 days) node fires at once: a long timeout written to mean
  // "no limit" skipped every guard of the group as timed out, and the call it guarded ran (red team zj, ZJ3).
  const ms = Math.min(timeoutSeconds * 1000, 2_147_483_647);
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`timed out after ${timeoutSeconds} s (its matcher's timeout)`);
      // Rejected before the signal aborts: a callback that answers on abort must not win the race.
      reject(error);
      controller.abort(error);
    }, ms);
    timer.unref?.();
  });
  try {
    const answer = Promise.resolve(hook(withClaudeNames(input), input.toolUseId, { signal: controller.signal }));
    return await Promise.race([answer, expired]);
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener("abort", stop);
  }
}

/**
 * The input a callback gets: ours, and (not enumerated, so a spread or JSON of it is unchanged) the
 * Claude Agent SDK's snake_case names of the same facts (`tool_name`, `tool_input`, …). A JavaScript
 * hook ported from that SDK reads `input.tool_input.command`: without them it threw, and a guard that
 * throws is skipped, so the call it was written to stop ran.
 */
function withClaudeNames(input: HookInput): HookInput {
  const named = { ...input };
  for (const [key, value] of Object.entries(commandPayload(input)))
    if (!(key in named)) Object.defineProperty(named, key, { value, enumerable: false });
  return named;
}

/** The keys a callback's answer may hold: `HookOutput`'s, and the Claude Agent SDK's that `parseCommandOutput` reads. */
const CALLBACK_KEYS = [
  "decision",
  "reason",
  "updatedInput",
  "additionalContext",
  "systemMessage",
  "suppressOutput",
  "continue",
  "stopReason",
  "elicitation",
  "worktreePath",
  "watchPaths",
  "hookSpecificOutput",
];

/**
 * A callback's answer, read as a command hook's JSON is when it carries the Claude Agent SDK's
 * `hookSpecificOutput` (`permissionDecision: "deny"`, `permissionDecisionReason`, `updatedInput`,
 * `additionalContext`): a hook ported from that SDK was ignored before, and the call it denied ran.
 * A key nothing reads is named (a typo, or a field of another shape), never silently dropped.
 */
function callbackAnswer(
  output: HookOutput | undefined | void,
  event: HookEventName,
  context: HookRunContext,
): (HookOutput & { ask?: boolean }) | undefined | void {
  if (!output || typeof output !== "object") return output;
  const unknown = Object.keys(output).filter((key) => !CALLBACK_KEYS.includes(key));
  for (const key of unknown)
    context.logger.warn(
      `${event} hook callback answered "${key}", which no hook reads; it was ignored${didYouMean(key, CALLBACK_KEYS)}`,
    );
  if (output.decision !== undefined && output.decision !== "block" && output.decision !== "approve")
    context.logger.warn(
      `${event} hook callback answered decision ${JSON.stringify(output.decision)}; a decision is "block" or "approve" (it was ignored)`,
    );
  if (!("hookSpecificOutput" in output) && !("stopReason" in output)) return output;
  return { ...output, ...parseCommandOutput(output as Record<string, unknown>) };
}

/**
 * What a hook says goes to the model (its context, a block's or stop's reason) the way a tool's
 * result does: masked with the run's secrets. A hook that reads a key (the parent's /proc without
 * the sandbox, a variable the user's `env` passes on) cannot hand it to the model.
 */
function masked<T extends HookOutput & { ask?: boolean }>(output: T, run: RunContext | undefined): T {
  const keys = (["additionalContext", "reason", "systemMessage"] as const).filter(
    (k) => typeof output[k] === "string" && output[k] !== "",
  );
  if (keys.length === 0) return output;
  const secrets = run ? secretsOfRun(run) : secretsOf(undefined);
  return { ...output, ...Object.fromEntries(keys.map((k) => [k, redactText(output[k]!, secrets)])) };
}

/**
 * What a rewaking hook's answer becomes: its report (exit 2's stderr, a block's reason, or its
 * context), masked, after its `rewakeMessage`, queued for the model; the user sees `rewakeSummary`.
 */
function rewakeWith(hook: CommandHook, event: HookEventName, context: HookRunContext) {
  return (answer: (HookOutput & { ask?: boolean }) | undefined) => {
    const run = context.run;
    if (!answer || !run) return;
    const output = masked(answer, run);
    const report = output.decision === "block" ? output.reason : output.additionalContext;
    if (!report) return;
    const heading = hook.rewakeMessage ?? `A background ${event} hook (${hook.command}) reported:`;
    // Red-team fix: the heading names the hook's command, which may hold a key (`curl -H "x-api-key: …"`):
    // the whole note is masked, not only the hook's report.
    queueRewake(run, redactText(`[${heading}\n${report}]`, secretsOfRun(run)));
    context.logger.info(`${event} hook: ${hook.rewakeSummary ?? "a background hook reported"}`);
  };
}

/** Is `run` (or a run it descends from) an agent hook's own subagent? Known by the random id it runs under, never by its type's name. */
const insideHookAgent = (run: RunContext | undefined): boolean => {
  for (let r = run; r; r = r.parent)
    if (r.agent?.parentToolUseId !== undefined && hookAgentIds.has(r.agent.parentToolUseId)) return true;
  return false;
};

/**
 * Whether a hook's approval counts. Not in a folder that is not trusted, from a hook that can
 * decide from the folder's files: a command hook (the user's own, since such a folder applies none
 * of its own) is a process that reaches the folder however its words read — by the variables it
 * gets (`sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`, Claude Code's documented spelling), its
 * path, its input's `cwd` (`cd "$(jq -r .cwd)"`) — and an agent hook reads it; what it runs or reads
 * there is the folder's, which the user never trusted (red team x, X5, first held by the words
 * alone). Nor when a file a command hook's script decides from holds what was not trusted (pins.ts,
 * `untrustedHookData`). Then the call goes to the permission rules as if the hook had not answered;
 * its deny and ask count whatever the folder.
 */
function approvalCounts(hook: HookHandler | HookCallback, event: HookEventName, context: HookRunContext): boolean {
  if (typeof hook === "function" || (hook.type !== "command" && hook.type !== "agent")) return true;
  const why =
    context.trusted === false
      ? "the folder is not trusted, and what the hook runs or reads there is the folder's own; trust the folder with `ubiquity trust .` to let it approve"
      : hook.type === "command"
        ? untrustedHookData(hook, spawnFolder(context.cwd, true))
        : undefined;
  if (!why) return true;
  const shown = why.replaceAll(`${context.cwd}/`, "");
  const name = hook.type === "command" ? hook.command : hook.prompt;
  context.logger.warn(
    `the ${event} ${hook.type} hook ${JSON.stringify(name)} approved, which does not count: ${shown}; the call is decided by the permission rules`,
  );
  return false;
}

/** The script `hook` names that changed since its hooks were read, as a path to show (relative to the project), or undefined. */
function changedScript(hook: CommandHook, context: HookRunContext): string | undefined {
  const changed = changedHookScript(hook, spawnFolder(context.cwd, context.trusted !== false));
  if (changed === undefined) return undefined;
  return changed.startsWith(`${context.cwd}/`) ? changed.slice(context.cwd.length + 1) : changed;
}

/** A handler of a settings file, a plugin or `options.hooks`, by its type. */
function runHandler(
  hook: HookHandler,
  input: HookInput,
  context: HookRunContext,
): Promise<(HookOutput & { ask?: boolean }) | undefined> {
  switch (hook.type) {
    case "command":
      return runCommandHook(hook, input, context);
    case "http":
      return runHttpHook(hook, input, {
        signal: context.signal,
        logger: context.logger,
        policy: context.httpPolicy ?? {},
      });
    case "prompt":
    case "agent":
      if (!context.run) {
        context.logger.warn(`${input.hookEventName} ${hook.type} hook was skipped: it fired outside a run`);
        return Promise.resolve(undefined);
      }
      // Red-team fix: inside an agent hook's own subagent, model hooks do not fire again: an agent
      // hook on Read whose judge Reads would start a judge per Read, each one deeper, until the
      // outermost timed out (command and http hooks, which start no subagent, still run there).
      if (insideHookAgent(context.run)) {
        context.logger.debug(
          `${input.hookEventName} ${hook.type} hook was skipped: it fired inside a hook's own subagent`,
        );
        return Promise.resolve(undefined);
      }
      return runModelHook(hook, input, {
        run: context.run,
        ...(context.agentRunner ? { agentRunner: context.agentRunner } : {}),
      });
  }
}

const filters = new Map<string, IfFilter>();

/** The compiled `if` of a handler (an `if` that is not a rule runs the handler: fail safe; settings-hooks warned about it). */
/**
 * Whether the call surely is one a handler's `if` names (`compileIfSure`): its approval counts
 * only then (red team v, V4). The filter runs a handler for every call it cannot rule out, which
 * is right for a guard's deny and wrong for an approval meant for what the rule names.
 */
function ifCovers(hook: HookHandler | HookCallback, input: HookInput, context: HookRunContext): boolean {
  if (typeof hook === "function" || hook.if === undefined) return true;
  let sure = sureFilters.get(hook.if);
  if (!sure) sureFilters.set(hook.if, (sure = compileIfSure(hook.if) ?? (() => false)));
  if (sure(input)) return true;
  context.logger.warn(
    `a ${input.hookEventName} hook approved a call its \`if\` (${hook.if}) may not name, which does not count; the call is decided by the permission rules`,
  );
  return false;
}
const sureFilters = new Map<string, IfFilter>();

function ifFilter(text: string): IfFilter {
  let filter = filters.get(text);
  if (!filter) {
    const compiled = compileIf(text);
    filters.set(text, (filter = typeof compiled === "string" ? () => true : compiled));
  }
  return filter;
}
