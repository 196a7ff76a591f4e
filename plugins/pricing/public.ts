/**
 * `ubiquity/plugins/pricing`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default } from "./index";
export { getPricingApi, registerContextWindow, registerPricing } from "./index";
export type { ModelPricing, PricingApi, PricingOptions } from "./index";
