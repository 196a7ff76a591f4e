/** The options the cache-breaks plugin reads. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

/** The cache-breaks plugin's slice of the config schema. */
export const cacheBreaksOptions = lazyOptions(["detectCacheBreaks"], () => ({
  detectCacheBreaks: z.boolean().optional(),
}));
export type CacheBreaksOptions = z.input<typeof cacheBreaksOptions>;
export type CacheBreaksResolvedOptions = ResolvedOptions & Readonly<CacheBreaksOptions>;
