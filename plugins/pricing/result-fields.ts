/** What the pricing plugin adds to `result`. */

declare module "../../src/messages" {
  interface ResultFields {
    /**
     * USD per model that answered, keyed as `modelUsage` is (fallback, compaction and subagent
     * models included); `null` for a model with no known price or whose responses reported no
     * token usage. The values add up to `totalCostUsd` (plus any non-token cost a plugin added).
     */
    modelCostUsd?: Record<string, number | null>;
  }
}

export {};
