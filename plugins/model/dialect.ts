/**
 * Generation settings in each provider's own dialect. `maxTokens` and `temperature` are standard
 * call settings the AI SDK maps for every provider; a thinking budget is not, so
 * `maxThinkingTokens` becomes the provider option each family reads: Anthropic's thinking
 * budget, Google's thinking config, Bedrock's reasoning config, OpenAI's reasoning effort.
 * Whatever the caller put in `providerOptions` wins over what is derived here.
 */
import type { LanguageModel } from "ai";

type Model = Exclude<LanguageModel, string>;
/** AI SDK per-call provider options. */
export type ProviderOptions = Record<string, Record<string, unknown>>;

/** OpenAI has no token budget for reasoning, only an effort level; these are the cut-offs. */
export function reasoningEffort(budget: number): "minimal" | "low" | "medium" | "high" {
  if (budget === 0) return "minimal";
  if (budget <= 4096) return "low";
  if (budget <= 16384) return "medium";
  return "high";
}

/** The provider-option keys a model reads (first = where derived options go) and what a budget becomes. */
function thinkingDialect(
  model: Model,
  budget: number,
): { keys: string[]; options: Record<string, unknown> } | undefined {
  const provider = typeof model === "object" && "provider" in model ? String(model.provider) : "";
  const family = provider.split(".")[0];
  if (family === "anthropic") {
    return {
      keys: ["anthropic"],
      options: { thinking: budget > 0 ? { type: "enabled", budgetTokens: budget } : { type: "disabled" } },
    };
  }
  if (family === "google") {
    const keys = provider.includes("vertex") ? ["vertex", "googleVertex"] : ["google"];
    return {
      keys,
      options: { thinkingConfig: { thinkingBudget: budget, ...(budget > 0 ? { includeThoughts: true } : {}) } },
    };
  }
  if (family === "bedrock" || family === "amazon-bedrock") {
    return {
      keys: ["bedrock", "amazonBedrock"],
      options: { reasoningConfig: budget > 0 ? { type: "enabled", budgetTokens: budget } : { type: "disabled" } },
    };
  }
  if (family === "openai") return { keys: ["openai"], options: { reasoningEffort: reasoningEffort(budget) } };
  if (family === "azure") return { keys: ["azure", "openai"], options: { reasoningEffort: reasoningEffort(budget) } };
  return undefined;
}

/**
 * `providerOptions` for a call to `model`: the caller's, with the thinking budget added in the
 * model's dialect beneath any key the caller set. Returns the caller's object itself when there
 * is nothing to add, so options pass through untouched.
 */
export function dialectOptions(
  model: Model,
  maxThinkingTokens: number | undefined,
  callerOptions: ProviderOptions | undefined,
): ProviderOptions | undefined {
  if (maxThinkingTokens === undefined) return callerOptions;
  const dialect = thinkingDialect(model, maxThinkingTokens);
  if (!dialect) return callerOptions;
  const key = dialect.keys.find((k) => callerOptions?.[k] !== undefined) ?? dialect.keys[0]!;
  return { ...callerOptions, [key]: { ...dialect.options, ...callerOptions?.[key] } };
}
