/**
 * `ubiquity:pricing`: the cost of every run, known or honestly unknown. Each response is priced
 * against the model that served it (fallback, compaction and subagent models included) and
 * added to `run.totalCostUsd` — and to every ancestor run's, so delegated work is never spent
 * invisibly — and per model to `result.modelCostUsd`. One unpriced response makes the total
 * `null`, never 0: unknown and free are different claims, and a partial sum reads as a complete
 * one. A response that reported no token usage (a server that ignores `stream_options`) is
 * unpriced too: priced at its zero counts it would read as free.
 */
import type { RunContext } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { getPricingApi, usageReported } from "./api";
import { pricingOptions } from "./options";
import "./result-fields";

export const NAME = "ubiquity:pricing";

interface Tally {
  costUsd: number;
  unpriced: Set<string>;
  /** USD per model label; null once one of its responses was unpriced. */
  byModel: Record<string, number | null>;
}

/** Add one response's cost (or its being unpriced) to `run` and its ancestors (`tallyOf`: the plugin's run state). */
function charge(run: RunContext, label: string, costUsd: number | undefined, tallyOf: (run: RunContext) => Tally) {
  for (let r: RunContext | undefined = run; r; r = r.parent) {
    const tally = tallyOf(r);
    if (costUsd === undefined) tally.unpriced.add(label);
    else tally.costUsd += costUsd;
    r.totalCostUsd = tally.unpriced.size > 0 ? null : tally.costUsd;
    const before = tally.byModel[label];
    tally.byModel[label] = costUsd === undefined || before === null ? null : (before ?? 0) + costUsd;
    // A fresh object each time, so a result already emitted never changes.
    r.resultFields.modelCostUsd = { ...tally.byModel };
  }
}

/** The warning for a response of `label` that reported no token usage (once per model and run). */
function unreportedWarning(label: string): string {
  const compatible = /^(openai-compatible|ollama|vercel):/.test(label);
  return (
    `${label} answered without reporting its token usage: its cost is unknown (totalCostUsd and modelCostUsd are null) ` +
    "and usage counts none of its tokens" +
    (compatible
      ? "; an OpenAI-compatible server reports usage in a stream only when it honours stream_options.include_usage, which ubiquity sends: update the server or use one that does"
      : "")
  );
}

/** The pricing plugin. */
export const pricingPlugin = definePlugin({
  name: NAME,
  options: pricingOptions,
  runState: (): Tally => ({ costUsd: 0, unpriced: new Set(), byModel: {} }),
  apply(kernel, context) {
    const api = getPricingApi(kernel);
    const tallyOf = (run: RunContext): Tally => context.run(run);
    api.setCostSink((run, label, costUsd) => charge(run, label, costUsd, tallyOf));
    kernel.hooks.model.response.tapPromise(NAME, async (response, run) => {
      const label = response.modelLabel;
      const options = {
        modelPricing: context.optionsOf(run).modelPricing,
        marketPricing: context.optionsOf(run).marketPricing,
      };
      if (!usageReported(response.usage)) {
        if (!tallyOf(run).unpriced.has(label)) context.warn(unreportedWarning(label));
        charge(run, label, undefined, tallyOf);
        return;
      }
      const quote = await api.price(label, response.usage, options);
      if (!quote && !tallyOf(run).unpriced.has(label)) {
        const why =
          options.marketPricing === false ? "marketPricing is false" : "no market price for this provider and model";
        run.logger.debug(
          `[${NAME}] no price for ${label} (no modelPricing entry matches; ${why}); totalCostUsd is null`,
        );
      }
      charge(run, label, quote?.costUsd, tallyOf);
    });
    kernel.hooks.session.end.tapPromise(NAME, async (run) => {
      const unpriced = tallyOf(run).unpriced;
      if (unpriced.size > 0)
        run.logger.debug(`[${NAME}] totalCostUsd is null: unpriced models: ${[...unpriced].join(", ")}`);
    });
  },
});

export default pricingPlugin;
export { getPricingApi, tableEntry, type PricingApi, type Quote, type PriceSource, type PricingOptions } from "./api";
export { registerPricing, registerContextWindow, matchPattern, clearRegisteredPricing } from "./table";
export { costOf } from "./cost";
export { marketRef, marketQuote, MARKET_PROVIDERS } from "./market";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
