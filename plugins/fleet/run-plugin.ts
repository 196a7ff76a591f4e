/**
 * `ubiquity:fleet-run`, the plugin a worker adds to each run: the lease check before every model
 * request and tool call, and the in-flight calls of a resumed run.
 *
 * A run resumed after the worker that had it stopped (killed, or frozen past its lock). The
 * session's completed tool calls are in the store and replay as they are; the calls that were in
 * flight have no stored result. Before the resumed run's first model request, each of them gets
 * one: a read-only call runs again through the funnel (running it twice changes nothing), any
 * other call is answered with an error saying it was interrupted and its effect is unknown, so
 * the model checks rather than repeats it blindly.
 */
import type { AssistantModelMessage, ToolResultPart } from "ai";
import { z } from "zod";
import { REQUEST_STAGE, RunEnd, runToolCall, type Kernel, type RunContext, type Tool } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import type { InFlightCall } from "./in-flight";
import "./result-subtypes";

/** What the model reads for an in-flight call that was not re-run. */
export function interruptedMessage(call: InFlightCall): string {
  return (
    `Interrupted: the worker running this ${call.toolName} call stopped before its result was stored, ` +
    "and the run was moved to another worker. Whether the call took effect, fully or in part, is unknown: " +
    "check the state it would have changed before doing it again."
  );
}

function isReadOnly(tool: Tool | undefined, input: unknown): boolean {
  if (!tool) return false;
  const parsed = tool.inputSchema.safeParse(input);
  if (!parsed.success) return false;
  try {
    return tool.isReadOnly(parsed.data) === true;
  } catch {
    return false;
  }
}

/** Answer every in-flight call of `calls` in `run` and put the pairs in its history. */
async function answer(run: RunContext, calls: readonly InFlightCall[]): Promise<void> {
  const tools = new Map(run.tools.map((t) => [t.name, t] as const));
  const parts: ToolResultPart[] = [];
  for (const call of calls) {
    if (isReadOnly(tools.get(call.toolName), call.input)) {
      parts.push(
        (await runToolCall(run, tools, { toolCallId: call.toolUseId, toolName: call.toolName, input: call.input }))
          .part,
      );
      continue;
    }
    const content = interruptedMessage(call);
    run.emit({
      type: "tool_result",
      toolName: call.toolName,
      toolUseId: call.toolUseId,
      output: { content, isError: true, metadata: { interrupted: true } },
      durationMs: 0,
    });
    parts.push({
      type: "tool-result",
      toolCallId: call.toolUseId,
      toolName: call.toolName,
      output: { type: "error-text", value: content },
    });
  }
  const callParts = calls.map((c) => ({
    type: "tool-call" as const,
    toolCallId: c.toolUseId,
    toolName: c.toolName,
    input: c.input,
  }));
  const last = run.history.at(-1);
  // The replay kept the message's text and dropped its unanswered calls: they go back in after it.
  if (last?.role === "assistant") {
    const content = typeof last.content === "string" ? [{ type: "text" as const, text: last.content }] : last.content;
    run.history[run.history.length - 1] = {
      role: "assistant",
      content: [...content, ...callParts],
    } satisfies AssistantModelMessage;
  } else run.history.push({ role: "assistant", content: callParts });
  run.history.push({ role: "tool", content: parts });
}

/** Tap the kernel so its (one) main run answers `calls` before its first prompt goes in. */
export function tapTakeover(kernel: Kernel, name: string, calls: readonly InFlightCall[]): void {
  if (calls.length === 0) return;
  let answered = false;
  // Before every other prompt tap: the answers precede the prompt in the transcript and history.
  kernel.hooks.turn.prompt.tapPromise({ name, order: "first" }, async (prompt, run) => {
    if (answered || run.agent) return prompt;
    answered = true;
    await answer(run, calls);
    return prompt;
  });
}

/** The kind of the transcript note naming the fleet job that runs a session (the last one is its owner). */
export const JOB_NOTE = "fleet-job";

/** The job a session's notes say runs it now (the last `fleet-job` note), or undefined. */
export function sessionJob(notes: readonly { kind: string; data: Record<string, unknown> }[]): string | undefined {
  const last = notes.findLast((n) => n.kind === JOB_NOTE)?.data.jobId;
  return typeof last === "string" ? last : undefined;
}

/** The name of the plugin a worker adds to each run. */
export const RUN_PLUGIN_NAME = "ubiquity:fleet-run";

const inFlightSchema = z.array(z.object({ toolUseId: z.string(), toolName: z.string(), input: z.unknown() }));

/** What a run loses its job with: the queue gave the job to another worker. */
export function lostLeaseMessage(): string {
  return "this worker lost the job's lock (it was frozen or cut off past the lock duration) and another worker has the run now; this run stops here";
}

/**
 * What a worker adds to each run: the in-flight calls of a lost worker, answered first; and a
 * lease check before every model request and tool call, so a worker that lost its job (frozen
 * past its lock) stops before it sends or does anything more.
 */
export const fleetRunPlugin = definePlugin({
  name: RUN_PLUGIN_NAME,
  factoryOptions: z.object({
    inFlight: inFlightSchema.default([]),
    /** Resolves to false once the job belongs to another worker. */
    lease: z.custom<() => Promise<boolean>>((v) => typeof v === "function").optional(),
    /** The job the run belongs to: noted in the transcript with its first prompt, so a takeover can tell a job's own session from another's. */
    jobId: z.string().optional(),
  }),
  apply(kernel, context) {
    const { inFlight, lease, jobId } = context.factoryOptions;
    tapTakeover(kernel, RUN_PLUGIN_NAME, inFlight as InFlightCall[]);
    if (jobId !== undefined) {
      // Before the run's first record (the session's writer is open once session.start ran the
      // sessions plugin's tap, which comes first): a job that dies right after its first record
      // is still known as its session's owner, so its next try can take the session over.
      kernel.hooks.session.start.tap(RUN_PLUGIN_NAME, (run) => {
        if (!run.agent)
          kernel.emit({ type: "sessions.note", sessionId: run.sessionId, kind: JOB_NOTE, data: { jobId } });
      });
    }
    if (!lease) return;
    kernel.hooks.model.request.tapPromise({ name: RUN_PLUGIN_NAME, stage: REQUEST_STAGE.GUARD }, async (request) => {
      if (!(await lease())) throw new RunEnd(lostLeaseMessage(), "error_lost_lease");
      return request;
    });
    kernel.hooks.tool.beforeCall.tapPromise(RUN_PLUGIN_NAME, async (state) =>
      state.block || (await lease()) ? state : { ...state, block: lostLeaseMessage() },
    );
  },
});
