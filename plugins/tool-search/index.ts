/**
 * `ubiquity:tool-search`: deferred built-in tools (`deferTools`, opt-in). The tools a typical turn does
 * not need are offered by name only, in the description of one ToolSearch tool; a search returns
 * their definitions in its result, and they are called like any other tool (a call by exact
 * name works before that too). Requests stay smaller and their prefix stays byte for byte: the
 * tool block is the same on every request of a run. The MCP plugin defers its servers' tools
 * with the same kit (plugins/_kits/tool-search) behind McpToolSearch.
 */
import { REQUEST_STAGE, type RunContext, type Tool } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { offerOnly } from "../_kits/tool-search/index";
import { setToolSearchApi } from "./api";
import { decide, type RunDeferral } from "./deferral";
import { toolSearchOptions } from "./options";

export { getToolSearchApi, type ToolSearchApi } from "./api";
export { ToolSearchTool, TOOL_SEARCH } from "./tool-search-tool";

/** The plugin's name. */
export const NAME = "ubiquity:tool-search";

/** The tool-search plugin. */
export const toolSearchPlugin = definePlugin({
  name: NAME,
  options: toolSearchOptions,
  runState: (): { deferral?: RunDeferral } => ({}),
  apply(kernel, context) {
    const deferralOf = (run: RunContext) => context.run(run).deferral;

    setToolSearchApi(kernel, {
      deferred: (run) => [...(deferralOf(run)?.names ?? [])],
    });

    // Decided on the run's first list (after every filter before this plugin), kept for the run.
    kernel.hooks.tool.list.tap(NAME, (tools: Tool[], run: RunContext) => {
      const state = context.run(run);
      state.deferral ??= decide(tools, context.optionsOf(run).deferTools);
      const { search } = state.deferral;
      // Last, so the tools before it keep their offer order.
      return search ? [...tools, search] : tools;
    });

    // Deferred tools stay in the run's list (callable) and are left out of what the request offers.
    kernel.hooks.model.request.tap({ name: NAME, stage: REQUEST_STAGE.ASSEMBLE }, (request, run) => {
      const names = deferralOf(run)?.names;
      if (!names?.size || !request.toolList.some((t) => names.has(t.name))) return request;
      return offerOnly(
        request,
        request.toolList.filter((t) => !names.has(t.name)),
      );
    });
  },
});

export default toolSearchPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
