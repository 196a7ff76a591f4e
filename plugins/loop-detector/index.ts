/**
 * `ubiquity:loop-detector` (opt-in: not in the default preset; add it to a config's `plugins` or
 * use the `harness` preset): the same tool called with the same input again and again within one
 * stretch of work is a loop — its result will not change. At `nudgeAfter` identical calls the
 * result carries a note telling the model so; at `stopAfter` the call is blocked and the run
 * ends with an error naming the call. Calls are compared by tool name and canonical input (key
 * order does not matter); interleaved repeats (A, B, A, B, …) count too.
 */
import { z } from "zod";
import type { BeforeCall, RunContext, ToolCall, ToolOutput, TurnPrompt } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";

/** The plugin's name. */
export const NAME = "ubiquity:loop-detector";

/** Options of the loop detector. */
export const LoopDetectorOptions = z
  .strictObject({
    nudgeAfter: z.number().int().min(2).optional().describe("Identical calls in a stretch before the model is told it is repeating itself [3]"),
    stopAfter: z.number().int().min(2).optional().describe("Identical calls in a stretch that end the run [5]"),
  })
  .refine((o) => (o.stopAfter ?? 5) > (o.nudgeAfter ?? 3), { message: "stopAfter must be greater than nudgeAfter: the model is nudged first, then stopped" });
export type LoopDetectorOptions = z.input<typeof LoopDetectorOptions>;

interface RunState {
  counts: Map<string, number>;
  /** Calls whose result gets the nudge, by tool use id, with their count. */
  nudged: Map<string, number>;
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` are one input. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The loop detector. */
export const loopDetectorPlugin = definePlugin(NAME, LoopDetectorOptions, (opts) => {
  const nudgeAfter = opts.nudgeAfter ?? 3;
  const stopAfter = opts.stopAfter ?? 5;
  return {
    name: NAME,
    runState: (): RunState => ({ counts: new Map(), nudged: new Map() }),
    apply(kernel, context) {
      const stateOf = (run: RunContext): RunState => context.run(run);
      kernel.hooks.turn.prompt.tap(NAME, (prompt: TurnPrompt, run: RunContext) => {
        if (prompt.source === "user") stateOf(run).counts.clear();
        return prompt;
      });
      kernel.hooks.tool.beforeCall.tap(NAME, (state: BeforeCall, call: ToolCall) => {
        if (state.block) return state;
        const s = stateOf(call.run);
        const key = `${call.toolName}\0${canonical(state.input)}`;
        const count = (s.counts.get(key) ?? 0) + 1;
        s.counts.set(key, count);
        if (count >= stopAfter) {
          const reason = `Loop detected: ${call.toolName} was called ${count} times with the same input in this stretch of work, so the run was stopped. Its result would not change; the task needs another approach.`;
          call.run.interrupted = reason;
          return { ...state, block: reason };
        }
        if (count >= nudgeAfter) s.nudged.set(call.toolUseId, count);
        return state;
      });
      kernel.hooks.tool.afterCall.tap(NAME, (output: ToolOutput, call: ToolCall) => {
        const s = stateOf(call.run);
        const count = s.nudged.get(call.toolUseId);
        if (count === undefined) return output;
        s.nudged.delete(call.toolUseId);
        const note = `\n\n[You have now made this exact call ${count} times in this task, and its result does not change. Do not repeat it: change the input, try a different approach, or finish with what you know. At ${stopAfter} identical calls the run stops.]`;
        return { ...output, content: `${output.content}${note}` };
      });
    },
  };
});

export default loopDetectorPlugin;
