/** `ubiquity:tool-edit`: the Edit tool, as a plugin. */
import { definePlugin } from "../_kits/authoring/index";
import { registerBuiltinTool } from "../_kits/file-tools/index";
import { sweepTempsAtStart } from "../_kits/storage/index";
import { EditTool } from "./edit-tool";

export { EditTool, EditInput } from "./edit-tool";

/** The plugin's name (also the owner of the tool it registers). */
export const PLUGIN_NAME = "ubiquity:tool-edit";

/**
 * Registers the Edit tool (unless `options.tools` replaces the built-in suite), and sweeps the
 * project for temp files its atomic writes left behind in a crash when a run starts.
 */
export default definePlugin({
  name: PLUGIN_NAME,
  apply: registerBuiltinTool(
    PLUGIN_NAME,
    () => new EditTool(),
    (kernel) => sweepTempsAtStart(kernel, PLUGIN_NAME),
  ),
});
