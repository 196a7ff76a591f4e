/**
 * `createModel("provider:model", { apiKey, providerSettings })`: the model plugin's resolution
 * outside a run, for scripts and tests. It throws what a run would report: a TypeError for a
 * settings key the provider does not accept, a ModelError naming a missing package.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { expandAlias } from "./aliases";
import { buildProvider, noProviderError, pickModel, splitSpec, unknownProviderError } from "./build";
import { providerSpec } from "./providers";

/** Options of `createModel()`. */
export interface CreateModelOptions {
  apiKey?: string;
  providerSettings?: Record<string, unknown>;
  /** Aliases that beat the registered ones (like a run's `modelAliases`). */
  modelAliases?: Record<string, string>;
}

/** Build the model a string names, with the same settings rules a run applies. */
export async function createModel(spec: string, options: CreateModelOptions = {}): Promise<LanguageModelV4> {
  const expanded = expandAlias(spec, options.modelAliases);
  const parsed = splitSpec(expanded);
  if (!parsed) throw noProviderError(spec);
  const known = providerSpec(parsed.provider);
  if (!known) throw unknownProviderError(expanded, parsed.provider);
  const instance = await buildProvider(parsed.provider, known, options);
  return pickModel(parsed.provider, known, instance, parsed.modelId, parsed.variant);
}
