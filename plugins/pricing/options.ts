/** The options the pricing plugin reads. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

/** Prices in USD per million tokens. */
export const ModelPricingSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
  contextWindow: z.number().int().positive().optional(),
  /** The model's own output limit in tokens (the budget's worst case when `maxTokens` is unset). */
  maxOutputTokens: z.number().int().positive().optional(),
});
export type ModelPricing = z.input<typeof ModelPricingSchema>;

/** The pricing plugin's slice of the config schema. */
export const pricingOptions = lazyOptions(["modelPricing", "marketPricing"], () => ({
  modelPricing: z.record(z.string(), ModelPricingSchema).optional(),
  marketPricing: z.boolean().optional().describe("[true]"),
}));
export type PricingOptions = z.input<typeof pricingOptions>;
export type PricingResolvedOptions = ResolvedOptions & Readonly<PricingOptions>;
