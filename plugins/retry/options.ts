/** The options the retry plugin reads. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

/** The retry plugin's slice of the config schema. */
export const retryOptions = lazyOptions(["maxRetries", "retryMaxWaitMs"], () => ({
  maxRetries: z.number().int().nonnegative().optional().describe("HTTP retries [3]"),
  retryMaxWaitMs: z.number().nonnegative().optional().describe("[60000]"),
}));
export type RetryOptions = z.input<typeof retryOptions>;
export type RetryResolvedOptions = ResolvedOptions & Readonly<RetryOptions>;
