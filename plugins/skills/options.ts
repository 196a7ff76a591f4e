/** The options the skills plugin reads. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";
import { ClaudePluginsOption, DisableShellLinesOption, SourcesSchema } from "../_kits/sources/index";
import { settingsOptions } from "../settings/api";

/** The skills plugin's slice of the config schema (`trust` is the settings plugin's, read here too). */
export const skillsOptions = lazyOptions(
  ["skills", "skillSources", "trust", "compat", "claudePlugins", "disableSkillShellExecution"],
  () => ({
    skills: z.array(z.string()).optional(),
    skillSources: SourcesSchema.optional(),
    trust: settingsOptions.shape.trust,
    compat: settingsOptions.shape.compat,
    claudePlugins: ClaudePluginsOption,
    disableSkillShellExecution: DisableShellLinesOption,
  }),
);
export type SkillsOptions = z.input<typeof skillsOptions>;
export type SkillsResolvedOptions = ResolvedOptions & Readonly<SkillsOptions>;
