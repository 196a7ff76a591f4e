/**
 * Recording a run: its writer opens at `session.start` (after the resume, which runs first), every
 * persisted message and plugin note reaches it through the `event` firehose, the prompt is
 * recorded at `turn.prompt` as the model receives it, and the writer closes (its lock released)
 * when the last run writing it ends.
 */
import type { Kernel, KernelEvent, RunContext, TurnPrompt } from "../../src/index";
import { type KernelSessions, NAME, RECORD_PROMPT_STAGE } from "./kernel-sessions";
import { releaseLock } from "./lock";
import { isPersisted } from "./records";
import { takeTrailingPrompt } from "./replay";
import { startTranscript } from "./start-transcript";

/** Tap the writer's start, the firehose, the prompt (at its record stage) and the run's end. */
export function tapRecording(kernel: Kernel, sessions: KernelSessions): void {
  kernel.hooks.session.start.tapPromise(NAME, (run) => startTranscript(sessions, run));
  kernel.hooks.event.tap(NAME, (event) => recordEvent(sessions, event));
  kernel.hooks.turn.prompt.tap({ name: NAME, stage: RECORD_PROMPT_STAGE }, (prompt: TurnPrompt, run: RunContext) =>
    recordPrompt(sessions, prompt, run),
  );
  kernel.hooks.session.end.tapPromise(NAME, (run) => closeTranscript(sessions, run));
}

/** A plugin's note or a persisted message, to its session's writer (messages name their session, not their run). */
export function recordEvent(sessions: KernelSessions, event: KernelEvent): void {
  if (event.type === "sessions.note") {
    sessions.writers.get(event.sessionId)?.writer.note(event.sessionId, event.kind, event.data);
    return;
  }
  if (event.type !== "message" || !isPersisted(event.message)) return;
  sessions.writers.get(event.message.sessionId)?.writer.message(event.message);
}

/**
 * Record the prompt. A resumed run's first prompt takes in the session's unanswered last one
 * (recorded above without it: on replay, the two user records merge back into this shape).
 */
export function recordPrompt(sessions: KernelSessions, prompt: TurnPrompt, run: RunContext): TurnPrompt {
  if (run.agent) return prompt;
  sessions.writers.get(run.sessionId)?.writer.prompt(prompt);
  const state = sessions.context.run(run);
  if (!state.resumed || prompt.blocked !== undefined) return prompt;
  state.resumed = false;
  const unanswered = takeTrailingPrompt(run.history);
  return unanswered.length > 0 ? { ...prompt, context: [...unanswered, ...prompt.context] } : prompt;
}

/** The run's claim ends; the last run writing a transcript closes its writer and releases its lock. */
export async function closeTranscript(sessions: KernelSessions, run: RunContext): Promise<void> {
  const { claimed: mine } = sessions.context.run(run);
  if (mine !== undefined) sessions.claimed.delete(mine);
  const open = run.agent ? undefined : sessions.writers.get(run.sessionId);
  if (!open || --open.runs > 0) return;
  sessions.writers.delete(run.sessionId);
  try {
    await open.writer.close();
  } finally {
    if (open.locked) releaseLock(open.locked);
  }
}
