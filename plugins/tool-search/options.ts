/** The options the tool-search plugin reads (`deferTools`). */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

/**
 * The built-in tools a typical turn does not need: each is named in ToolSearch's description and
 * its definition loaded on demand. The background-shell tools serve only after `Bash
 * run_in_background` (whose result names them), the rest a minority of tasks.
 */
export const DEFAULT_DEFERRED_TOOLS: readonly string[] = Object.freeze([
  "TodoWrite",
  "WebFetch",
  "WebSearch",
  "BashOutput",
  "BashInput",
  "KillShell",
  "LSP",
  "SendMessage",
  "ListMcpResources",
  "ReadMcpResource",
]);

/** The tool-search plugin's slice of the config schema. */
export const toolSearchOptions = lazyOptions(["deferTools"], () => ({
  deferTools: z
    .union([z.boolean(), z.array(z.string().min(1))])
    .optional()
    .describe(
      `Tools offered by name only, their definitions loaded through ToolSearch when needed (fewer bytes per request): true for ${DEFAULT_DEFERRED_TOOLS.join(", ")}; or the tool names; false or unset for none [false]`,
    ),
}));
export type ToolSearchOptions = z.input<typeof toolSearchOptions>;
export type ToolSearchResolvedOptions = ResolvedOptions & Readonly<ToolSearchOptions>;
