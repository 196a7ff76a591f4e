/**
 * `ubiquity/plugins/hooks`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default } from "./index";
export { HOOK_EVENTS, getHooksApi } from "./index";
export type {
  HookCallback,
  HookEventName,
  HookInput,
  HookMatcher,
  HookOutput,
  HookSpecificOutput,
  HooksApi,
  HooksConfig,
  HooksOptions,
} from "./index";
