/**
 * `openaiCompatible(model, { baseURL })`: anything that speaks the OpenAI chat API (Ollama, vLLM,
 * LM Studio, a proxy) as a constructed model. It returns synchronously, so it fits in
 * `options.model`, and loads @ai-sdk/openai-compatible on the first call, so importing
 * `ubiquity` loads no provider package.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { loadProviderModule } from "./load-provider";
import { readThinkTags } from "./think-tags";
import { noteUrlSecrets } from "../_kits/process/index";

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

/**
 * The key of a function on every `openaiCompatible()` model that builds the same model with
 * another fetch: the model plugin uses it to send the model's requests through the run's
 * transport (retries, stream checks), as for models built from strings.
 */
export const WITH_FETCH: unique symbol = Symbol.for("ubiquity.openaiCompatible.withFetch");

/** A model from `openaiCompatible()`. */
export type OpenAICompatibleModel = LanguageModelV4 & {
  /** The same model sending through `fetch` (undefined: the platform's). */
  [WITH_FETCH](fetch: typeof globalThis.fetch | undefined): OpenAICompatibleModel;
  /** The provider name (for the transport's log lines). */
  readonly providerName: string;
};

type CompatibleFactory = (settings: Record<string, unknown>) => (modelId: string) => LanguageModelV4;

/** A model served by any OpenAI-compatible endpoint. Its label is `openai-compatible:<model>`. */
export function openaiCompatible(model: string, settings: OpenAICompatibleSettings): OpenAICompatibleModel {
  return build(model, settings, undefined);
}

function build(
  model: string,
  settings: OpenAICompatibleSettings,
  fetch: typeof globalThis.fetch | undefined,
): OpenAICompatibleModel {
  if (typeof model !== "string" || !model)
    throw new TypeError("openaiCompatible(model, settings): model must be a non-empty string");
  if (typeof settings?.baseURL !== "string" || !/^https?:\/\//.test(settings.baseURL)) {
    throw new TypeError(
      'openaiCompatible(model, settings): settings.baseURL must be an http(s) URL, e.g. "http://localhost:11434/v1"',
    );
  }
  // A key in the server's URL is masked wherever an error quotes it (red team zf, ZF3).
  noteUrlSecrets(settings.baseURL);
  const name = settings.name ?? "openai-compatible";
  let inner: Promise<LanguageModelV4> | undefined;
  const load = () =>
    (inner ??= loadProviderModule(name, { package: "@ai-sdk/openai-compatible", major: 3 })
      .then((mod) =>
        (mod.createOpenAICompatible as CompatibleFactory)({
          name,
          baseURL: settings.baseURL,
          apiKey: settings.apiKey,
          headers: settings.headers,
          includeUsage: true,
          ...(fetch ? { fetch } : {}),
        })(model),
      )
      .then(readThinkTags));
  return {
    specificationVersion: "v4",
    provider: `${name}.chat`,
    modelId: model,
    supportedUrls: {},
    doGenerate: async (options) => (await load()).doGenerate(options),
    doStream: async (options) => (await load()).doStream(options),
    providerName: name,
    [WITH_FETCH]: (next) => build(model, settings, next),
  };
}
