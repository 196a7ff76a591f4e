/** The options the apply_patch plugin reads: `toolProfile`, the edit surface per model. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

/** An edit surface: the V4A patch tool, or exact string replacement (Edit) with Write. */
export const EditSurface = z.enum(["apply_patch", "edit", "both"]);
export type EditSurface = z.output<typeof EditSurface>;

/** The apply_patch plugin's slice of the config schema. */
export const toolProfileOptions = lazyOptions(["toolProfile"], () => ({
  toolProfile: z
    .union([z.literal(false), z.record(z.string(), EditSurface)])
    .optional()
    .describe(
      "The edit tools offered per model: model patterns (`provider:model`, `*` matches anything) to 'apply_patch', 'edit' (Edit and Write) or 'both', checked before the defaults (apply_patch for OpenAI gpt-5.x and codex models, edit elsewhere); false offers both to every model",
    ),
}));
export type ToolProfileOptions = z.input<typeof toolProfileOptions>;
export type ToolProfileResolvedOptions = ResolvedOptions & Readonly<z.output<typeof toolProfileOptions>>;
