/**
 * The authoring kit: the helpers that make what the kernel takes — plugins (and the fields of
 * their options), presets, tools. The kernel reads plugins, presets and `Tool`s however they
 * were made and calls none of these; the built-in plugins and presets use them, and the package
 * entry exports them for everyone else. Not a plugin: the only file other folders import.
 */
export {
  definePlugin,
  type PluginSpec,
  type SpecContext,
  type FactoryOptionsOf,
  type DefinedPlugin,
} from "./define-plugin";
export { definePreset } from "./define-preset";
export { defineTool, type TextBlocksResult, type ToolSpec } from "./define-tool";
export { functionSchema } from "./option-fields";
export { lazyOptions } from "./lazy-options";
export { readOption } from "./read-option";
