/** The options the summarizing compaction plugin reads (the context budget's keys included). */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import { ModelSchema, type ResolvedOptions } from "../../src/index";
import { contextBudgetOptions } from "../_kits/compaction/index";

/** The summarizing compaction plugin's slice of the config schema. */
export const summarizeCompactionOptions = lazyOptions(
  ["autoCompact", "maxContextTokens", "compactKeepRecent", "compactModel", "compactInstructions", "compactThreshold"],
  () => ({
    autoCompact: z.boolean().optional().describe("[true]"),
    maxContextTokens: contextBudgetOptions.shape.maxContextTokens,
    compactKeepRecent: z.number().int().nonnegative().optional().describe("[6]"),
    compactModel: ModelSchema.optional(),
    compactInstructions: z.string().optional(),
    compactThreshold: contextBudgetOptions.shape.compactThreshold,
  }),
);
export type SummarizeCompactionOptions = z.input<typeof summarizeCompactionOptions>;
export type SummarizeCompactionResolvedOptions = ResolvedOptions & Readonly<SummarizeCompactionOptions>;
