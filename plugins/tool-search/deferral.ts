/**
 * Which of a run's tools are deferred: decided once, on the run's first tool list (a choice that
 * flipped mid-run would rewrite the cached prefix), from `deferTools` and the tools the run has.
 * A run defers only when its deferred definitions outweigh the search tool that replaces them.
 */
import type { Tool } from "../../src/index";
import { definitionText } from "../_kits/tool-search/index";
import { DEFAULT_DEFERRED_TOOLS, type ToolSearchOptions } from "./options";
import { ToolSearchTool } from "./tool-search-tool";

/** A run's choice: its search tool, or none (nothing deferred). */
export interface RunDeferral {
  search?: ToolSearchTool;
  /** The deferred tools' names. */
  names: ReadonlySet<string>;
}

/** The names `deferTools` asks to defer. */
function wanted(setting: ToolSearchOptions["deferTools"]): ReadonlySet<string> {
  // Opt-in: a loaded tool is called without being in the request's tool list, which the AI SDK and
  // the scripted model accept but no real provider was tried with here.
  if (setting === false || setting === undefined) return new Set();
  return new Set(setting === true ? DEFAULT_DEFERRED_TOOLS : setting);
}

/** Decide a run's deferral from its first tool list. */
export function decide(tools: readonly Tool[], setting: ToolSearchOptions["deferTools"]): RunDeferral {
  const names = wanted(setting);
  const deferred = tools.filter((t) => names.has(t.name) && t.name !== "ToolSearch");
  if (deferred.length === 0) return { names: new Set() };
  const search = new ToolSearchTool(deferred);
  const size = (t: Tool) => definitionText(t).length;
  if (deferred.reduce((n, t) => n + size(t), 0) <= size(search)) return { names: new Set() };
  return { search, names: new Set(deferred.map((t) => t.name)) };
}
