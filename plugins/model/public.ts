/**
 * `ubiquity/plugins/model`: the package's surface of this plugin (factory, helpers, types).
 * `index.ts` stays the plugin's boundary inside the repository; api/ holds the reviewed report.
 */
export { default } from "./index";
export { createModel, getModelApi, openaiCompatible, registerAlias, supportsImages } from "./index";
export type {
  CreateModelOptions,
  ModelApi,
  ModelOptions,
  OpenAICompatibleModel,
  OpenAICompatibleSettings,
  ProviderName,
} from "./index";
