/**
 * Market prices from `@pydantic/genai-prices`, for models with no table entry. The lookup needs
 * the provider as well as the model and gives nothing without it: asked to price a bare model
 * name it would match some hosted service and invent a bill for a model running on localhost. A
 * guessed price is worse than no price, so providers not mapped here (ollama, openai-compatible,
 * anything unknown) are never priced from the market.
 */
import type { Usage } from "../../src/index";

/** Our provider names (label prefixes) → genai-prices provider ids. */
export const MARKET_PROVIDERS: Readonly<Record<string, string>> = {
  openai: "openai",
  anthropic: "anthropic",
  google: "google",
  "google-vertex": "google",
  bedrock: "aws",
  "amazon-bedrock": "aws",
  azure: "azure",
  mistral: "mistral",
  groq: "groq",
  xai: "x-ai",
  deepseek: "deepseek",
  cohere: "cohere",
  togetherai: "together",
  fireworks: "fireworks",
  cerebras: "cerebras",
  perplexity: "perplexity",
  moonshotai: "moonshotai",
  openrouter: "openrouter",
};

type GenaiPrices = typeof import("@pydantic/genai-prices");
let loading: Promise<GenaiPrices> | undefined;

/** Load the price snapshot once (it is ~2 MB of data; runs that never need it never load it). */
export function loadMarket(): Promise<GenaiPrices> {
  return (loading ??= import("@pydantic/genai-prices"));
}

/** Where a label's model is priced: provider id and model id, or undefined for unknown/local providers. */
export function marketRef(label: string): { providerId: string; modelId: string } | undefined {
  const colon = label.indexOf(":");
  if (colon <= 0) return undefined;
  const provider = label.slice(0, colon);
  let modelId = label.slice(colon + 1);
  let providerId = MARKET_PROVIDERS[provider];
  // The Vercel AI Gateway names the upstream provider in the model id: gateway:openai/gpt-5.
  if (provider === "gateway") {
    const slash = modelId.indexOf("/");
    providerId = slash > 0 ? MARKET_PROVIDERS[modelId.slice(0, slash)] : undefined;
    modelId = modelId.slice(slash + 1);
  }
  return providerId ? { providerId, modelId } : undefined;
}

/** What the market knows about a model: its price for a usage and its context window. */
export interface MarketQuote {
  costUsd: number;
  contextWindow?: number;
}

/** Price `usage` for `label` from the market snapshot; undefined when the market does not know it. */
export async function marketQuote(
  label: string,
  usage: Pick<Usage, "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">,
): Promise<MarketQuote | undefined> {
  const ref = marketRef(label);
  if (!ref) return undefined;
  const { calcPrice } = await loadMarket();
  const result = calcPrice(
    {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cache_read_tokens: usage.cacheReadTokens,
      cache_write_tokens: usage.cacheWriteTokens,
    },
    ref.modelId,
    { providerId: ref.providerId },
  );
  if (!result) return undefined;
  return { costUsd: result.total_price, contextWindow: result.model.context_window };
}
