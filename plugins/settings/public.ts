/**
 * `ubiquity/plugins/settings`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default } from "./index";
export { getSettingsApi } from "./index";
export type {
  SettingSource,
  SettingsApi,
  SettingsFile,
  SettingsOptions,
  SettingsPluginOptions,
  SkillSwitch,
} from "./index";
