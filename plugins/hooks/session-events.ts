/**
 * The events of a run's life: SessionStart when it starts (its hooks may write CLAUDE_ENV_FILE
 * lines that run ahead of every Bash command, and add context for the first prompt),
 * UserPromptSubmit on each user prompt, Stop when the model stops (a hook may send it back),
 * Notification and SessionEnd when it ends, and a system prompt section saying hooks watch it.
 * A subagent's run fires none of these (its own are SubagentStart/SubagentStop).
 */
import {
  SYSTEM_STAGE,
  type Kernel,
  type ResultMessage,
  type RunContext,
  type StopDecision,
  type StopInfo,
  type SystemSection,
  type TurnPrompt,
} from "../../src/index";
import { readEnvFiles, setSessionScript } from "../_kits/process/index";
import { getSandboxApi } from "../sandbox/api";
import { SessionEnvFiles } from "./env-file";
import { type KernelHooks, NAME } from "./kernel-hooks";
import { HOOK_EVENTS } from "./options";
import { startWatching, stopWatching } from "./watch-events";

/** Tap the run's start, its prompts, the model's stop, the run's end and the system prompt. */
export function tapSessionEvents(kernel: Kernel, hooks: KernelHooks): void {
  // FileChanged and ConfigChange watch from the start (SessionStart's `watchPaths` included) to the end.
  kernel.hooks.session.start.tapPromise(NAME, async (run) =>
    startWatching(hooks, run, await fireSessionStart(hooks, run)),
  );
  kernel.hooks.turn.prompt.tapPromise(NAME, (prompt, run) => firePromptSubmit(hooks, prompt, run));
  kernel.hooks.turn.stop.tapPromise(NAME, (info, run) => fireStop(hooks, info, run));
  kernel.hooks.session.end.tapPromise(NAME, async (run, result) => {
    await stopWatching(hooks, run);
    await fireSessionEnd(hooks, run, result);
  });
  kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.FEATURES }, (sections) =>
    hooksSection(hooks, sections),
  );
}

/**
 * SessionStart: its context waits for the first prompt; what its hooks wrote to CLAUDE_ENV_FILE
 * becomes the session's script. Resolves to the paths its hooks asked FileChanged to watch.
 */
export async function fireSessionStart(hooks: KernelHooks, run: RunContext): Promise<string[] | undefined> {
  if (run.agent || !hooks.has("SessionStart")) return undefined;
  const options = hooks.context.optionsOf(run);
  const source = options.resume || options.continueConversation ? "resume" : "startup";
  // CLAUDE_ENV_FILE: each hook gets a file of its own; what they wrote runs ahead of every Bash command.
  const files = new SessionEnvFiles(getSandboxApi(hooks.kernel));
  try {
    const outcome = await hooks.fire(
      "SessionStart",
      run,
      { extra: { source } },
      { envFile: (contained) => files.next(contained) },
    );
    hooks.stateOf(run).sessionContext.push(...outcome.context);
    setSessionScript(
      run,
      readEnvFiles(files.hostPaths, (problem) => run.logger.warn(`SessionStart hook's CLAUDE_ENV_FILE: ${problem}`)),
    );
    return outcome.watchPaths;
  } finally {
    files.remove();
  }
}

/** UserPromptSubmit: the prompt gets SessionStart's context and the hooks' own; a hook may block it. */
export async function firePromptSubmit(hooks: KernelHooks, prompt: TurnPrompt, run: RunContext): Promise<TurnPrompt> {
  if (prompt.source !== "user" || run.agent) return prompt;
  const state = hooks.stateOf(run);
  const context = [...prompt.context, ...state.sessionContext];
  state.sessionContext = [];
  if (!hooks.has("UserPromptSubmit", run)) return { ...prompt, context };
  const outcome = await hooks.fire("UserPromptSubmit", run, { prompt: prompt.text });
  return {
    ...prompt,
    context: [...context, ...outcome.context],
    ...(outcome.blocked ? { blocked: outcome.blocked } : {}),
  };
}

/** Stop: a hook that blocks the stop sends the model back with its reason. */
export async function fireStop(hooks: KernelHooks, info: StopInfo, run: RunContext): Promise<StopDecision | undefined> {
  if (run.agent || !hooks.has("Stop")) return undefined;
  const outcome = await hooks.fire("Stop", run, {
    message: info.text,
    // Claude Code's name for the answer the hook judges (its Stop input); `message` stays for our own hooks.
    extra: { stopHookActive: info.continuations > 0, lastAssistantMessage: info.text },
  });
  const state = hooks.stateOf(run);
  if (outcome.blocked && !outcome.stopped) {
    state.stopContinuations++;
    state.stopBlocks = { inARow: (state.stopBlocks?.inARow ?? 0) + 1, reason: outcome.blocked };
    return { continueWith: outcome.blocked };
  }
  state.stopBlocks = undefined;
  return undefined;
}

/**
 * Why the turns ran out, when Stop hooks kept sending the model back to the end: the result's
 * "raise maxTurns" does not help a hook that blocks every stop (a check failing for good, a script
 * that does not read `stop_hook_active`).
 */
function stopLoopWarning(hooks: KernelHooks, run: RunContext, result: ResultMessage): string | undefined {
  const blocks = hooks.stateOf(run).stopBlocks;
  if (result.subtype !== "error_max_turns" || !blocks || blocks.inARow < 2) return undefined;
  const reason = blocks.reason.length > 300 ? `${blocks.reason.slice(0, 300)}…` : blocks.reason;
  return `the run used its turns because a Stop hook blocked every stop, ${blocks.inARow} times in a row, each time sending the agent back (its reason: ${JSON.stringify(reason)}): fix what the hook checks, or have it let the run stop when its input's stop_hook_active is true; more turns would not end the loop`;
}

/** The run ended: a Notification when it ended for a reason worth telling (turns ran out, an error, a Stop hook), then SessionEnd. */
export async function fireSessionEnd(hooks: KernelHooks, run: RunContext, result: ResultMessage): Promise<void> {
  if (run.agent) return;
  const loop = stopLoopWarning(hooks, run, result);
  if (loop) run.logger.warn(loop);
  const reason =
    result.subtype === "error_max_turns"
      ? "max_turns"
      : result.subtype === "error_during_execution" || result.subtype === "error_configuration"
        ? "error"
        : hooks.stateOf(run).stopContinuations > 0
          ? "stopped"
          : undefined;
  if (reason && hooks.has("Notification"))
    await hooks.fire("Notification", run, { message: result.result, extra: { reason, notificationType: reason } });
  // `reason` is Claude Code's (clear, logout, prompt_input_exit, other): a run that ends by itself is
  // "other", as `claude -p` sends it, so a settings hook's `"matcher": "other"` and a script's
  // `jq -r .reason` read it as there; how the run ended is the result's `subtype`.
  if (hooks.has("SessionEnd"))
    await hooks.fire("SessionEnd", run, {
      message: result.result,
      extra: { reason: "other", subtype: result.subtype },
    });
}

/** With any hook configured, the model is told that hooks watch the run and how to take a blocked call. */
export function hooksSection(hooks: KernelHooks, sections: SystemSection[]): SystemSection[] {
  const configured = HOOK_EVENTS.some((e) => hooks.has(e));
  if (!configured) return sections;
  return [
    ...sections,
    {
      id: "hooks",
      text: "# Hooks\nHooks configured by the user watch this run. A tool call may be blocked or its input adjusted by them; when a call is blocked, the reason comes from the user's configuration — follow it rather than working around it.",
    },
  ];
}
