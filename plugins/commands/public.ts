/**
 * `ubiquity/plugins/commands`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default } from "./index";
export { getCommandsApi } from "./index";
export type { CommandInfo, CommandsApi, CommandsOptions, ShellOutcome } from "./index";
