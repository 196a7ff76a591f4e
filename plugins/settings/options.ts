/** The options the settings plugin reads (`settingSources`, `trust`). */
import { z } from "zod";
import { type ResolvedOptions } from "../../src/index";
import { SourcesSchema } from "../_kits/sources/index";

/** The settings plugin's slice of the config schema. */
export const settingsOptions = z.strictObject({
  settingSources: SourcesSchema.optional(),
  trust: z
    .boolean()
    .optional()
    .describe(
      "Whether the cwd's own files (project/local settings beyond their deny and ask rules, .mcp.json, agents, skills, memory) apply [true: code that asks for a project source has decided; the runner sets it from the trust store]",
    ),
});
export type SettingsOptions = z.input<typeof settingsOptions>;
export type SettingsResolvedOptions = ResolvedOptions & Readonly<SettingsOptions>;
