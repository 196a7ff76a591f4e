/** `ubiquity:tool-bash`: the Bash tool, as a plugin. */
import { definePlugin } from "../_kits/authoring/index";
import { registerBuiltinTool } from "../_kits/file-tools/index";
import { getSandboxApi } from "../sandbox/api";
import { BashTool } from "./bash-tool";

export { BashTool, BashInput, BASH_LIMITS } from "./bash-tool";
export type { ShellBody, ShellRead } from "./background";

/** The plugin's name (also the owner of the tool it registers). */
export const PLUGIN_NAME = "ubiquity:tool-bash";

/** Registers the Bash tool (unless `options.tools` replaces the built-in suite). */
export default definePlugin({
  name: PLUGIN_NAME,
  apply: registerBuiltinTool(PLUGIN_NAME, (kernel) => new BashTool(getSandboxApi(kernel))),
});
