/**
 * From `"provider:model"` to a LanguageModel: split the string (first `:` only, so
 * `bedrock:meta.llama3-70b-instruct-v1:0` works), check the settings, load the package lazily,
 * call its factory with `providerSettings` + `apiKey` + the run's fetch, and pick the model.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { closest, ModelError } from "../../src/index";
import { loadProviderModule, installHint } from "./load-provider";
import { factorySettings } from "./settings";
import { noteUrlSecrets } from "../_kits/process/index";
import { PROVIDER_NAMES, type ProviderSpec } from "./providers";
import { readThinkTags } from "./think-tags";

/** A parsed model string. */
export interface ParsedSpec {
  /** The provider name (`openai`), without a variant. */
  provider: string;
  /** The model kind after a dot (`openai.chat:gpt-4o` → `chat`). */
  variant?: string;
  modelId: string;
}

/** Split `provider[.variant]:model` at the first `:`; undefined when there is no provider part. */
export function splitSpec(spec: string): ParsedSpec | undefined {
  const colon = spec.indexOf(":");
  if (colon <= 0 || colon === spec.length - 1) return undefined;
  const head = spec.slice(0, colon);
  const modelId = spec.slice(colon + 1);
  const dot = head.indexOf(".");
  return dot > 0
    ? { provider: head.slice(0, dot), variant: head.slice(dot + 1), modelId }
    : { provider: head, modelId };
}

/** The error for a string that names no provider. */
export function noProviderError(spec: string, known: readonly string[] = PROVIDER_NAMES): ModelError {
  // Claude Code's `--model sonnet` habit: name the model string it means here.
  const example = CLAUDE_EXAMPLES[spec.toLowerCase()] ?? familyOfModel(spec) ?? "openai:gpt-5";
  return new ModelError(
    `model "${spec}" names no provider: write "provider:model" (e.g. "${example}"), register an alias with registerAlias() (modelAliases, UBIQUITY_MODEL_ALIASES), ` +
      `or use "test" for the offline model. Known providers: ${known.join(", ")}`,
  );
}

/** The `provider:model` string a bare name from Claude Code or Codex most likely means (`sonnet`, `claude-sonnet-4-5`, `gpt-5`); undefined when its name does not say. */
export function modelStringFor(spec: string): string | undefined {
  return CLAUDE_EXAMPLES[spec.toLowerCase()] ?? familyOfModel(spec);
}

/** Claude Code's model shorthands, as provider:model strings (there are no built-in aliases for them). */
const CLAUDE_EXAMPLES: Readonly<Record<string, string>> = {
  sonnet: "anthropic:claude-sonnet-4-5",
  opus: "anthropic:claude-opus-4-5",
  haiku: "anthropic:claude-haiku-4-5",
};

/**
 * A bare model name whose provider its name gives away, as that provider's string: claude's
 * `--model claude-sonnet-4-5-20250929`, codex's `-m gpt-5` or `o3`. Only for the error's example:
 * a bare name never picks a provider by itself.
 */
function familyOfModel(spec: string): string | undefined {
  const families: [RegExp, string][] = [
    [/^claude-/i, "anthropic"],
    [/^(gpt-|chatgpt-|codex-|o\d(-|$))/i, "openai"],
    [/^gemini-/i, "google"],
    [/^grok-/i, "xai"],
    [/^(mistral|codestral|devstral|magistral)-/i, "mistral"],
    [/^deepseek-/i, "deepseek"],
  ];
  const family = families.find(([pattern]) => pattern.test(spec));
  return family ? `${family[1]}:${spec}` : undefined;
}

/** The error for an unknown provider name. */
export function unknownProviderError(
  spec: string,
  provider: string,
  known: readonly string[] = PROVIDER_NAMES,
): ModelError {
  const meant = closest(provider, known);
  return new ModelError(
    `model "${spec}": unknown provider "${provider}"${meant ? ` (did you mean "${meant}${spec.slice(provider.length)}"?)` : ""}. Known providers: ${known.join(", ")}; ` +
      `for any OpenAI-compatible server pass openaiCompatible(model, { baseURL }) as the model`,
  );
}

type ProviderInstance = ((modelId: string) => LanguageModelV4) & Record<string, unknown>;
type Factory = (settings: Record<string, unknown>) => ProviderInstance;

/** What building a provider needs: the credentials and settings, and an optional fetch transform. */
export interface BuildOptions {
  apiKey?: string;
  providerSettings?: Record<string, unknown>;
  /** Turns the provider's fetch (the user's, or undefined for the platform's) into the one to use. */
  wrapFetch?: (fetch: typeof globalThis.fetch | undefined) => typeof globalThis.fetch | undefined;
}

/** Build the provider instance (checks settings, loads the package, calls the factory). */
export async function buildProvider(
  name: string,
  spec: ProviderSpec,
  options: BuildOptions,
): Promise<ProviderInstance> {
  const settings = factorySettings(name, spec, options);
  // A gateway's key sits in its URL's path or query as often as in a header, and a provider's error
  // quotes the request's path: masked wherever it shows (red team zf, ZF3). The SDK reads the
  // provider's `*_BASE_URL` itself when no baseURL is given.
  const urls = [settings.baseURL, ...spec.env.filter((v) => v.endsWith("_BASE_URL")).map((v) => process.env[v])];
  for (const url of urls) if (typeof url === "string") noteUrlSecrets(url);
  const fetch = options.wrapFetch ? options.wrapFetch(settings.fetch) : settings.fetch;
  if (fetch) settings.fetch = fetch;
  const mod = await loadProviderModule(name, spec);
  const factory = mod[spec.factory];
  if (typeof factory !== "function") {
    throw new ModelError(
      `${spec.package} has no export ${spec.factory}: install the ai@7-compatible major with \`${installHint(spec)}\``,
    );
  }
  return (factory as Factory)(settings);
}

/** Pick the language model for `modelId` (and a variant such as `chat`) from a provider instance. */
export function pickModel(
  name: string,
  spec: ProviderSpec,
  instance: ProviderInstance,
  modelId: string,
  variant?: string,
): LanguageModelV4 {
  if (variant) {
    const method = instance[variant];
    if (!spec.variants?.includes(variant) || typeof method !== "function") {
      const kinds = spec.variants?.length ? `; it has ${spec.variants.map((v) => `"${name}.${v}:"`).join(", ")}` : "";
      throw new ModelError(`provider "${name}" has no model kind "${variant}": write "${name}:${modelId}"${kinds}`);
    }
    return (method as (id: string) => LanguageModelV4).call(instance, modelId);
  }
  const languageModel = instance.languageModel;
  const model =
    typeof languageModel === "function"
      ? (languageModel as (id: string) => LanguageModelV4).call(instance, modelId)
      : instance(modelId);
  return spec.factory === "createOpenAICompatible" ? readThinkTags(model) : model;
}
