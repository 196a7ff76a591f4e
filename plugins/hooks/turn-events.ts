/**
 * The events between a turn's parts: PostToolBatch once the model's tool calls of one response
 * have all run (before the next model call: its hooks may add context or end the loop), and
 * StopFailure when a model call failed for good, ending the turn (observe only, as in Claude Code).
 */
import {
  describeError,
  redactText,
  secretsOfRun,
  type ModelErrorInfo,
  type RunContext,
  type TurnInfo,
} from "../../src/index";
import { type KernelHooks, NAME } from "./kernel-hooks";

/** Tap the end of a turn with tool calls, and the model error no earlier tap recovered. */
export function tapTurnEvents(hooks: KernelHooks): void {
  const { kernel } = hooks;
  kernel.hooks.turn.end.tapPromise(NAME, (info, run) => firePostToolBatch(hooks, info, run));
  // Last: reached only when no retry or fallback took the call over, so the turn ends with this error.
  kernel.hooks.model.error.tapPromise({ name: NAME, order: "last" }, async (info, run) => {
    await fireStopFailure(hooks, info, run);
    return undefined;
  });
}

/**
 * PostToolBatch: every call of the response with what the model reads of its result. A block
 * (exit 2, `decision: "block"`, `continue: false`) ends the loop before the next model call, its
 * reason kept in the conversation; `additionalContext` reaches the model with the next call.
 */
export async function firePostToolBatch(hooks: KernelHooks, info: TurnInfo, run: RunContext): Promise<void> {
  if (info.toolResults.length === 0 || !hooks.has("PostToolBatch", run)) return;
  const inputs = new Map<string, unknown>();
  for (const block of info.assistant.content) if (block.type === "tool_call") inputs.set(block.toolUseId, block.input);
  // Claude Code's field names inside the list too: a hook script reads them as they are.
  const toolCalls = info.toolResults.map((result) => ({
    tool_name: result.toolName,
    tool_input: inputs.get(result.toolUseId) ?? {},
    tool_use_id: result.toolUseId,
    tool_response: result.output.content,
  }));
  const outcome = await hooks.fire("PostToolBatch", run, { extra: { toolCalls } });
  const stop = outcome.stopped ?? outcome.blocked;
  const said = [...outcome.context, ...(stop ? [`PostToolBatch hook stopped the work: ${stop}`] : [])];
  if (said.length > 0) {
    // Emitted as well as added, so that the transcript keeps what the model read here.
    run.emit({ type: "system", subtype: "hook_context", hookEventName: "PostToolBatch", context: said });
    run.history.push({ role: "user", content: said.map((text) => ({ type: "text", text })) });
  }
  if (stop) run.interrupted = stop;
}

/** StopFailure: the turn ended on a model error (not on an abort); what its hooks answer is ignored. */
export async function fireStopFailure(hooks: KernelHooks, info: ModelErrorInfo, run: RunContext): Promise<void> {
  const purpose = info.request.purpose ?? "turn";
  if (purpose !== "turn" || run.agent || run.abortSignal.aborted || !hooks.has("StopFailure", run)) return;
  const last = lastAssistantText(run);
  await hooks.fire("StopFailure", run, {
    extra: {
      error: errorType(info.error),
      errorDetails: redactText(describeError(info.error), secretsOfRun(run)),
      ...(last ? { lastAssistantMessage: last } : {}),
    },
  });
}

/** Claude Code's error types (StopFailure's matcher), from the HTTP status of the failed call. */
export function errorType(error: unknown): string {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status !== "number") return "unknown";
  if (status === 429) return "rate_limit";
  if (status === 401 || status === 403) return "authentication_failed";
  if (status === 402) return "billing_error";
  if (status >= 500) return "server_error";
  if (status >= 400) return "invalid_request";
  return "unknown";
}

/** The text of the conversation's last assistant message, if any. */
function lastAssistantText(run: RunContext): string | undefined {
  for (let i = run.history.length - 1; i >= 0; i--) {
    const message = run.history[i]!;
    if (message.role !== "assistant") continue;
    if (typeof message.content === "string") return message.content || undefined;
    const text = message.content
      .flatMap((part) => (part.type === "text" ? [part.text] : []))
      .join("")
      .trim();
    return text || undefined;
  }
  return undefined;
}
