/**
 * The pricing plugin's API for other plugins: what a model costs, how large its context window
 * is (compaction reads the window) and its output limit where a table declares one (the budget
 * reads it). Lookups follow the run's rules: the run's
 * `modelPricing` entry wins whole, then `registerPricing()`, then the market snapshot unless
 * `marketPricing: false`.
 */
import type { Kernel, RunContext, Usage } from "../../src/index";
import type { ModelPricing, PricingOptions } from "./options";
import { costOf } from "./cost";
import { marketQuote } from "./market";
import { matchPattern, registeredContextWindows, registeredPricing } from "./table";

/** Where a price came from. */
export type PriceSource = "modelPricing" | "registerPricing" | "market";

/** A priced response. */
export interface Quote {
  costUsd: number;
  source: PriceSource;
  /** The matching pattern (table sources). */
  pattern?: string;
}

/** The pricing plugin's API. */
export interface PricingApi {
  /** Price one response of model `label` (`provider:model`); undefined = unknown, never 0 for unknown. */
  price(
    label: string,
    usage: Pick<Usage, "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">,
    options: PricingOptions,
  ): Promise<Quote | undefined>;
  /** The context window of `label` in tokens, from the price tables, `registerContextWindow()` or the market. */
  contextWindow(label: string, options: PricingOptions): Promise<number | undefined>;
  /** The output limit of `label` in tokens, when a price table entry declares one (`maxOutputTokens`). */
  outputLimit(label: string, options: PricingOptions): number | undefined;
  /**
   * Add a cost that is not tokens (a provider's per-search fee) to `run`'s `totalCostUsd` and its
   * ancestors'. Does nothing when the pricing plugin is not in the list.
   */
  addCost(run: RunContext, label: string, costUsd: number): void;
  /** The pricing plugin's side of `addCost`. */
  setCostSink(sink: (run: RunContext, label: string, costUsd: number) => void): void;
}

/** The table entry for `label`: the run's first (it wins whole), then the registry. */
export function tableEntry(
  label: string,
  options: PricingOptions,
): { pricing: ModelPricing; pattern: string; source: PriceSource } | undefined {
  const run = matchPattern(label, options.modelPricing);
  if (run) return { pricing: run.value, pattern: run.pattern, source: "modelPricing" };
  const registered = matchPattern(label, registeredPricing());
  if (registered) return { pricing: registered.value, pattern: registered.pattern, source: "registerPricing" };
  return undefined;
}

/**
 * Whether a response reported its token usage. No request goes out without input, so zero input
 * tokens means the provider sent no count (a server ignoring `stream_options.include_usage`, a
 * stream cut before its usage chunk); the kernel reads a missing count as 0.
 */
export function usageReported(usage: Pick<Usage, "inputTokens">): boolean {
  return usage.inputTokens > 0;
}

const EMPTY_USAGE = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

function createPricingApi(): PricingApi {
  let sink: ((run: RunContext, label: string, costUsd: number) => void) | undefined;
  return {
    addCost(run, label, costUsd) {
      if (Number.isFinite(costUsd) && costUsd > 0) sink?.(run, label, costUsd);
    },
    setCostSink(next) {
      sink = next;
    },
    async price(label, usage, options) {
      const entry = tableEntry(label, options);
      if (entry) return { costUsd: costOf(usage, entry.pricing), source: entry.source, pattern: entry.pattern };
      if (options.marketPricing === false) return undefined;
      const quote = await marketQuote(label, usage);
      return quote ? { costUsd: quote.costUsd, source: "market" } : undefined;
    },
    async contextWindow(label, options) {
      const entry = tableEntry(label, options);
      if (entry?.pricing.contextWindow) return entry.pricing.contextWindow;
      const declared = matchPattern(label, registeredContextWindows());
      if (declared) return declared.value;
      if (options.marketPricing === false) return undefined;
      return (await marketQuote(label, EMPTY_USAGE))?.contextWindow;
    },
    outputLimit(label, options) {
      return tableEntry(label, options)?.pricing.maxOutputTokens;
    },
  };
}

const apis = new WeakMap<Kernel, PricingApi>();

/** The pricing API of `kernel` (created on first use). */
export function getPricingApi(kernel: Kernel): PricingApi {
  let api = apis.get(kernel);
  if (!api) apis.set(kernel, (api = createPricingApi()));
  return api;
}

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
