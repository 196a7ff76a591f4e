/**
 * `ubiquity/plugins/tool-lsp`: the package's surface of this plugin (factory, the tool, the
 * server configuration's schema and types). `index.ts` stays the plugin's boundary inside the
 * repository; api/ holds the reviewed report.
 */
export { default, PLUGIN_NAME, type LspOptions } from "./index";
export { LspTool, LspInput, LSP_OPERATIONS, type LspOperation, type LspAccess } from "./lsp-tool";
export { lspServerSchema, lspServersSchema, type LspServerConfig, type NamedServer } from "./config";
