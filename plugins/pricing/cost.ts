/**
 * Cost of one response from its token counts. Input counts are inclusive of cached tokens (the
 * AI SDK reports them that way), so cached tokens are netted out before the input rate applies —
 * otherwise every cached token is billed twice. Unset cache rates price cached tokens as input:
 * an estimate should err high, not low.
 */
import type { Usage } from "../../src/index";
import type { ModelPricing } from "./options";

/** USD for `usage` at `pricing` (USD per million tokens). */
export function costOf(
  usage: Pick<Usage, "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">,
  pricing: ModelPricing,
): number {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, (usage.inputTokens ?? 0) - cacheRead - cacheWrite);
  const micro =
    uncached * pricing.input +
    cacheRead * (pricing.cacheRead ?? pricing.input) +
    cacheWrite * (pricing.cacheWrite ?? pricing.input) +
    (usage.outputTokens ?? 0) * pricing.output;
  return micro / 1_000_000;
}
