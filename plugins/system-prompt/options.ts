/** The options the system-prompt plugin reads. */
import { z } from "zod";
import type { ResolvedOptions } from "../../src/index";

/** The system-prompt plugin's slice of the config schema. */
export const systemPromptOptions = z.strictObject({
  systemPrompt: z.string().optional(),
  appendSystemPrompt: z.string().optional(),
});
export type SystemPromptOptions = z.input<typeof systemPromptOptions>;
export type SystemPromptResolvedOptions = ResolvedOptions & Readonly<SystemPromptOptions>;
