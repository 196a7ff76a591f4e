/** The options the caching plugin reads. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

/** The caching plugin's slice of the config schema. */
export const cachingOptions = lazyOptions(["cachePrompt"], () => ({
  cachePrompt: z
    .union([z.boolean(), z.enum(["5m", "1h"])])
    .optional()
    .describe("[true]"),
}));
export type CachingOptions = z.input<typeof cachingOptions>;
export type CachingResolvedOptions = ResolvedOptions & Readonly<CachingOptions>;
