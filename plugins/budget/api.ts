/** What other plugins read of the budget plugin: its option slice (the settings plugin maps settings keys onto it) and the result's shape. */
export { budgetOptions, type BudgetOptions, type BudgetResolvedOptions } from "./options";
export type { BudgetReport } from "./result-fields";
