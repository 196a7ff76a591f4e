/**
 * The compaction kit: the context budget both compaction tiers (compaction-micro,
 * compaction-summarize) work against. Not a plugin: the only file other folders import.
 */
export {
  budgetFor,
  resolveContextWindow,
  DEFAULT_CONTEXT_WINDOW,
  SUMMARY_RESERVE,
  REQUEST_HEADROOM,
  type Budget,
  type BudgetOptions,
  type ContextWindow,
  type WindowSource,
  contextBudgetOptions,
} from "./context-budget";
export { pressureOf, estimateTokens, IMAGE_TOKENS } from "./token-estimate";
export { contextOverflow, learnWindow, learnedWindow, type ContextOverflow } from "./overflow";
