/**
 * `ubiquity:reasoning`: `reasoning` [the provider's default] — how much the model reasons, as one
 * option for every provider: the AI SDK's portable `reasoning` call setting, which each provider
 * package maps to its own wire field (OpenAI's reasoning effort, Anthropic's thinking budget or
 * effort, Google's thinking config, …). A level, or a schedule by phase — `plan` (the answer to a
 * prompt, before any tool ran), `work` (after tool results), `verify` (after a stop check sent
 * the agent back). A subagent's definition may set its own; `setReasoning()` changes a live
 * session's from its next request. `maxThinkingTokens` and `providerOptions` stay the exact
 * per-provider controls: when set, the provider reads them over this setting.
 */
import { REQUEST_STAGE, type ModelRequest, type RunContext, type TurnPrompt } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { getReasoningApi } from "./api";
import { reasoningOptions, type ReasoningLevel, type ReasoningSchedule } from "./options";
import { reasoningFlags } from "./cli";

export { getReasoningApi, type ReasoningApi } from "./api";
export * from "./options";

/** The plugin's name. */
export const NAME = "ubiquity:reasoning";

/** A phase of a stretch of work. */
export type ReasoningPhase = keyof ReasoningSchedule;

interface RunState {
  phase: ReasoningPhase;
}

/** The level for `phase` under `setting` (a level applies to every phase). */
export function levelFor(
  setting: ReasoningLevel | ReasoningSchedule | undefined,
  phase: ReasoningPhase,
): ReasoningLevel | undefined {
  return typeof setting === "string" ? setting : setting?.[phase];
}

/** The reasoning plugin. */
export const reasoningPlugin = definePlugin({
  name: NAME,
  options: reasoningOptions,
  flags: reasoningFlags,
  runState: (): RunState => ({ phase: "plan" }),
  apply(kernel, context) {
    const stateOf = (run: RunContext): RunState => context.run(run);
    // A prompt from the user opens a plan; one from a stop check opens verification.
    kernel.hooks.turn.prompt.tap(NAME, (prompt: TurnPrompt, run: RunContext) => {
      stateOf(run).phase = prompt.source === "stop" ? "verify" : "plan";
      return prompt;
    });
    kernel.hooks.model.request.tap(
      { name: NAME, stage: REQUEST_STAGE.TRANSFORM },
      (request: ModelRequest, run: RunContext) => {
        if ((request.purpose ?? "turn") !== "turn") return request;
        const state = stateOf(run);
        // Tool results came back: the plan is under way (verification stays verification).
        if (state.phase === "plan" && request.messages.at(-1)?.role === "tool") state.phase = "work";
        const setting = getReasoningApi(kernel).get(run) ?? context.optionsOf(run).reasoning;
        const level = levelFor(setting, state.phase);
        if (level === undefined) return request;
        return { ...request, streamSettings: { ...request.streamSettings, reasoning: level } };
      },
    );
  },
});

export default reasoningPlugin;
