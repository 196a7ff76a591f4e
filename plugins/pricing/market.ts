/**
 * Market prices from the `@pydantic/genai-prices` snapshot (market-prices.json, see
 * market-calc.ts), for models with no table entry. The lookup needs
 * the provider as well as the model and gives nothing without it: asked to price a bare model
 * name it would match some hosted service and invent a bill for a model running on localhost. A
 * guessed price is worse than no price, so providers not mapped here (ollama, openai-compatible,
 * anything unknown) are never priced from the market.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Usage } from "../../src/index";
import { calcMarketPrice, type MarketData } from "./market-calc";

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

const loaded = new Map<string, Promise<MarketData>>();

/**
 * The snapshot's file: beside this module in the source tree, else `vendor/genai-prices/prices.json`
 * in the build folder above the chunk this module was bundled into (the build copies it there, see
 * build.config.ts).
 */
export function marketDataPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, "market-prices.json");
  if (existsSync(beside)) return beside;
  for (let dir = here, i = 0; i < 4; dir = dirname(dir), i++) {
    const shipped = join(dir, "vendor", "genai-prices", "prices.json");
    if (existsSync(shipped)) return shipped;
  }
  throw new Error(
    `the market price snapshot (vendor/genai-prices/prices.json) is missing beside ${here}; reinstall ubiquity`,
  );
}

/**
 * The part of the price snapshot that prices `providerId`: its models and those of the providers it
 * falls back to, read on the provider's first lookup (the rest of the file is dropped: openrouter
 * alone is 700 models). A JSON file, not the package: compiling the package's 831 KB of object
 * literals kept ~6 MB of the peer task's peak RSS and took ~25 ms of CPU (issue 40; bench/lean-profile.md).
 */
export function loadMarket(providerId: string): Promise<MarketData> {
  let part = loaded.get(providerId);
  if (!part) loaded.set(providerId, (part = Promise.resolve().then(() => partFor(providerId))));
  return part;
}

function partFor(providerId: string): MarketData {
  const all = JSON.parse(readFileSync(marketDataPath(), "utf8")) as MarketData;
  const own = all.providers.find((p) => p.id === providerId);
  const wanted = new Set([providerId, ...(own?.fallback_model_providers ?? [])]);
  return { units: all.units, providers: all.providers.filter((p) => wanted.has(p.id)) };
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
  const data = await loadMarket(ref.providerId);
  const result = calcMarketPrice(
    data,
    {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cache_read_tokens: usage.cacheReadTokens,
      cache_write_tokens: usage.cacheWriteTokens,
    },
    ref.modelId,
    ref.providerId,
  );
  if (!result) return undefined;
  return { costUsd: result.total_price, contextWindow: result.model.context_window };
}
