/**
 * `ubiquity:compaction-summarize`: the second tier of `context.compact`. Runs only when the run
 * is still over the threshold after microcompaction: the older history is replaced by a summary
 * written by `compactModel` (or the run's model), keeping the newest `compactKeepRecent` [6]
 * messages, cut before a model response. `PreCompact` may veto, `PostCompact` gets the summary,
 * unfinished todos are re-stated, and a `system/compact_boundary` message marks the cut. A failed
 * compaction leaves the history untouched and the run goes on; after three consecutive failures
 * the run stops trying (a context irrecoverably over the limit would otherwise pay for a doomed
 * summary on every remaining turn). `autoCompact: false` turns it off.
 */
import type { LanguageModel, ModelMessage } from "ai";
import {
  COMPACT_STAGE,
  describeError,
  ERROR_STAGE,
  resolveModel,
  SYSTEM_STAGE,
  type CompactState,
  type RunContext,
} from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import {
  budgetFor,
  estimateTokens,
  learnedWindow,
  pressureOf,
  resolveContextWindow,
  type ContextWindow,
} from "../_kits/compaction/index";
import { getHooksApi } from "../hooks/index";
import { getTodosApi } from "../todos/index";
import { findCut } from "./cut";
import { compactOnOverflow } from "./overflow";
import { summaryMessage } from "./prompt";
import { writeSummary } from "./summarize";
import { summarizeCompactionOptions } from "./options";
import type { SummarizeCompactionOptions } from "./options";

export const NAME = "ubiquity:compaction-summarize";

/** Default of `compactKeepRecent`. */
export const DEFAULT_KEEP_RECENT = 6;
/** Consecutive failures after which a run stops trying to compact. */
export const MAX_FAILURES = 3;

const NOTE =
  "# Long conversations\nNear the context limit, older messages are replaced by a summary: keep key facts (paths, decisions, what remains) in your messages or the todo list.";

type Model = Exclude<LanguageModel, string>;

interface RunState {
  window?: Promise<ContextWindow>;
  model?: Promise<Model>;
  failures: number;
}

const enabled = (options: SummarizeCompactionOptions) => options.autoCompact !== false;

/** The full-compaction plugin. */
export const summarizeCompactionPlugin = definePlugin({
  name: NAME,
  options: summarizeCompactionOptions,
  runState: (): RunState => ({ failures: 0 }),
  apply(kernel, context) {
    const stateOf = (run: RunContext): RunState => context.run(run);
    const summarizer = (run: RunContext, s: RunState) => {
      if (!s.model) {
        s.model = resolveModel(run, context.optionsOf(run).compactModel ?? run.model!, "compact");
        s.model.catch(() => (s.model = undefined)); // a failed build is retried on the next attempt
      }
      return s.model;
    };

    kernel.hooks.context.compact.tapPromise(
      { name: NAME, stage: COMPACT_STAGE.SUMMARIZE },
      async (state: CompactState, run) => {
        if (!enabled(context.optionsOf(run))) return state;
        const s = stateOf(run);
        if (s.failures >= MAX_FAILURES) return state;
        // A window the server reported (a refused request) wins over the declared or assumed one.
        const window = (await (s.window ??= resolveContextWindow(run, run.modelLabel))).tokens;
        const budget = budgetFor(Math.min(window, learnedWindow(run) ?? Infinity), context.optionsOf(run));
        const tokensBefore = pressureOf(state);
        if (tokensBefore <= budget.threshold) return state;
        const cut = findCut(state.messages, context.optionsOf(run).compactKeepRecent ?? DEFAULT_KEEP_RECENT);
        if (cut === undefined) return state;

        const hooks = getHooksApi(kernel);
        if (hooks?.has("PreCompact")) {
          const customInstructions = context.optionsOf(run).compactInstructions ?? "";
          const outcome = await hooks.fire("PreCompact", run, {
            extra: { trigger: "auto", customInstructions, tokensBefore, threshold: budget.threshold },
          });
          if (outcome.blocked) {
            run.logger.debug(`[${NAME}] a PreCompact hook vetoed compaction: ${outcome.blocked}`);
            return state;
          }
        }

        const head = state.messages.slice(0, cut);
        let summary: string;
        try {
          summary = await writeSummary(run, await summarizer(run, s), head, budget.summaryReserve);
        } catch (error) {
          if (run.abortSignal.aborted) return state; // the loop ends the run as aborted
          s.failures++;
          const stop =
            s.failures >= MAX_FAILURES
              ? `; ${MAX_FAILURES} consecutive failures, so this run stops compacting`
              : "; the history is left as it was";
          const message = `compaction failed: ${describeError(error)}${stop}`;
          run.logger.warn(`[${NAME}] ${message}`);
          kernel.emit({ type: "warning", source: NAME, message });
          return state;
        }

        let todos: string | undefined;
        try {
          todos = await getTodosApi(kernel)?.describeUnfinished(run);
        } catch (error) {
          run.logger.warn(`[${NAME}] could not read the todo list to re-state it: ${describeError(error)}`);
        }
        const replacement = summaryMessage(summary, todos);
        if (estimateTokens(replacement) >= estimateTokens(head)) {
          // Applying it would grow the context it was written to shrink: keep the history, count a failure.
          s.failures++;
          const message = `compaction skipped: the summary (~${estimateTokens(replacement)} tokens) is not smaller than the ${cut} messages it would replace (~${estimateTokens(head)} tokens); the history is left as it was`;
          run.logger.warn(`[${NAME}] ${message}`);
          kernel.emit({ type: "warning", source: NAME, message });
          return state;
        }
        s.failures = 0;
        // Claude Code fires SessionStart with source "compact" after a compaction: what its hooks
        // add (the context they put ahead of a session) goes with the summary that now opens it.
        let opening = replacement;
        if (!run.agent && hooks?.has("SessionStart")) {
          const started = await hooks.fire("SessionStart", run, { extra: { source: "compact" } });
          if (started.context.length) opening = summaryMessage(`${summary}\n\n${started.context.join("\n\n")}`, todos);
        }
        const messages: ModelMessage[] = [opening, ...state.messages.slice(cut)];
        const tokensAfter = Math.max(0, tokensBefore - estimateTokens(head) + estimateTokens(replacement));
        run.emit({ type: "system", subtype: "compact_boundary", tokensBefore, tokensAfter, trigger: "auto" });
        if (hooks?.has("PostCompact"))
          await hooks.fire("PostCompact", run, {
            message: summary,
            extra: { trigger: "auto", tokensBefore, tokensAfter },
          });
        const compactions = [...(state.compactions ?? []), { tier: "summarize", tokensBefore, tokensAfter, summary }];
        return { ...state, messages, estimatedTokens: tokensAfter, changed: true, compactions };
      },
    );

    // A turn refused as longer than the window: learn the window, compact, send it again (overflow.ts).
    kernel.hooks.model.error.tapPromise({ name: NAME, stage: ERROR_STAGE.RETRY }, async (info, run) =>
      enabled(context.optionsOf(run)) ? compactOnOverflow(kernel, info, run) : undefined,
    );

    kernel.hooks.turn.system.tap({ name: NAME, stage: SYSTEM_STAGE.FEATURES }, (sections, run) =>
      enabled(context.optionsOf(run)) ? [...sections, { id: "compaction-summarize", text: NOTE }] : sections,
    );
  },
});

export default summarizeCompactionPlugin;
export { findCut } from "./cut";
export { renderTranscript, shorten } from "./transcript";
export { SUMMARIZER_INSTRUCTIONS, summarizerInstructions, summaryMessage } from "./prompt";
export { writeSummary, EmptySummaryError } from "./summarize";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
export type { SystemCompactBoundaryMessage } from "./messages";
