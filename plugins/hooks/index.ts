/**
 * `ubiquity:hooks`: the user-facing hook events of `options.hooks` (for SDK users), mapped onto
 * the kernel's hooks (for plugin authors). Other plugins fire the events they own
 * (SubagentStart/Stop, PreCompact/PostCompact) through `getHooksApi(kernel).fire()`.
 */
import type { Kernel, RunContext } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { KernelHooks, NAME, type RunState } from "./kernel-hooks";
import type { AgentHookRunner } from "./model-hook";
import { HOOK_EVENTS, type HookEventName, hooksOptions } from "./options";
import { tapSessionEvents } from "./session-events";
import { tapToolEvents } from "./tool-events";
import { tapTurnEvents } from "./turn-events";
import { takeRewakes, watchIdle } from "./rewake";
import { applyWatchPaths } from "./watch-events";
import type { HookInput, HookOutcome } from "./types";
import "./messages";

export { HOOK_EVENTS };
export { NAME } from "./kernel-hooks";
export type * from "./types";
// What runs the hooks (matcher, command, HTTP and model hooks) is the dispatcher's, loaded when a
// configured hook first fires; it is imported from its modules, not re-exported here (a module
// this file re-exports loads with the preset whether a run uses it or not).
export { HOOK_JUDGE_INSTRUCTIONS } from "./judge";
export type { AgentHookRunner } from "./model-hook";
export type { HttpHookPolicy } from "./http";
export type { SystemHookContextMessage } from "./messages";

/** What other plugins use to fire the events they own. */
export interface HooksApi {
  /** Fire `event` for `run`; resolves to the combined outcome (blocked, context, ...). */
  fire(event: HookEventName, run: RunContext, fields?: Partial<Omit<HookInput, "hookEventName">>): Promise<HookOutcome>;
  /** True when any hook is configured for `event` (for `run`: its scoped hooks count too). */
  has(event: HookEventName, run?: RunContext): boolean;
  /**
   * Hooks for `run` alone, in the settings-file shape read entry by entry (an agent file's
   * `hooks`; its `Stop` hooks run at SubagentStop); `source` names it in warnings.
   */
  scope(run: RunContext, hooks: unknown, source: string): void;
  /**
   * Read and pin an agent file's `hooks` when its definition is loaded (the run's start), so the
   * scripts and data its hooks decide from are those the run found, not those at its launch; a
   * later `scope` of the same value uses this reading.
   */
  prepare?(hooks: unknown, source: string): void;
  /** Set what runs `agent` hooks (the agents plugin does, with a subagent that may Read, Grep and Glob). */
  setAgentRunner(runner: AgentHookRunner): void;
}

const apis = new WeakMap<Kernel, HooksApi>();

/** The hooks plugin's API on a kernel (undefined when the plugin is not loaded). */
export function getHooksApi(kernel: Kernel): HooksApi | undefined {
  return apis.get(kernel);
}

/** The hooks plugin. */
export const hooksPlugin = definePlugin({
  name: NAME,
  options: hooksOptions,
  runState: (): RunState => ({ sessionContext: [], stopContinuations: 0 }),
  // The hooks in effect are read once the options are resolved; then one step per kind of event.
  apply(kernel, context) {
    const hooks = new KernelHooks(kernel, context);
    kernel.hooks.kernel.configResolved.tap(NAME, (options) => hooks.configure(options));
    apis.set(kernel, {
      // A SessionStart another plugin fires (after a compaction) may name files to watch too.
      fire: async (event, run, fields = {}) => {
        const outcome = await hooks.fire(event, run, fields);
        if (event === "SessionStart") applyWatchPaths(hooks, run, outcome.watchPaths);
        return outcome;
      },
      has: (event, run) => hooks.has(event, run),
      scope: (run, value, source) => hooks.scope(run, value, source),
      prepare: (value, source) => hooks.prepare(value, source),
      setAgentRunner: (runner) => hooks.setAgentRunner(runner),
    });
    tapSessionEvents(kernel, hooks);
    tapToolEvents(kernel, hooks);
    tapTurnEvents(hooks);
    // What a background hook reported (asyncRewake) reaches the model with the next tool result or prompt.
    kernel.hooks.tool.afterCall.tap(NAME, (output, call) => {
      const notes = takeRewakes(call.run);
      return notes ? { ...output, content: `${output.content}\n\n${notes}` } : output;
    });
    kernel.hooks.turn.prompt.tap(NAME, (prompt, run) => {
      const notes = takeRewakes(run);
      return notes ? { ...prompt, context: [...prompt.context, notes] } : prompt;
    });
    // ... and wakes a live session that sits idle waiting for a message.
    kernel.hooks.event.tap(NAME, watchIdle);
  },
});

export default hooksPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
