/** `ubiquity:tool-grep`: the Grep tool, as a plugin. */
import { definePlugin } from "../_kits/authoring/index";
import { registerBuiltinTool } from "../_kits/file-tools/index";
import { GrepTool } from "./grep-tool";

export { GrepTool, GrepInput, GREP_LIMITS } from "./grep-tool";
export type { GrepBackend, GrepToolOptions } from "./grep-tool";
export { FILE_TYPES } from "./file-types";

/** The plugin's name (also the owner of the tool it registers). */
export const PLUGIN_NAME = "ubiquity:tool-grep";

/** Registers the Grep tool (unless `options.tools` replaces the built-in suite). */
export default definePlugin({
  name: PLUGIN_NAME,
  apply: registerBuiltinTool(PLUGIN_NAME, () => new GrepTool()),
});
