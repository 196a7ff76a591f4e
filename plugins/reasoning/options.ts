/** The options the reasoning plugin reads: `reasoning`, one level or a schedule by phase. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

/** The reasoning levels, as the AI SDK's portable `reasoning` call setting names them. */
export const REASONING_LEVELS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export const ReasoningLevel = z.enum(REASONING_LEVELS);
/** How much the model reasons before answering. */
export type ReasoningLevel = z.output<typeof ReasoningLevel>;

/** A level per phase of a stretch of work; a phase left out gets the provider's default. */
export const ReasoningSchedule = z.strictObject({
  plan: ReasoningLevel.optional().describe(
    "The first request of a stretch: the answer to the user's prompt, before any tool ran",
  ),
  work: ReasoningLevel.optional().describe("Requests that follow tool results"),
  verify: ReasoningLevel.optional().describe(
    "Requests after a stop check sent the agent back (verify-before-stop, a Stop hook), until the stretch ends",
  ),
});
export type ReasoningSchedule = z.output<typeof ReasoningSchedule>;

/** The reasoning plugin's slice of the config schema. */
export const reasoningOptions = lazyOptions(["reasoning"], () => ({
  reasoning: z
    .union([ReasoningLevel, ReasoningSchedule])
    .optional()
    .describe(
      "Reasoning effort for every provider that supports it: none, minimal, low, medium, high, xhigh or max, or a schedule { plan, work, verify } [the provider's default]",
    ),
}));
export type ReasoningOptions = z.input<typeof reasoningOptions>;
export type ReasoningResolvedOptions = ResolvedOptions & Readonly<z.output<typeof reasoningOptions>>;
