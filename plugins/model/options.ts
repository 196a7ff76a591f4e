/** The options the model plugin reads (`model` itself is the kernel's: the loop resolves it). */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import { ModelSchema, type ResolvedOptions } from "../../src/index";

/** The model plugin's slice of the config schema. */
export const modelOptions = lazyOptions(
  ["fallbackModel", "modelAliases", "apiKey", "providerSettings", "maxThinkingTokens", "modelCapabilities"],
  () => ({
    fallbackModel: ModelSchema.optional(),
    modelAliases: z.record(z.string(), z.string()).optional().describe("Run-scoped aliases [{}]"),
    apiKey: z
      .string()
      .optional()
      .describe(
        "API key of the run's model: also handed to its other models of the same provider, or behind the same providerSettings.baseURL",
      ),
    providerSettings: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("Passed verbatim to the provider factory [{}]"),
    maxThinkingTokens: z.number().int().nonnegative().optional(),
    modelCapabilities: z
      .record(z.string(), z.strictObject({ images: z.boolean().optional() }))
      .optional()
      .describe(
        'What a model accepts, by label ("ollama:llava") or prefix pattern ("ollama:*"): { images: true } [known families]',
      ),
  }),
);
export type ModelOptions = z.input<typeof modelOptions>;
export type ModelResolvedOptions = ResolvedOptions & Readonly<ModelOptions>;
