/** The options the budget plugin reads: the caps. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

// zod's number already refuses NaN and ±Infinity; positive() refuses zero and negatives. The
// messages name the option, so a bad cap fails at its config line.
const usd = z.number({ error: "maxBudgetUsd must be a number of USD greater than 0, e.g. 0.5" }).positive({
  // A service passes what a user has left: "leave it unset" alone would lift the cap of one who has nothing left.
  error:
    "maxBudgetUsd must be greater than 0 (USD), e.g. 0.5; with nothing left to spend, do not start the run (unset, there is no cap at all)",
});
const tokens = z
  .number({ error: "maxBudgetTokens must be a whole number of tokens greater than 0, e.g. 200000" })
  .int({ error: "maxBudgetTokens must be a whole number of tokens, e.g. 200000" })
  .positive({
    error:
      "maxBudgetTokens must be greater than 0, e.g. 200000; with nothing left to spend, do not start the run (unset, there is no cap at all)",
  });

/** The budget plugin's slice of the config schema. */
export const budgetOptions = lazyOptions(["maxBudgetUsd", "maxBudgetTokens"], () => ({
  maxBudgetUsd: usd
    .optional()
    .describe(
      "Spending cap in USD for the run, its subagents and compaction summaries, checked before each model request (needs a known price for every model used)",
    ),
  maxBudgetTokens: tokens
    .optional()
    .describe(
      "Cap in tokens (input, cached input included, plus output) for the run, its subagents and compaction summaries, checked before each model request",
    ),
}));
export type BudgetOptions = z.input<typeof budgetOptions>;
export type BudgetResolvedOptions = ResolvedOptions & Readonly<BudgetOptions>;
