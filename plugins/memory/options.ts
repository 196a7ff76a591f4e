/** The options the memory plugin reads. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";
import { SourcesSchema } from "../_kits/sources/index";
import { settingsOptions } from "../settings/api";

/** The memory plugin's slice of the config schema (`trust` is the settings plugin's, read here too). */
export const memoryOptions = lazyOptions(["memory", "memorySources", "trust", "compat"], () => ({
  memory: z.array(z.string()).optional(),
  memorySources: SourcesSchema.optional(),
  trust: settingsOptions.shape.trust,
  compat: settingsOptions.shape.compat,
}));
export type MemoryOptions = z.input<typeof memoryOptions>;
export type MemoryResolvedOptions = ResolvedOptions & Readonly<MemoryOptions>;
