/** `ubiquity:tool-write`: the Write tool, as a plugin. */
import { definePlugin } from "../_kits/authoring/index";
import { registerBuiltinTool } from "../_kits/file-tools/index";
import { sweepTempsAtStart } from "../_kits/storage/index";
import { WriteTool } from "./write-tool";

export { WriteTool, WriteInput } from "./write-tool";

/** The plugin's name (also the owner of the tool it registers). */
export const PLUGIN_NAME = "ubiquity:tool-write";

/**
 * Registers the Write tool (unless `options.tools` replaces the built-in suite), and sweeps the
 * project for temp files its atomic writes left behind in a crash when a run starts.
 */
export default definePlugin({
  name: PLUGIN_NAME,
  apply: registerBuiltinTool(
    PLUGIN_NAME,
    () => new WriteTool(),
    (kernel) => sweepTempsAtStart(kernel, PLUGIN_NAME),
  ),
});
