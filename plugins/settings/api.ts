/**
 * `getSettingsApi(kernel)`: the settings files a kernel read, as parsed — including keys this
 * plugin does not act on (`hooks`), for the plugins that do.
 */
import type { Kernel } from "../../src/index";
import type { SettingSource, SettingsFile } from "./schema";

/** One settings file that was read and applied. */
export interface LoadedSettings {
  source: SettingSource;
  path: string;
  settings: SettingsFile;
}

/** What other plugins can see of the settings files. */
export interface SettingsApi {
  /** The files read, lowest precedence first (user, project, local). Empty until `kernel.config`. */
  readonly files: readonly LoadedSettings[];
  /** Servers of the project's `.mcp.json` that could not be used, each with why (the mcp plugin reports them as failed). */
  readonly mcpFailures: readonly { name: string; error: string }[];
}

interface SettingsState {
  files: LoadedSettings[];
  mcpFailures: { name: string; error: string }[];
}

const apis = new WeakMap<Kernel, SettingsState>();

/** The settings API of `kernel`. */
export function getSettingsApi(kernel: Kernel): SettingsApi {
  return stateOf(kernel);
}

/** The mutable state behind the API (for the plugin itself). */
export function stateOf(kernel: Kernel): SettingsState {
  let state = apis.get(kernel);
  if (!state) apis.set(kernel, (state = { files: [], mcpFailures: [] }));
  return state;
}

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
