/**
 * `ubiquity/plugins/permissions`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default } from "./index";
export { PERMISSION_MODES, decidePermission, explainPermission, getPermissionsApi } from "./index";
export type {
  CanUseTool,
  CanUseToolContext,
  CanUseToolResult,
  DecidePermissionInput,
  PermissionDecision,
  PermissionMode,
  PermissionResult,
  PermissionUpdateRules,
  PermissionsApi,
  PermissionsOptions,
  PermissionsPluginOptions,
} from "./index";
