/** The options the microcompaction plugin reads. */
import { z } from "zod";
import { fieldsOf } from "../../src/index";
import { lazyOptions } from "../_kits/authoring/index";

import type { ResolvedOptions } from "../../src/index";
import { contextBudgetOptions } from "../_kits/compaction/index";

const keysOf = <S extends z.ZodRawShape>(slice: z.ZodObject<S>) => Object.keys(fieldsOf(slice)) as (keyof S & string)[];

/** The microcompaction plugin's slice of the config schema, with the context budget's keys (the summarizer declares them too). */
export const microcompactionOptions = lazyOptions(
  ["autoMicrocompact", "microcompactKeepRecent", ...keysOf(contextBudgetOptions)],
  () => ({
    autoMicrocompact: z.boolean().optional().describe("[true]"),
    microcompactKeepRecent: z.number().int().nonnegative().optional().describe("[5]"),
    ...contextBudgetOptions.shape,
  }),
);
export type MicrocompactionOptions = z.input<typeof microcompactionOptions>;
export type MicrocompactionResolvedOptions = ResolvedOptions & Readonly<MicrocompactionOptions>;
