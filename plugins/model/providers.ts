/**
 * The provider table: every provider a model string can name, the package behind it, the
 * environment variables it reads, and the settings keys its factory accepts. The keys are
 * checked against each package's settings type in test/model/provider-settings.test-d.ts, so a
 * package upgrade that adds or drops a key fails the type check instead of drifting silently.
 */
import { isCredentialName } from "../../src/index";

/** How a provider is reached: its own AI SDK package, or @ai-sdk/openai-compatible at a fixed URL. */
export interface ProviderSpec {
  /** The npm package that implements the provider. */
  readonly package: string;
  /** The package major that works with ai@7 (install hints say `npm i pkg@major`). */
  readonly major: number;
  /** The package's factory export (`createOpenAI`). */
  readonly factory: string;
  /** Environment variables the provider reads for credentials and location (shown by `ubiquity models`). */
  readonly env: readonly string[];
  /** The keys its factory accepts; anything else in `providerSettings` is a TypeError. */
  readonly settings: readonly string[];
  /** Model methods reachable as `provider.method:model` (e.g. `openai.chat:gpt-4o`). */
  readonly variants?: readonly string[];
  /** For providers served through @ai-sdk/openai-compatible: the default base URL and key variable. */
  readonly compatible?: { readonly baseURL?: string; readonly baseURLEnv?: string; readonly apiKeyEnv?: string };
  /** A bearer token variable used when no key is set (Claude Code's `ANTHROPIC_AUTH_TOKEN`, which an LLM gateway takes), as the factory's `authToken`. */
  readonly bearerEnv?: string;
  /** A variable of `Name: Value` lines sent as headers on every request (Claude Code's `ANTHROPIC_CUSTOM_HEADERS`, which a gateway may require), as the factory's `headers`. */
  readonly headersEnv?: string;
  /** AI SDK provider ids its models carry when they differ from the name a user writes (`amazon-bedrock` for `bedrock`). */
  readonly providerIds?: readonly string[];
  /** Whether the package is a dependency of ubiquity (installed with it) or an optional peer. */
  readonly bundled?: boolean;
}

/** Settings every fetch-based AI SDK factory accepts. */
const BASE = ["baseURL", "apiKey", "headers", "fetch"] as const;

/** Settings of @ai-sdk/openai-compatible, minus `name` (the provider's name is ours to set). */
export const OPENAI_COMPATIBLE_SETTINGS = [
  ...BASE,
  "includeUsage",
  "queryParams",
  "supportsStructuredOutputs",
  "supportsMultiPartToolContent",
  "transformRequestBody",
  "metadataExtractor",
  "supportedUrls",
  "convertUsage",
] as const;

export const PROVIDERS = {
  openai: {
    package: "@ai-sdk/openai",
    major: 4,
    factory: "createOpenAI",
    env: ["OPENAI_API_KEY", "OPENAI_BASE_URL"],
    settings: [...BASE, "organization", "project", "name", "batchResultDownloads", "webSocket"],
    variants: ["chat", "responses", "completion"],
  },
  anthropic: {
    package: "@ai-sdk/anthropic",
    major: 4,
    factory: "createAnthropic",
    env: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS"],
    bearerEnv: "ANTHROPIC_AUTH_TOKEN",
    headersEnv: "ANTHROPIC_CUSTOM_HEADERS",
    settings: [...BASE, "authToken", "name", "generateId", "batchResultDownloads"],
  },
  google: {
    package: "@ai-sdk/google",
    major: 4,
    factory: "createGoogle",
    env: ["GOOGLE_GENERATIVE_AI_API_KEY"],
    settings: [...BASE, "name", "generateId", "batchResultDownloads", "webSocket"],
  },
  "google-vertex": {
    package: "@ai-sdk/google-vertex",
    major: 5,
    factory: "createGoogleVertex",
    providerIds: ["google.vertex"],
    env: ["GOOGLE_VERTEX_PROJECT", "GOOGLE_VERTEX_LOCATION", "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_VERTEX_API_KEY"],
    settings: [...BASE, "project", "location", "googleAuthOptions", "generateId", "webSocket", "toolResultDownloads"],
  },
  bedrock: {
    package: "@ai-sdk/amazon-bedrock",
    major: 5,
    factory: "createAmazonBedrock",
    providerIds: ["amazon-bedrock"],
    env: ["AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"],
    settings: [...BASE, "region", "accessKeyId", "secretAccessKey", "sessionToken", "credentialProvider", "generateId"],
  },
  azure: {
    package: "@ai-sdk/azure",
    major: 4,
    factory: "createAzure",
    env: ["AZURE_API_KEY", "AZURE_RESOURCE_NAME"],
    settings: [...BASE, "resourceName", "apiVersion", "tokenProvider", "useDeploymentBasedUrls", "speechBaseURL"],
    variants: ["chat", "responses", "completion"],
  },
  mistral: {
    package: "@ai-sdk/mistral",
    major: 4,
    factory: "createMistral",
    env: ["MISTRAL_API_KEY"],
    settings: [...BASE, "generateId", "webSocket"],
    bundled: true,
  },
  groq: {
    package: "@ai-sdk/groq",
    major: 4,
    factory: "createGroq",
    env: ["GROQ_API_KEY"],
    settings: BASE,
    bundled: true,
  },
  xai: {
    package: "@ai-sdk/xai",
    major: 5,
    factory: "createXai",
    env: ["XAI_API_KEY"],
    settings: [...BASE, "webSocket"],
  },
  deepseek: {
    package: "@ai-sdk/deepseek",
    major: 3,
    factory: "createDeepSeek",
    env: ["DEEPSEEK_API_KEY"],
    settings: BASE,
  },
  cohere: {
    package: "@ai-sdk/cohere",
    major: 4,
    factory: "createCohere",
    env: ["COHERE_API_KEY"],
    settings: [...BASE, "generateId"],
  },
  togetherai: {
    package: "@ai-sdk/togetherai",
    major: 3,
    factory: "createTogetherAI",
    env: ["TOGETHER_API_KEY", "TOGETHER_AI_API_KEY"],
    settings: BASE,
  },
  fireworks: {
    package: "@ai-sdk/fireworks",
    major: 3,
    factory: "createFireworks",
    env: ["FIREWORKS_API_KEY"],
    settings: BASE,
  },
  cerebras: {
    package: "@ai-sdk/cerebras",
    major: 3,
    factory: "createCerebras",
    env: ["CEREBRAS_API_KEY"],
    settings: BASE,
  },
  perplexity: {
    package: "@ai-sdk/perplexity",
    major: 4,
    factory: "createPerplexity",
    env: ["PERPLEXITY_API_KEY"],
    settings: BASE,
  },
  deepinfra: {
    package: "@ai-sdk/deepinfra",
    major: 3,
    factory: "createDeepInfra",
    env: ["DEEPINFRA_API_KEY"],
    settings: BASE,
  },
  huggingface: {
    package: "@ai-sdk/huggingface",
    major: 2,
    factory: "createHuggingFace",
    env: ["HUGGINGFACE_API_KEY"],
    settings: [...BASE, "generateId"],
  },
  moonshotai: {
    package: "@ai-sdk/moonshotai",
    major: 3,
    factory: "createMoonshotAI",
    env: ["MOONSHOT_API_KEY"],
    settings: BASE,
  },
  alibaba: {
    package: "@ai-sdk/alibaba",
    major: 2,
    factory: "createAlibaba",
    env: ["ALIBABA_API_KEY"],
    settings: [...BASE, "videoBaseURL", "embeddingBaseURL", "includeUsage"],
  },
  // v0's API. @ai-sdk/vercel has no ai@7 release (its latest needs @ai-sdk/provider@3), and it is
  // a thin openai-compatible wrapper anyway, so the maintained openai-compatible package serves it.
  vercel: {
    package: "@ai-sdk/openai-compatible",
    major: 3,
    factory: "createOpenAICompatible",
    env: ["VERCEL_API_KEY"],
    settings: OPENAI_COMPATIBLE_SETTINGS,
    compatible: { baseURL: "https://api.v0.dev/v1", apiKeyEnv: "VERCEL_API_KEY" },
    bundled: true,
  },
  gateway: {
    package: "@ai-sdk/gateway",
    major: 4,
    factory: "createGateway",
    env: ["AI_GATEWAY_API_KEY", "VERCEL_OIDC_TOKEN"],
    settings: [...BASE, "teamIdOrSlug", "metadataCacheRefreshMillis", "batchResultDownloads", "webSocket"],
    bundled: true,
  },
  openrouter: {
    package: "@openrouter/ai-sdk-provider",
    major: 3,
    factory: "createOpenRouter",
    env: ["OPENROUTER_API_KEY"],
    settings: [...BASE, "baseUrl", "decisionsBaseURL", "compatibility", "extraBody", "api_keys", "appName", "appUrl"],
  },
  // Ollama serves the OpenAI chat API at /v1; its community providers add little over that.
  ollama: {
    package: "@ai-sdk/openai-compatible",
    major: 3,
    factory: "createOpenAICompatible",
    env: ["OLLAMA_BASE_URL"],
    settings: OPENAI_COMPATIBLE_SETTINGS,
    compatible: { baseURL: "http://localhost:11434/v1", baseURLEnv: "OLLAMA_BASE_URL" },
    bundled: true,
  },
  // Any server that speaks the OpenAI chat API (vLLM, LM Studio, llama.cpp, a proxy): the URL has no default.
  "openai-compatible": {
    package: "@ai-sdk/openai-compatible",
    major: 3,
    factory: "createOpenAICompatible",
    env: ["OPENAI_COMPATIBLE_BASE_URL", "OPENAI_COMPATIBLE_API_KEY"],
    settings: OPENAI_COMPATIBLE_SETTINGS,
    compatible: { baseURLEnv: "OPENAI_COMPATIBLE_BASE_URL", apiKeyEnv: "OPENAI_COMPATIBLE_API_KEY" },
    bundled: true,
  },
} as const satisfies Record<string, ProviderSpec>;

/** A built-in provider name. */
export type ProviderName = keyof typeof PROVIDERS;

/** The built-in provider names, in table order. */
export const PROVIDER_NAMES = Object.keys(PROVIDERS) as ProviderName[];

/** The spec of a built-in provider, or undefined. */
export function providerSpec(name: string): ProviderSpec | undefined {
  return Object.hasOwn(PROVIDERS, name) ? (PROVIDERS as Record<string, ProviderSpec>)[name] : undefined;
}

/** The model providers' own key variables (OPENAI_API_KEY, ANTHROPIC_API_KEY, …). */
const PROVIDER_KEYS: ReadonlySet<string> = new Set(
  (Object.values(PROVIDERS) as ProviderSpec[])
    .flatMap((spec) => [...(spec.env ?? []), ...(spec.compatible?.apiKeyEnv ? [spec.compatible.apiKeyEnv] : [])])
    .filter((n) => isCredentialName(n)),
);

/**
 * A provider's key under another spelling (ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN,
 * GEMINI_API_KEY, OPENAI_KEY) is a provider key too: a credential-named variable whose first
 * segment is a provider's (or Claude's, Gemini's).
 */
const PROVIDER_PREFIXES: ReadonlySet<string> = new Set([
  ...[...PROVIDER_KEYS].map((n) => n.split("_")[0]!),
  "CLAUDE",
  "GEMINI",
]);

/**
 * Does `name` hold a model provider's key? Such a variable is never handed on by a file: not to
 * an HTTP hook's headers, not into an MCP server's command, arguments, environment, URL or headers.
 */
export function isProviderKey(name: string): boolean {
  return (
    PROVIDER_KEYS.has(name) || (isCredentialName(name) && PROVIDER_PREFIXES.has(name.split("_")[0]!.toUpperCase()))
  );
}
