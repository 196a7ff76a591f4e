/**
 * `ubiquity:verify-before-stop` (opt-in: not in the default preset; add it to a config's
 * `plugins` or use the `harness` preset): when the model stops after changing something, it is
 * sent back once to run the checks — the configured `command`, else the ones it named itself
 * (`npm test`, `pytest`, …), else whatever checks the project has — and to fix what fails before
 * its final answer. Once per stretch of work, so it cannot loop; bounded by `maxTurns` as any
 * stop check is. Subagents are left alone unless `subagents` is set.
 */
import { z } from "zod";
import type { RunContext, StopInfo, ToolCall, ToolOutput, TurnPrompt } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { namedChecks } from "./checks";

export { namedChecks } from "./checks";

/** The plugin's name. */
export const NAME = "ubiquity:verify-before-stop";

/** Options of the verify-before-stop plugin. */
export const VerifyBeforeStopOptions = z.strictObject({
  command: z
    .string()
    .min(1)
    .optional()
    .describe("The check the model must run before finishing (e.g. `npm test`) [the checks it named itself]"),
  always: z
    .boolean()
    .optional()
    .describe("Ask also when nothing was changed in the stretch [false: only after a tool that writes ran]"),
  subagents: z.boolean().optional().describe("Ask subagents too [false]"),
});
export type VerifyBeforeStopOptions = z.input<typeof VerifyBeforeStopOptions>;

interface RunState {
  changed: boolean;
  asked: boolean;
  /** The assistant's text this stretch (where it names its checks). */
  said: string[];
}

/** The prompt that sends the model back to verify. */
export function verifyPrompt(command: string | undefined, named: readonly string[]): string {
  const what = command
    ? `run \`${command}\``
    : named.length > 0
      ? `run the checks you named (${named.map((c) => `\`${c}\``).join(", ")})`
      : "run the checks this project has for the change you made (its tests, type checker, linter or build — whichever apply)";
  return `Before you finish, verify your work: ${what}. If something fails, fix it and run the check again. Then give your final answer, saying which checks you ran and what they showed. If no check can run here, say so in one line and why.`;
}

/** The verify-before-stop plugin. */
export const verifyBeforeStopPlugin = definePlugin({
  name: NAME,
  factoryOptions: VerifyBeforeStopOptions,
  runState: (): RunState => ({ changed: false, asked: false, said: [] }),
  apply(kernel, context) {
    const opts = context.factoryOptions;
    const stateOf = (run: RunContext): RunState => context.run(run);
    kernel.hooks.turn.prompt.tap(NAME, (prompt: TurnPrompt, run: RunContext) => {
      // A new request from the user starts a new stretch to verify.
      if (prompt.source === "user") Object.assign(stateOf(run), { changed: false, asked: false, said: [] });
      return prompt;
    });
    kernel.hooks.tool.afterCall.tap(NAME, (output: ToolOutput, call: ToolCall) => {
      if (!output.isError && !call.tool.isReadOnly(call.input as never)) stateOf(call.run).changed = true;
      return output;
    });
    kernel.hooks.turn.end.tap(NAME, (turn, run) => {
      if (turn.assistant.text) stateOf(run).said.push(turn.assistant.text);
    });
    kernel.hooks.turn.stop.tap(NAME, (_info: StopInfo, run: RunContext) => {
      if (run.parent && !opts.subagents) return undefined;
      const state = stateOf(run);
      if (state.asked || (!state.changed && !opts.always)) return undefined;
      state.asked = true;
      return { continueWith: verifyPrompt(opts.command, namedChecks(state.said.join("\n"))) };
    });
  },
});

export default verifyBeforeStopPlugin;
