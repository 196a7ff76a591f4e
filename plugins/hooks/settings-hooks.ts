/**
 * Command hooks from settings files (`settingSources`): the `"hooks"` key in the Claude Code
 * shape. Only command hooks can come from a file; a malformed `hooks` key is skipped with a
 * warning naming the file, and the rest of the file still applies.
 */
import { z } from "zod";
import { type Kernel } from "../../src/index";
import { HOOK_EVENTS } from "./options";
import { getSettingsApi } from "../settings/api";
import type { HookMatcherGroup, HooksConfig } from "./types";

const FileHooksSchema = z.partialRecord(
  z.enum(HOOK_EVENTS),
  z.array(
    z.object({
      matcher: z.string().optional(),
      hooks: z.array(z.object({ type: z.literal("command"), command: z.string().min(1), timeout: z.number().positive().optional() })),
    }),
  ),
);

/** `options.hooks` followed by each enabled settings file's command hooks (user, project, local). */
export function effectiveHooks(kernel: Kernel, optionHooks: HooksConfig | undefined): HooksConfig | undefined {
  const files = getSettingsApi(kernel).files.filter((f) => f.settings.hooks !== undefined);
  if (files.length === 0) return optionHooks;
  const out: Record<string, HookMatcherGroup[]> = {};
  for (const [event, groups] of Object.entries(optionHooks ?? {})) out[event] = [...(groups ?? [])];
  for (const file of files) {
    const parsed = FileHooksSchema.safeParse(file.settings.hooks);
    if (!parsed.success) {
      kernel.logger.warn(`skipped the hooks in ${file.path}: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`);
      continue;
    }
    for (const [event, groups] of Object.entries(parsed.data)) (out[event] ??= []).push(...(groups ?? []));
  }
  return out as HooksConfig;
}
