/** What the budget plugin adds to `result` (and the subtypes it ends runs with). */

/** The budget of a run under a cap: the caps, what the whole run (subagents and summaries included) has spent, and the refused request. */
export interface BudgetReport {
  /** The USD cap, when set. */
  maxBudgetUsd?: number;
  /** The token cap, when set. */
  maxBudgetTokens?: number;
  /** USD spent by the root run and everything under it, from the priced responses. */
  spentUsd: number;
  /** Tokens spent the same way: input (cached input included) plus output. */
  spentTokens: number;
  /** The request that was not sent because it could have crossed a cap. */
  refused?: { modelLabel: string; estimateUsd?: number; estimateTokens: number };
}

declare module "../../src/messages" {
  interface ResultSubtypes {
    /** A model request was refused: spent + its worst-case cost would pass `maxBudgetUsd`. */
    error_max_budget_usd: true;
    /** A model request was refused: spent + its worst-case tokens would pass `maxBudgetTokens`. */
    error_max_budget_tokens: true;
  }
  interface ResultFields {
    /** Present when `maxBudgetUsd` or `maxBudgetTokens` is set. */
    budget?: BudgetReport;
  }
}
