/**
 * The budget both compaction tiers work against. The trigger is a token reserve, not a
 * percentage: a flat 80% wastes 200k tokens of a million-token window and leaves a small local
 * model no room to write its summary. The threshold is the window minus room for the summary
 * being written (capped by `maxTokens`, since reserving 20k from a model that can only emit 4k
 * gives back nothing) minus headroom for the next request.
 */
import { z } from "zod";
import type { ResolvedOptions, RunContext } from "../../../src/index";
import { getPricingApi, pricingOptions } from "../../pricing/api";
import { lazyOptions } from "../authoring/index";

/** The options the context budget reads: declared by both compaction plugins (the summarizer's first). */
export const contextBudgetOptions = lazyOptions(["maxContextTokens", "compactThreshold"], () => ({
  maxContextTokens: z.number().int().positive().optional(),
  compactThreshold: z.number().gt(0).lt(1).optional(),
}));
// What the window reads, through the slices' schemas: the kit runs for plugins (skills, agents,
// MCP tool search) whose own context does not type these options.
const windowOptions = contextBudgetOptions.extend({
  get modelPricing() {
    return pricingOptions.shape.modelPricing;
  },
  get marketPricing() {
    return pricingOptions.shape.marketPricing;
  },
});

/**
 * The window assumed when nothing declares one. Conservative on purpose: a window that is
 * overstated causes exactly the overflow compaction exists to prevent. Hosted models usually
 * get theirs from the price snapshot; declare the others with `registerContextWindow()`.
 */
export const DEFAULT_CONTEXT_WINDOW = 32_768;
/** Room kept for the summary a full compaction writes (and its `maxOutputTokens`). */
export const SUMMARY_RESERVE = 20_000;
/** Room kept for what the next request adds (a response and its tool results). */
export const REQUEST_HEADROOM = 13_000;

/** Where a run's context window came from. */
export type WindowSource = "maxContextTokens" | "pricing" | "UBIQUITY_MAX_CONTEXT_TOKENS" | "default";

/** A run's context window in tokens and its source. */
export interface ContextWindow {
  tokens: number;
  source: WindowSource;
}

/**
 * The context window of `label`: `maxContextTokens`, else the pricing entry's `contextWindow`
 * (a run's `modelPricing`, then `registerPricing()`), else `registerContextWindow()`, else the
 * market snapshot's (unless `marketPricing: false`), else `UBIQUITY_MAX_CONTEXT_TOKENS`, else
 * the default.
 */
export async function resolveContextWindow(
  run: RunContext,
  label: string | null,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ContextWindow> {
  const { maxContextTokens, compactThreshold, modelPricing, marketPricing } = run.options;
  const read = windowOptions.safeParse({ maxContextTokens, compactThreshold, modelPricing, marketPricing });
  const opts: z.output<typeof windowOptions> = read.success ? read.data : {};
  if (opts.maxContextTokens) return { tokens: opts.maxContextTokens, source: "maxContextTokens" };
  if (label) {
    const options = { modelPricing: opts.modelPricing, marketPricing: opts.marketPricing };
    const tokens = await getPricingApi(run.kernel).contextWindow(label, options);
    if (tokens && tokens > 0) return { tokens, source: "pricing" };
  }
  const fromEnv = env.UBIQUITY_MAX_CONTEXT_TOKENS?.trim();
  if (fromEnv) {
    const tokens = Number(fromEnv);
    if (Number.isInteger(tokens) && tokens > 0) return { tokens, source: "UBIQUITY_MAX_CONTEXT_TOKENS" };
    run.logger.warn(
      `UBIQUITY_MAX_CONTEXT_TOKENS="${fromEnv}" is not a positive integer; using ${DEFAULT_CONTEXT_WINDOW}. Set it to a token count, e.g. 200000`,
    );
  }
  return { tokens: DEFAULT_CONTEXT_WINDOW, source: "default" };
}

/** The options the threshold reads. */
export type BudgetOptions = Pick<ResolvedOptions, "maxTokens"> &
  Readonly<Pick<z.input<typeof contextBudgetOptions>, "compactThreshold">>;

/** How a window is split: when compaction triggers, and how long a summary may be. */
export interface Budget {
  window: number;
  /** Compact when the next request would carry more than this. */
  threshold: number;
  /** Tokens reserved for the summary (the summarizer's `maxOutputTokens`). */
  summaryReserve: number;
  headroom: number;
}

/**
 * Split `window` for `options`: threshold = window − summary reserve − headroom. Both are capped
 * at a share of the window so a small model keeps most of it. `compactThreshold` (a fraction)
 * replaces the arithmetic for users who insist on a percentage.
 */
export function budgetFor(window: number, options: BudgetOptions): Budget {
  const summaryReserve = Math.max(
    1,
    Math.min(SUMMARY_RESERVE, options.maxTokens ?? Infinity, Math.floor(window * 0.2)),
  );
  const headroom = Math.min(REQUEST_HEADROOM, Math.floor(window * 0.1));
  const threshold = options.compactThreshold
    ? Math.floor(window * options.compactThreshold)
    : window - summaryReserve - headroom;
  return { window, threshold, summaryReserve, headroom };
}
