/** The options the commands plugin reads. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";
import { ClaudePluginsOption, DisableShellLinesOption, SourcesSchema } from "../_kits/sources/index";
import { settingsOptions } from "../settings/api";

/** The commands plugin's slice of the config schema (`trust` and `compat` are the settings plugin's, read here too). */
export const commandsOptions = lazyOptions(
  ["commands", "commandSources", "claudePlugins", "trust", "compat", "disableSkillShellExecution", "fileMentions"],
  () => ({
    commands: z
      .array(z.string())
      .optional()
      .describe(
        "Folders of command files (`name.md`, subfolders namespaced `dir:name`), read whatever the sources [[]]",
      ),
    commandSources: SourcesSchema.optional().describe(
      "Where command files are read from: user (~/.ubiquity/commands), project (.ubiquity/commands), local (.ubiquity/commands.local) [[]]",
    ),
    claudePlugins: ClaudePluginsOption,
    trust: settingsOptions.shape.trust,
    compat: settingsOptions.shape.compat,
    disableSkillShellExecution: DisableShellLinesOption,
    fileMentions: z
      .boolean()
      .optional()
      .describe(
        "Read the files a typed prompt names with `@path` through the Read tool, ahead of the prompt, as Claude Code's prompt does (the runner's terminal mode turns it on) [false]",
      ),
  }),
);
export type CommandsOptions = z.input<typeof commandsOptions>;
export type CommandsResolvedOptions = ResolvedOptions & Readonly<CommandsOptions>;
