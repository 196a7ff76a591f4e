/** The words of a refusal: every one names the option to change. */
import type { Estimate } from "./estimate";

/** USD for a message: up to six decimals, trailing zeros dropped ($0.05, $0.000315). */
export function usd(n: number): string {
  return `$${Number(n.toFixed(6))}`;
}

const size = (e: Estimate) =>
  `~${e.inputTokens} input${e.cachedTokens > 0 ? ` (${e.cachedTokens} cached)` : ""} + ${e.outputTokens} output tokens`;
const inFlight = (n: number, unit: (n: number) => string) =>
  n > 0 ? `, ${unit(n)} more is reserved by requests in flight,` : "";

/** A request refused under `maxBudgetUsd`. */
export function usdRefusal(label: string, estimate: Estimate, spent: number, reserved: number, cap: number): string {
  return (
    `Budget reached: the next request to ${label} could cost up to ${usd(estimate.costUsd ?? 0)} (${size(estimate)}) and ${usd(spent)} of the ` +
    `${usd(cap)} budget is spent${inFlight(reserved, usd)} so it was not sent. Raise maxBudgetUsd (now ${usd(cap)}; --max-budget-usd in the runner), ` +
    `or set maxTokens to bound the output a request may be charged for`
  );
}

/** A request refused under `maxBudgetTokens`. */
export function tokensRefusal(label: string, estimate: Estimate, spent: number, reserved: number, cap: number): string {
  const tokens = (n: number) => `${n} tokens`;
  return (
    `Token budget reached: the next request to ${label} could use up to ${estimate.tokens} tokens (${size(estimate)}) and ${spent} of the ` +
    `${cap}-token budget is spent${inFlight(reserved, tokens)} so it was not sent. Raise maxBudgetTokens (now ${cap}; --max-budget-tokens in the runner), ` +
    `or set maxTokens to bound a request's output`
  );
}

/** A model with no known price under `maxBudgetUsd`. */
export function unpricedRefusal(label: string, cap: number, role: string): string {
  const model = label.includes(":") ? label.slice(label.indexOf(":") + 1) : label;
  return (
    `maxBudgetUsd is set (${usd(cap)}) but ${role} ${label} has no known price, so the budget cannot be checked and no request was sent ` +
    `(a cap that cannot be checked is no cap). Name the model in modelPricing with its USD per million tokens, e.g. ` +
    `modelPricing: { ${JSON.stringify(model)}: { input: 3, output: 15 } } (for the runner, in ubiquity.config.ts), ` +
    `or cap tokens instead with maxBudgetTokens (it needs no price; --max-budget-tokens in the runner)`
  );
}
