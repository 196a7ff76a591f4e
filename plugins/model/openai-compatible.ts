/**
 * `openaiCompatible(model, { baseURL })`: anything that speaks the OpenAI chat API (Ollama, vLLM,
 * LM Studio, a proxy) as a constructed model. It returns synchronously, so it fits in
 * `options.model`, and loads @ai-sdk/openai-compatible on the first call, so importing
 * `ubiquity` loads no provider package.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { loadProviderModule } from "./load-provider";

/** Where an OpenAI-compatible server is and how to authenticate. */
export interface OpenAICompatibleSettings {
  /** The API root, e.g. `http://localhost:11434/v1`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer ...`; omit for servers without auth. */
  apiKey?: string;
  headers?: Record<string, string>;
  /** The provider name in labels and usage (`name:model`) [openai-compatible]. */
  name?: string;
}

type CompatibleFactory = (settings: Record<string, unknown>) => (modelId: string) => LanguageModelV4;

/** A model served by any OpenAI-compatible endpoint. Its label is `openai-compatible:<model>`. */
export function openaiCompatible(model: string, settings: OpenAICompatibleSettings): LanguageModelV4 {
  if (typeof model !== "string" || !model) throw new TypeError("openaiCompatible(model, settings): model must be a non-empty string");
  if (typeof settings?.baseURL !== "string" || !/^https?:\/\//.test(settings.baseURL)) {
    throw new TypeError('openaiCompatible(model, settings): settings.baseURL must be an http(s) URL, e.g. "http://localhost:11434/v1"');
  }
  const name = settings.name ?? "openai-compatible";
  let inner: Promise<LanguageModelV4> | undefined;
  const load = () =>
    (inner ??= loadProviderModule(name, { package: "@ai-sdk/openai-compatible", major: 3 }).then((mod) =>
      (mod.createOpenAICompatible as CompatibleFactory)({
        name,
        baseURL: settings.baseURL,
        apiKey: settings.apiKey,
        headers: settings.headers,
        includeUsage: true,
      })(model),
    ));
  return {
    specificationVersion: "v4",
    provider: `${name}.chat`,
    modelId: model,
    supportedUrls: {},
    doGenerate: async (options) => (await load()).doGenerate(options),
    doStream: async (options) => (await load()).doStream(options),
  };
}
