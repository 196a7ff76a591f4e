/**
 * `ubiquity:compaction-micro`: the free tier of `context.compact`. When the next request would
 * carry more than the threshold, older results of pure-observation tools are cleared in place,
 * keeping the newest `microcompactKeepRecent` [5]; a `system/microcompact` message reports what
 * was cleared. The estimate handed on to the next tier drops by what was reclaimed: usage
 * reports what was sent, not what will be sent next. `autoMicrocompact: false` turns it off.
 */
import { COMPACT_STAGE, SYSTEM_STAGE, type CompactState, type RunContext } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import {
  budgetFor,
  learnedWindow,
  pressureOf,
  resolveContextWindow,
  type ContextWindow,
} from "../_kits/compaction/index";
import { CLEARED_MARKER, clearableTools, microcompact } from "./clear";
import { microcompactionOptions } from "./options";
import type { MicrocompactionOptions } from "./options";

export const NAME = "ubiquity:compaction-micro";

/** Default of `microcompactKeepRecent`. */
export const DEFAULT_KEEP_RECENT = 5;

const NOTE =
  "# Context\nOlder tool results may be cleared (replaced by a marker): note what you need from a result, or run the tool again.";

/** True when the tier is on for `run`. */
const enabled = (options: MicrocompactionOptions) => options.autoMicrocompact !== false;

/** The microcompaction plugin. */
export const microcompactionPlugin = definePlugin({
  name: NAME,
  options: microcompactionOptions,
  // Resolved on first use in a run (its first compaction), once the model label is known.
  runState: (run: RunContext): Promise<ContextWindow> => resolveContextWindow(run, run.modelLabel),
  apply(kernel, context) {
    // A window the server reported (a refused request) wins over the declared or assumed one.
    const windowOf = async (run: RunContext): Promise<number> =>
      Math.min((await context.run(run)).tokens, learnedWindow(run) ?? Infinity);

    kernel.hooks.context.compact.tapPromise(
      { name: NAME, stage: COMPACT_STAGE.MICRO },
      async (state: CompactState, run) => {
        if (!enabled(context.optionsOf(run))) return state;
        const { threshold } = budgetFor(await windowOf(run), context.optionsOf(run));
        const tokensBefore = pressureOf(state);
        if (tokensBefore <= threshold) return { ...state, estimatedTokens: tokensBefore };
        const result = microcompact(
          state.messages,
          context.optionsOf(run).microcompactKeepRecent ?? DEFAULT_KEEP_RECENT,
          clearableTools(run.kernel.registries.tools.values()),
        );
        if (result.cleared === 0) return { ...state, estimatedTokens: tokensBefore };
        const estimatedTokens = Math.max(0, tokensBefore - result.tokensSaved);
        run.emit({
          type: "system",
          subtype: "microcompact",
          cleared: result.cleared,
          tokensSaved: result.tokensSaved,
          toolUseIds: result.toolUseIds,
          replacement: CLEARED_MARKER,
        });
        // The kernel fires context.compacted for what the tiers report, once they all ran.
        const compactions = [
          ...(state.compactions ?? []),
          { tier: "micro", tokensBefore, tokensAfter: estimatedTokens },
        ];
        return { ...state, messages: result.messages, estimatedTokens, changed: true, compactions };
      },
    );

    kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.FEATURES }, (sections, run) =>
      enabled(context.optionsOf(run)) ? [...sections, { id: "compaction-micro", text: NOTE }] : sections,
    );
  },
});

export default microcompactionPlugin;
export { microcompact, CLEARABLE_KINDS, clearableTools, CLEARED_MARKER, type Microcompaction } from "./clear";
export {
  budgetFor,
  resolveContextWindow,
  DEFAULT_CONTEXT_WINDOW,
  SUMMARY_RESERVE,
  REQUEST_HEADROOM,
} from "../_kits/compaction/index";
export type { Budget, ContextWindow, WindowSource } from "../_kits/compaction/index";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
export type { SystemMicrocompactMessage } from "./messages";
