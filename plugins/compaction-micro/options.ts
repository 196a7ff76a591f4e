/** The options the microcompaction plugin reads. */
import { z } from "zod";
import type { ResolvedOptions } from "../../src/index";
import { contextBudgetOptions } from "../_kits/compaction/index";

/** The microcompaction plugin's slice of the config schema, with the context budget's keys (the summarizer declares them too). */
export const microcompactionOptions = z.strictObject({
  autoMicrocompact: z.boolean().optional().describe("[true]"),
  microcompactKeepRecent: z.number().int().nonnegative().optional().describe("[5]"),
  ...contextBudgetOptions.shape,
});
export type MicrocompactionOptions = z.input<typeof microcompactionOptions>;
export type MicrocompactionResolvedOptions = ResolvedOptions & Readonly<MicrocompactionOptions>;
