/** The `run` flags of the caps this plugin owns. */
import { UsageError } from "../../loader/index";
import type { RunFlag } from "../../loader/index";

function positive(flag: string, value: string, integer: boolean, example: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(
      `--${flag} must be a ${integer ? "whole number" : "number"} greater than 0, e.g. ${example}, not ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** `--max-budget-usd` and `--max-budget-tokens`. */
export const budgetFlags: Record<string, RunFlag> = {
  "max-budget-usd": {
    type: "string",
    value: "<usd>",
    group: "Model",
    claude: "--max-budget-usd",
    description:
      "Stop before a model request that could take the run's spend (subagents and summaries included) past this many USD",
    apply: (o, v) => void (o.maxBudgetUsd = positive("max-budget-usd", String(v), false, "0.5")),
  },
  "max-budget-tokens": {
    type: "string",
    value: "<n>",
    group: "Model",
    description: "Stop before a model request that could take the run's tokens (input + output) past n",
    apply: (o, v) => void (o.maxBudgetTokens = positive("max-budget-tokens", String(v), true, "200000")),
  },
};
