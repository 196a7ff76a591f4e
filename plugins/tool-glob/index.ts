/** `ubiquity:tool-glob`: the Glob tool, as a plugin. */
import { definePlugin } from "../_kits/authoring/index";
import { registerBuiltinTool } from "../_kits/file-tools/index";
import { GlobTool } from "./glob-tool";

export { GlobTool, GlobInput, GLOB_MAX_RESULTS } from "./glob-tool";
export { SKIPPED_FOLDERS } from "./skipped-folders";

/** The plugin's name (also the owner of the tool it registers). */
export const PLUGIN_NAME = "ubiquity:tool-glob";

/** Registers the Glob tool (unless `options.tools` replaces the built-in suite). */
export default definePlugin({ name: PLUGIN_NAME, apply: registerBuiltinTool(PLUGIN_NAME, () => new GlobTool()) });
