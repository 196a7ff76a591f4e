/** What other plugins may ask the tool-search plugin: which of a run's tools are deferred. */
import type { Kernel, RunContext } from "../../src/index";

/** The tool-search plugin's API on a kernel. */
export interface ToolSearchApi {
  /** The names of `run`'s deferred tools (offered by name only), in the run's tool order; [] when none. */
  deferred(run: RunContext): readonly string[];
}

const apis = new WeakMap<Kernel, ToolSearchApi>();

/** The tool-search plugin's API on `kernel` (undefined when the plugin is not loaded). */
export function getToolSearchApi(kernel: Kernel): ToolSearchApi | undefined {
  return apis.get(kernel);
}

/** Set by the plugin's `apply`. */
export function setToolSearchApi(kernel: Kernel, api: ToolSearchApi): void {
  apis.set(kernel, api);
}
