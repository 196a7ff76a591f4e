/** The options the reviewer plugin reads: `reviewer` (who answers what would prompt) and its limits. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import { ModelSchema, type ResolvedOptions } from "../../src/index";
import { functionSchema } from "../_kits/authoring/index";
import { permissionsOptions } from "../permissions/api";
import type { ReviewFunction } from "./api";

const limits = {
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("How long one review may take before the call is denied [60000]"),
  maxCalls: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Reviews per session; past it the user is asked (headless: the run stops) [200]"),
  maxCostUsd: z
    .number()
    .positive()
    .optional()
    .describe(
      "What a model reviewer may spend per session (USD, charged to the run); past it the user is asked (headless: the run stops)",
    ),
  maxConsecutiveDenials: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Denials in a row after which the user is asked (headless: the run stops) [3]"),
};

/** A reviewer: a model (any provider string, or a LanguageModel), a command, or a function. */
export const ReviewerSchema = z.union([
  z.string().min(1).describe("A model string or alias that reviews"),
  functionSchema<ReviewFunction>("review function"),
  z.strictObject({
    model: ModelSchema.describe("The reviewing model (a model string, an alias or a LanguageModel)"),
    instructions: z.string().optional().describe("Your policy, added to the fixed review prompt"),
    ...limits,
  }),
  z.strictObject({
    command: z
      .string()
      .min(1)
      .describe(
        'A command (run by bash) that reads the review request as JSON on stdin and prints {"decision": "allow"|"deny", "reason"}',
      ),
    ...limits,
  }),
  z.strictObject({ review: functionSchema<ReviewFunction>("review function"), ...limits }),
]);
export type ReviewerOption = z.input<typeof ReviewerSchema>;

/** The reviewer plugin's slice of the config schema. */
export const reviewerOptions = lazyOptions(["reviewer", "permissionMode", "canUseTool"], () => ({
  reviewer: ReviewerSchema.optional().describe(
    "Who answers the calls that would prompt (permission mode auto, or any mode when set): a model, a command or a function. Deny and ask rules, sensitive files, plan mode and the sandbox are never its to answer. With mode auto and no reviewer, the run's own model reviews.",
  ),
  permissionMode: permissionsOptions.shape.permissionMode,
  canUseTool: permissionsOptions.shape.canUseTool,
}));
export type ReviewerOptions = z.input<typeof reviewerOptions>;
export type ReviewerResolvedOptions = ResolvedOptions & Readonly<ReviewerOptions>;
