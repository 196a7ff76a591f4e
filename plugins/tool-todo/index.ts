/** `ubiquity:tool-todo`: the TodoWrite tool, as a plugin (the lists themselves are `ubiquity:todos`). */
import { definePlugin } from "../_kits/authoring/index";
import { registerBuiltinTool } from "../_kits/file-tools/index";
import { NAME as TODOS } from "../todos/index";
import { TodoWriteTool } from "./todo-tool";

export { TodoWriteTool } from "./todo-tool";

/** The plugin's name (also the owner of the tool it registers). */
export const PLUGIN_NAME = "ubiquity:tool-todo";

/** Registers TodoWrite (unless `options.tools` replaces the built-in suite); needs `ubiquity:todos`. */
export default definePlugin({
  name: PLUGIN_NAME,
  dependsOn: [TODOS],
  apply: registerBuiltinTool(PLUGIN_NAME, () => new TodoWriteTool()),
});
