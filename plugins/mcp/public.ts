/**
 * `ubiquity/plugins/mcp`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default } from "./index";
export { getMcpApi, parseMcpConfig } from "./index";
export type {
  McpApi,
  McpElicitation,
  McpElicitationResult,
  McpElicitationValue,
  McpListChangedEvent,
  McpLogEvent,
  McpOAuthConfig,
  McpOptions,
  McpPluginOptions,
  McpProgressEvent,
  McpResourceContents,
  McpResourceInfo,
  McpResourceTemplateInfo,
  McpServerConfig,
  McpServerReport,
  McpServerStatus,
  McpToolReport,
  McpTransportKind,
  OnElicitation,
  ParseMcpConfigOptions,
} from "./index";
