/**
 * `ubiquity:tool-apply-patch`: the apply_patch tool (the V4A patch format), and `toolProfile`,
 * which chooses the edit surface each model is offered: apply_patch for the OpenAI models
 * trained on it, Edit and Write elsewhere. The choice follows the model of each request — a
 * `setModel` takes effect at the next turn, a fallback model gets its own surface for the call
 * it answers. Both surfaces share the file-tools kit, so read-before-write, checkpoints,
 * permissions (rules name each file a patch touches) and the sandbox's approvals hold across a
 * switch; the tools that stay keep their place, so the unchanged part of the prefix stays cached.
 */
import { REQUEST_STAGE, toolSetOf, type ModelRequest, type RunContext, type Tool } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { registerBuiltinTool } from "../_kits/file-tools/index";
import { sweepTempsAtStart } from "../_kits/storage/index";
import { ApplyPatchTool } from "./apply-patch-tool";
import { toolProfileOptions } from "./options";
import { EDIT_TOOLS, offered, SURFACE_TOOLS, surfaceFor } from "./profile";
import type { EditSurface } from "./options";

export { ApplyPatchTool, ApplyPatchInput, patchPaths } from "./apply-patch-tool";
export { parsePatch, PatchSyntaxError, type PatchOp, type Hunk, type HunkLine } from "./parse";
export { surfaceFor, DEFAULT_PROFILE, SURFACE_TOOLS } from "./profile";
export * from "./options";

/** The plugin's name (also the owner of the tool it registers). */
export const PLUGIN_NAME = "ubiquity:tool-apply-patch";

/** Stage of the request tap: after the request is assembled (native tools added), before anything reads the tool set. */
const PROFILE_TAP = { name: PLUGIN_NAME, stage: REQUEST_STAGE.TRANSFORM, before: "ubiquity:model" };

interface RunState {
  /** The tools as they reached this plugin's `tool.list` tap: what a fallback's surface is taken from. */
  available: Tool[];
}

/** Keep the tools `surface` offers — unless the list has none of them (a custom suite): then leave it whole. */
function choose(tools: Tool[], surface: EditSurface): Tool[] {
  if (surface !== "both" && !tools.some((t) => SURFACE_TOOLS[surface].includes(t.name))) return tools;
  return tools.filter((t) => offered(t.name, surface));
}

/** The request a fallback model is sent: the edit tools swapped for its surface, everything else as it was. */
function forFallback(request: ModelRequest, run: RunContext, available: Tool[], surface: EditSurface): ModelRequest {
  const had = new Set(request.toolList.map((t) => t.name));
  if (![...had].some((n) => EDIT_TOOLS.has(n))) return request; // offered no edit tool (a read-only agent): none to swap
  const list = choose(
    available.filter((t) => had.has(t.name) || EDIT_TOOLS.has(t.name)),
    surface,
  );
  if (list.map((t) => t.name).join("\n") === request.toolList.map((t) => t.name).join("\n")) return request;
  const kept = new Set(list.map((t) => t.name));
  const tools: ModelRequest["tools"] = {};
  // Provider-native tools (added to `tools` only) stay; the swapped edit tools go.
  for (const [name, entry] of Object.entries(request.tools)) if (!had.has(name) || kept.has(name)) tools[name] = entry;
  Object.assign(tools, toolSetOf(list.filter((t) => !had.has(t.name))));
  // The fallback's calls must reach the tools it was offered.
  for (const tool of list) if (!run.tools.includes(tool)) run.tools.push(tool);
  return { ...request, toolList: list, tools };
}

/**
 * Registers apply_patch (unless `options.tools` replaces the built-in suite) and offers each
 * model the edit surface `toolProfile` gives it.
 */
export default definePlugin({
  name: PLUGIN_NAME,
  options: toolProfileOptions,
  runState: (): RunState => ({ available: [] }),
  apply(kernel, context) {
    registerBuiltinTool(
      PLUGIN_NAME,
      () => new ApplyPatchTool(),
      (k) => sweepTempsAtStart(k, PLUGIN_NAME),
    )(kernel);
    const profileOf = (run: RunContext) => context.optionsOf(run).toolProfile;
    kernel.hooks.tool.list.tap(PLUGIN_NAME, (tools: Tool[], run: RunContext) => {
      context.run(run).available = tools;
      return choose(tools, surfaceFor(run.modelLabel, profileOf(run)));
    });
    kernel.hooks.model.request.tap(PROFILE_TAP, (request: ModelRequest, run: RunContext) => {
      // The run's own model got its surface from tool.list; only a request handed to another model differs.
      if (request.model === run.model || (request.purpose ?? "turn") !== "turn") return request;
      const surface = surfaceFor(request.modelLabel, profileOf(run));
      return forFallback(request, run, context.run(run).available, surface);
    });
  },
});
