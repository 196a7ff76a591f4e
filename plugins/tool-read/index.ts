/** `ubiquity:tool-read`: the Read tool, as a plugin. */
import { definePlugin } from "../_kits/authoring/index";
import { registerBuiltinTool } from "../_kits/file-tools/index";
import { ReadTool } from "./read-tool";

export { ReadTool, ReadInput, READ_LIMITS } from "./read-tool";

/** The plugin's name (also the owner of the tool it registers). */
export const PLUGIN_NAME = "ubiquity:tool-read";

/** Registers the Read tool (unless `options.tools` replaces the built-in suite). */
export default definePlugin({
  name: PLUGIN_NAME,
  apply: registerBuiltinTool(PLUGIN_NAME, () => new ReadTool()),
});
