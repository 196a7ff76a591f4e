/**
 * `ubiquity/plugins/agents`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default } from "./index";
export { getAgentsApi } from "./index";
export type { AgentDefinition, AgentsApi, AgentsOptions } from "./index";
