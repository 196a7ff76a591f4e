/**
 * `ubiquity:budget`: spending caps checked before money is spent. Before each model request
 * (`model.request` at the GUARD stage, so it sees the request as it will be sent) the plugin
 * estimates the request's worst case (estimate.ts) and refuses to send it when what the run has
 * spent plus that estimate (plus what parallel requests may still spend) would pass
 * `maxBudgetUsd` or `maxBudgetTokens`: the run ends with `error_max_budget_usd` or
 * `error_max_budget_tokens` and `result.budget` carries the figures. Spend is counted from the
 * priced responses (`model.response`), in one ledger per root run: subagents and compaction
 * summaries count against the same budget, and once a request anywhere in the tree is refused,
 * every later one is too, so a parent never carries on spending after its subagent hit the cap.
 * A model with no known price under `maxBudgetUsd` is refused before its first request.
 */
import { REQUEST_STAGE, RunEnd, type ModelRequest, type RunContext } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { getPricingApi, pricingOptions, usageReported } from "../pricing/api";
import { budgetOptions } from "./options";
import { budgetFlags } from "./cli";
import { estimateRequest, sentRecord, type Estimate } from "./estimate";
import { release, reservedBy, rootOf, runBudget, type RunBudget } from "./ledger";
import { tokensRefusal, unpricedRefusal, usdRefusal } from "./messages";
import "./result-fields";
import type { BudgetReport } from "./result-fields";

export const NAME = "ubiquity:budget";

const NO_USAGE = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** What the request guard reads: the caps, the ledger, the prices; `refuse` ends the run (and the tree's later requests). */
interface Guard {
  api: ReturnType<typeof getPricingApi>;
  capsOf(run: RunContext): { usd?: number; tokens?: number };
  stateOf(run: RunContext): RunBudget;
  pricingOf(run: RunContext): Parameters<ReturnType<typeof getPricingApi>["price"]>[2];
  isKnown(label: string, run: RunContext): Promise<boolean>;
  refuse(
    run: RunContext,
    subtype: "error_max_budget_usd" | "error_max_budget_tokens",
    message: string,
    refused: BudgetReport["refused"],
  ): never;
}

/** The `model.request` guard: a request that would pass a cap (with what is in flight) is refused before it is sent. */
async function guardRequest(guard: Guard, request: ModelRequest, run: RunContext): Promise<ModelRequest> {
  const caps = guard.capsOf(run);
  if (caps.usd === undefined && caps.tokens === undefined) return request;
  const root = rootOf(run);
  const ledger = guard.stateOf(root);
  // After one refusal anywhere in the tree, nothing more is sent: the run ends on the same words.
  if (ledger.refusal) throw new RunEnd(ledger.refusal.message, ledger.refusal.subtype);
  if (caps.usd !== undefined && !(await guard.isKnown(request.modelLabel, run))) {
    const role =
      request.purpose === "compact"
        ? "the compaction model"
        : request.modelLabel === run.modelLabel
          ? "the model"
          : "the model this request would use";
    throw new RunEnd(unpricedRefusal(request.modelLabel, caps.usd, role));
  }
  const purpose = request.purpose ?? "turn";
  const estimate = await estimateRequest(
    request,
    guard.stateOf(run).sent.get(purpose),
    caps.usd !== undefined ? { api: guard.api, options: guard.pricingOf(run) } : undefined,
  );
  // A run's turn goes out once everything it started has ended: what it still holds is stale (an aborted request).
  if (purpose === "turn") ledger.inFlight.delete(run);
  const reserved = reservedBy(ledger);
  const refused = {
    modelLabel: request.modelLabel,
    ...(estimate.costUsd !== undefined && { estimateUsd: estimate.costUsd }),
    estimateTokens: estimate.tokens,
  };
  if (caps.usd !== undefined && ledger.spentUsd + reserved.usd + (estimate.costUsd ?? 0) > caps.usd) {
    guard.refuse(
      run,
      "error_max_budget_usd",
      usdRefusal(request.modelLabel, estimate, ledger.spentUsd, reserved.usd, caps.usd),
      refused,
    );
  }
  if (caps.tokens !== undefined && ledger.spentTokens + reserved.tokens + estimate.tokens > caps.tokens) {
    guard.refuse(
      run,
      "error_max_budget_tokens",
      tokensRefusal(request.modelLabel, estimate, ledger.spentTokens, reserved.tokens, caps.tokens),
      refused,
    );
  }
  ledger.inFlight.set(run, [...(ledger.inFlight.get(run) ?? []), { purpose, estimate }]);
  return request;
}

/** Charge a response that reported no usage its request's worst case (`estimate`), or refuse what follows when there is none. */
function chargeUnreported(
  ledger: RunBudget,
  estimate: Estimate | undefined,
  usd: boolean,
  warn: (message: string) => void,
  label: string,
): void {
  if (!estimate || (usd && estimate.costUsd === undefined)) {
    ledger.refusal ??= {
      subtype: usd ? "error_max_budget_usd" : "error_max_budget_tokens",
      message: `${label} answered without reporting its token usage, so what it spent cannot be counted against the cap: no further request is sent`,
    };
    return;
  }
  ledger.spentTokens += estimate.tokens;
  if (estimate.costUsd !== undefined) ledger.spentUsd += estimate.costUsd;
  if (ledger.unreportedWarned) return;
  ledger.unreportedWarned = true;
  warn(
    `${label} answered without reporting its token usage: the budget counts its request's worst case (${estimate.tokens} tokens${estimate.costUsd !== undefined ? `, $${estimate.costUsd.toFixed(4)}` : ""}) as spent, and so for each such response`,
  );
}

/** The budget plugin. */
export const budgetPlugin = definePlugin({
  name: NAME,
  // The prices a USD cap needs are the pricing plugin's options, read here too.
  options: budgetOptions.extend({
    get modelPricing() {
      return pricingOptions.shape.modelPricing;
    },
    get marketPricing() {
      return pricingOptions.shape.marketPricing;
    },
  }),
  flags: budgetFlags,
  runState: runBudget,
  apply(kernel, context) {
    const api = getPricingApi(kernel);
    const stateOf = (run: RunContext): RunBudget => context.run(run);
    // The caps are the root run's: a subagent's options never loosen them.
    const capsOf = (run: RunContext) => {
      const opts = context.optionsOf(rootOf(run));
      return { usd: opts.maxBudgetUsd, tokens: opts.maxBudgetTokens };
    };
    const pricingOf = (run: RunContext) => {
      const o = context.optionsOf(run);
      return { modelPricing: o.modelPricing, marketPricing: o.marketPricing };
    };
    const isKnown = async (label: string, run: RunContext) =>
      (await api.price(label, NO_USAGE, pricingOf(run))) !== undefined;

    // Every run in the tree shows the shared ledger; a fresh object each time, so a result already emitted never changes.
    const report = (run: RunContext) => {
      const caps = capsOf(run);
      const ledger = stateOf(rootOf(run));
      const fields: BudgetReport = {
        ...(caps.usd !== undefined && { maxBudgetUsd: caps.usd }),
        ...(caps.tokens !== undefined && { maxBudgetTokens: caps.tokens }),
        spentUsd: ledger.spentUsd,
        spentTokens: ledger.spentTokens,
        ...(ledger.refused && { refused: ledger.refused }),
      };
      for (let r: RunContext | undefined = run; r; r = r.parent) r.resultFields.budget = { ...fields };
    };

    const refuse = (
      run: RunContext,
      subtype: "error_max_budget_usd" | "error_max_budget_tokens",
      message: string,
      refused: BudgetReport["refused"],
    ): never => {
      const ledger = stateOf(rootOf(run));
      // The first refusal is the tree's: every later request is refused on its words.
      ledger.refusal ??= { subtype, message };
      ledger.refused ??= refused;
      report(run);
      throw new RunEnd(message, subtype);
    };

    const guard: Guard = { api, capsOf, stateOf, pricingOf, isKnown, refuse };

    // A model with no price cannot be checked: the run (or subagent) does not start.
    kernel.hooks.session.start.tapPromise(NAME, async (run) => {
      const caps = capsOf(run);
      if (caps.usd === undefined && caps.tokens === undefined) return;
      report(run);
      if (caps.usd !== undefined && run.modelLabel && !(await isKnown(run.modelLabel, run))) {
        throw new RunEnd(unpricedRefusal(run.modelLabel, caps.usd, run.parent ? "the subagent's model" : "the model"));
      }
    });

    kernel.hooks.model.request.tapPromise({ name: NAME, stage: REQUEST_STAGE.GUARD }, (request: ModelRequest, run) =>
      guardRequest(guard, request, run),
    );

    kernel.hooks.model.response.tapPromise(NAME, async (response, run) => {
      const caps = capsOf(run);
      if (caps.usd === undefined && caps.tokens === undefined) return;
      const ledger = stateOf(rootOf(run));
      const estimate = release(ledger, run, response.request.purpose ?? "turn");
      const { usage } = response;
      if (!usageReported(usage)) {
        // No count to charge: the request's worst case is, so a server that reports nothing
        // cannot spend past the cap (a cap that counted it as free would never be reached).
        chargeUnreported(ledger, estimate, caps.usd !== undefined, context.warn, response.modelLabel);
        report(run);
        return;
      }
      ledger.spentTokens += usage.inputTokens + usage.outputTokens;
      const quote = await api.price(response.modelLabel, usage, pricingOf(run));
      if (quote) ledger.spentUsd += quote.costUsd;
      else if (caps.usd !== undefined)
        context.warn(
          `${response.modelLabel} answered but has no known price: its cost is not in the budget; name it in modelPricing`,
        );
      const sent = sentRecord(response.request, usage);
      stateOf(run).sent.set(sent.purpose, sent);
      report(run);
    });

    // Reached only when no earlier tap recovered the call: it failed for good, its reservation goes.
    kernel.hooks.model.error.tap({ name: NAME, order: "last" }, (info, run) => {
      release(stateOf(rootOf(run)), run, info.request.purpose ?? "turn");
      return undefined;
    });
    kernel.hooks.session.end.tap(NAME, (run) => void stateOf(rootOf(run)).inFlight.delete(run));
  },
});

export default budgetPlugin;
export {
  estimateRequest,
  inputTokensOf,
  ASSUMED_OUTPUT_TOKENS,
  CACHE_TRUST_MS,
  type Estimate,
  type SentRecord,
} from "./estimate";
export type { BudgetReport } from "./result-fields";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
