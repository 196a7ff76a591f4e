/**
 * `ubiquity:loop-detector` (opt-in: not in the default preset; add it to a config's `plugins` or
 * use the `harness` preset): the same tool called with the same input again and again within one
 * stretch of work, getting the same result each time, is a loop. At `nudgeAfter` such calls the
 * result carries a note telling the model so; the `stopAfter`-th is blocked and the run ends with
 * an error naming the call. Calls are compared by tool name and canonical input (key order does
 * not matter); interleaved repeats (A, B, A, B, …) count too. A result that differs from the
 * last one of the same call starts the count again: re-running the tests after each fix is work,
 * not a loop.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { BeforeCall, RunContext, ToolCall, ToolOutput, TurnPrompt } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";

/** The plugin's name. */
export const NAME = "ubiquity:loop-detector";

/** Options of the loop detector. */
export const LoopDetectorOptions = z
  .strictObject({
    nudgeAfter: z
      .number()
      .int()
      .min(2)
      .optional()
      .describe("Identical calls in a stretch before the model is told it is repeating itself [3]"),
    stopAfter: z.number().int().min(2).optional().describe("Identical calls in a stretch that end the run [5]"),
  })
  .refine((o) => (o.stopAfter ?? 5) > (o.nudgeAfter ?? 3), {
    message: "stopAfter must be greater than nudgeAfter: the model is nudged first, then stopped",
  });
export type LoopDetectorOptions = z.input<typeof LoopDetectorOptions>;

interface RunState {
  /** Per call (tool and canonical input): how many times in a row it gave the same result, and that result's hash. */
  repeats: Map<string, { count: number; result: string }>;
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
export const loopDetectorPlugin = definePlugin({
  name: NAME,
  factoryOptions: LoopDetectorOptions,
  runState: (): RunState => ({ repeats: new Map() }),
  apply(kernel, context) {
    const nudgeAfter = context.factoryOptions.nudgeAfter ?? 3;
    const stopAfter = context.factoryOptions.stopAfter ?? 5;
    const stateOf = (run: RunContext): RunState => context.run(run);
    const keyOf = (toolName: string, input: unknown) => `${toolName}\0${canonical(input)}`;
    kernel.hooks.turn.prompt.tap(NAME, (prompt: TurnPrompt, run: RunContext) => {
      if (prompt.source === "user") stateOf(run).repeats.clear();
      return prompt;
    });
    kernel.hooks.tool.beforeCall.tap(NAME, (state: BeforeCall, call: ToolCall) => {
      if (state.block) return state;
      const count = (stateOf(call.run).repeats.get(keyOf(call.toolName, state.input))?.count ?? 0) + 1;
      if (count < stopAfter) return state;
      const reason = `Loop detected: ${call.toolName} was called ${count} times with the same input in this stretch of work, getting the same result each time, so the run was stopped. The task needs another approach.`;
      call.run.interrupted = reason;
      return { ...state, block: reason };
    });
    kernel.hooks.tool.afterCall.tap(NAME, (output: ToolOutput, call: ToolCall) => {
      const repeats = stateOf(call.run).repeats;
      const key = keyOf(call.toolName, call.input);
      const result = createHash("sha256")
        .update(`${output.isError ? "error" : "ok"}\0${output.content}`)
        .digest("base64url");
      const last = repeats.get(key);
      const count = last && last.result === result ? last.count + 1 : 1;
      repeats.set(key, { count, result });
      if (count < nudgeAfter) return output;
      const note = `\n\n[You have now made this exact call ${count} times in this task and got the same result each time. Do not repeat it: change the input, try a different approach, or finish with what you know. At ${stopAfter} identical calls the run stops.]`;
      return { ...output, content: `${output.content}${note}` };
    });
  },
});

export default loopDetectorPlugin;
