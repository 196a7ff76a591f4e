/**
 * `ubiquity/plugins/tool-search`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default, DEFAULT_DEFERRED_TOOLS, TOOL_SEARCH } from "./index";
export type { ToolSearchOptions } from "./index";
