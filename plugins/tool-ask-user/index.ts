/**
 * `ubiquity:tool-ask-user`: the AskUserQuestion tool. It is offered only when a `canUseTool`
 * handler can answer it, and never to a subagent (its report goes to the parent, not to the
 * user). A separate plugin from `ubiquity:permissions` so a product can drop the tool and keep
 * the engine; the engine asks for it like any other `ask`, and dontAsk declines it.
 */
import type { Tool } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { registerBuiltinTool } from "../_kits/file-tools/index";
import { AskUserQuestionTool } from "./ask-user-tool";
import { askInTerminal } from "./terminal";
import { askUserOptions } from "./options";

export { askInTerminal } from "./terminal";
export { AskUserQuestionTool, AskUserQuestionInput, AskUserQuestionModelInput } from "./ask-user-tool";

/** The plugin's name (also the owner of the tool it registers). */
export const NAME = "ubiquity:tool-ask-user";

/** Registers AskUserQuestion and offers it only where someone can answer. */
export const toolAskUserPlugin = definePlugin({
  name: NAME,
  terminal: askInTerminal,
  options: askUserOptions,
  apply(kernel, context) {
    registerBuiltinTool(NAME, () => new AskUserQuestionTool())(kernel);
    kernel.hooks.tool.list.tap(NAME, (tools: Tool[], run) =>
      context.optionsOf(run).canUseTool && !run.agent ? tools : tools.filter((t) => t.name !== "AskUserQuestion"),
    );
  },
});

export default toolAskUserPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
