/** The options the system-prompt plugin reads. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";
import { permissionsOptions } from "../permissions/api";

/** The system-prompt plugin's slice of the config schema (`permissionMode` is the permissions plugin's; the prompt states it). */
export const systemPromptOptions = lazyOptions(["systemPrompt", "appendSystemPrompt", "permissionMode"], () => ({
  systemPrompt: z.string().optional(),
  appendSystemPrompt: z.string().optional(),
  permissionMode: permissionsOptions.shape.permissionMode,
}));
export type SystemPromptOptions = z.input<typeof systemPromptOptions>;
export type SystemPromptResolvedOptions = ResolvedOptions & Readonly<SystemPromptOptions>;
