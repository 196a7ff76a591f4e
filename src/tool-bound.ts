/**
 * Every tool call is bounded, whoever wrote the tool: by its time limit (`toolTimeouts[name]`, else
 * the tool's own `timeoutMs`, else `toolTimeoutMs` [600000]) and by the run's abort. Either one
 * aborts the signal the call sees; a tool still running `TOOL_STOP_GRACE_MS` later is abandoned —
 * answered with an error result while its promise settles unobserved — so a tool that ignores its
 * signal cannot hold the run, aborted or not.
 */
import { UbiquityError, describeError } from "./errors";
import { seconds } from "./call-limits";
import type { ToolOutput } from "./messages";
import type { RunContext } from "./run";
import type { Tool, ToolContext } from "./tool";

/** Default `toolTimeoutMs`: longer than Bash's own longest timeout. */
export const DEFAULT_TOOL_TIMEOUT_MS = 600_000;
/** How long a call has to stop once asked (time out, run aborted) before it is abandoned. */
export const TOOL_STOP_GRACE_MS = 2_000;

/** A tool call cut by its time limit (the reason its signal aborts with). */
export class ToolTimeoutError extends UbiquityError {
  override name = "ToolTimeoutError";
}

/** The time limit of one tool's calls in this run (Infinity: none). */
export function toolTimeoutOf(run: RunContext, tool: Tool): number {
  return (
    run.options.toolTimeouts?.[tool.name] ?? tool.timeoutMs ?? run.options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS
  );
}

/** Run `tool.call` under its bounds. A tool's own failure is thrown as before. */
export async function boundedCall(
  run: RunContext,
  tool: Tool,
  input: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolOutput> {
  const limit = toolTimeoutOf(run, tool);
  const timedOut = () =>
    `${tool.name} timed out after ${seconds(limit)} (its limit: toolTimeoutMs or toolTimeouts.${tool.name})`;
  // One signal per call, aborted by its timer or by the run's through a listener: AbortSignal.any
  // per call would cost the run's signal a weak reference and two registrations until a GC.
  const controller = new AbortController();
  const parent = run.abortSignal;
  let expired = false;
  let grace: ReturnType<typeof setTimeout> | undefined;
  let abandon = (_: "abandoned") => {};
  const abandoned = new Promise<"abandoned">((resolve) => (abandon = resolve));
  // Asked to stop (timed out, the run aborted), the call has TOOL_STOP_GRACE_MS before it is abandoned.
  const stop = (reason: unknown, timeout = false) => {
    expired ||= timeout;
    controller.abort(reason);
    grace ??= setTimeout(abandon, TOOL_STOP_GRACE_MS, "abandoned");
  };
  const follow = () => stop(parent.reason);
  const timer = Number.isFinite(limit)
    ? setTimeout(() => stop(new ToolTimeoutError(timedOut()), true), limit)
    : undefined;
  const settled = Promise.resolve()
    .then(() => tool.call(input, { ...context, abortSignal: controller.signal }))
    .then(
      (output) => ({ output }),
      (error: unknown) => ({ error }),
    );
  if (parent.aborted) follow();
  else parent.addEventListener("abort", follow, { once: true });
  try {
    const outcome = await Promise.race([settled, abandoned]);
    if (outcome === "abandoned") {
      // Nobody awaits the call any more; what it does later is only logged.
      void settled.then((late) =>
        run.logger.warn(
          `[ubiquity] ${tool.name} (${context.toolUseId}) ended after it was abandoned${"error" in late ? `: ${describeError(late.error)}` : ""}`,
        ),
      );
      const why = expired ? timedOut() : `The run was aborted and ${tool.name}`;
      return {
        content: `${why}${expired ? " and" : ""} did not stop within ${seconds(TOOL_STOP_GRACE_MS)} of being asked: the call was abandoned, its effect is unknown.`,
        isError: true,
      };
    }
    if (expired) {
      const own = "output" in outcome ? outcome.output?.content : describeError(outcome.error);
      return {
        content: `${timedOut()} and was stopped.${own ? `\n${own}` : ""}`,
        isError: true,
        metadata: "output" in outcome ? outcome.output?.metadata : undefined,
      };
    }
    if ("error" in outcome) throw outcome.error;
    return outcome.output;
  } finally {
    // A call that ended is never abandoned: the run's abort at its end (every run's signal
    // aborts then) would otherwise arm a grace timer that holds the process 2 s past the result.
    parent.removeEventListener("abort", follow);
    clearTimeout(timer);
    clearTimeout(grace);
  }
}
