/**
 * A run resumed after the worker that had it stopped (killed, or frozen past its lock). The
 * session's completed tool calls are in the store and replay as they are; the calls that were in
 * flight have no stored result. Before the resumed run's first model request, each of them gets
 * one: a read-only call runs again through the funnel (running it twice changes nothing), any
 * other call is answered with an error saying it was interrupted and its effect is unknown, so
 * the model checks rather than repeats it blindly.
 */
import type { AssistantModelMessage, ToolResultPart } from "ai";
import { z } from "zod";
import { PROMPT_STAGE, definePlugin, runToolCall, type Kernel, type RunContext, type Tool } from "../../src/index";
import type { InFlightCall } from "./in-flight";

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
      parts.push((await runToolCall(run, tools, { toolCallId: call.toolUseId, toolName: call.toolName, input: call.input })).part);
      continue;
    }
    const content = interruptedMessage(call);
    run.emit({ type: "tool_result", toolName: call.toolName, toolUseId: call.toolUseId, output: { content, isError: true, metadata: { interrupted: true } }, durationMs: 0 });
    parts.push({ type: "tool-result", toolCallId: call.toolUseId, toolName: call.toolName, output: { type: "error-text", value: content } });
  }
  const callParts = calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.toolUseId, toolName: c.toolName, input: c.input }));
  const last = run.history.at(-1);
  // The replay kept the message's text and dropped its unanswered calls: they go back in after it.
  if (last?.role === "assistant") {
    const content = typeof last.content === "string" ? [{ type: "text" as const, text: last.content }] : last.content;
    run.history[run.history.length - 1] = { role: "assistant", content: [...content, ...callParts] } satisfies AssistantModelMessage;
  } else run.history.push({ role: "assistant", content: callParts });
  run.history.push({ role: "tool", content: parts });
}

/** Tap the kernel so its (one) main run answers `calls` before its first prompt goes in. */
export function tapTakeover(kernel: Kernel, name: string, calls: readonly InFlightCall[]): void {
  if (calls.length === 0) return;
  let answered = false;
  // Before every other prompt tap: the answers precede the prompt in the transcript and history.
  kernel.hooks.turn.prompt.tapPromise({ name, stage: PROMPT_STAGE.CONTEXT - 100 }, async (prompt, run) => {
    if (answered || run.agent) return prompt;
    answered = true;
    await answer(run, calls);
    return prompt;
  });
}

/** The takeover plugin's name. */
export const TAKEOVER_NAME = "ubiquity:fleet-takeover";

const inFlightSchema = z.array(z.object({ toolUseId: z.string(), toolName: z.string(), input: z.unknown() }));

/** What a worker adds to a resumed run: the in-flight calls of the lost worker, answered first. */
export const takeoverPlugin = definePlugin(TAKEOVER_NAME, z.object({ inFlight: inFlightSchema.default([]) }), ({ inFlight }) => ({
  name: TAKEOVER_NAME,
  apply(kernel) {
    tapTakeover(kernel, TAKEOVER_NAME, inFlight as InFlightCall[]);
  },
}));
