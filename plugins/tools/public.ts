/**
 * `ubiquity/plugins/tools`: the package's surface of this plugin (helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { builtinTools } from "./index";
