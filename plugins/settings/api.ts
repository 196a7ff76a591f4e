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
  /** A managed policy file (the organisation's, above every other; its `source` is `user`: it is never a project's). */
  managed?: boolean;
}

/**
 * One `[[skills.config]]` entry of the user's Codex config.toml: the skill at `path` (its SKILL.md
 * or its folder) or named `name` is offered only when the last entry for it says `enabled`.
 */
export interface SkillSwitch {
  /** The skill's SKILL.md or its folder, absolute (`~/` and a path relative to the config file resolved). */
  path?: string;
  /** The skill's name (every loaded skill of that name). */
  name?: string;
  /** Whether the skill is offered. */
  enabled: boolean;
  /** The config file it was read from. */
  file: string;
}

/** What other plugins can see of the settings files. */
export interface SettingsApi {
  /** The files read, lowest precedence first (user, project, local). Empty until `kernel.config`. */
  readonly files: readonly LoadedSettings[];
  /**
   * Every settings file the enabled sources name, read or not (one that does not exist yet is
   * here too): what a change during the session would be to (the hooks plugin's ConfigChange).
   */
  readonly places: readonly { source: SettingSource; path: string }[];
  /** Servers of the project's `.mcp.json` that could not be used, each with why (the mcp plugin reports them as failed). */
  readonly mcpFailures: readonly { name: string; error: string }[];
  /** The user's Codex `[[skills.config]]` entries, in file order (the skills plugin applies them). */
  readonly skillSwitches: readonly SkillSwitch[];
  /**
   * Codex's `project_doc_max_bytes` (the bytes of the project's AGENTS.md files read in all), from
   * the user's `~/.codex/config.toml` or a trusted project's `.codex/config.toml` (the project's
   * wins); unset when neither says (the memory plugin keeps Codex's default, 32 KiB).
   */
  readonly codexProjectDocBytes?: number;
}

interface SettingsState {
  files: LoadedSettings[];
  places: { source: SettingSource; path: string }[];
  mcpFailures: { name: string; error: string }[];
  skillSwitches: SkillSwitch[];
  codexProjectDocBytes?: number;
  /** The user's `apiKeyHelper` that gave the run its key, and the folder it runs in (kept fresh: key-helper.ts). */
  keyHelper?: { command: string; home: string };
}

const apis = new WeakMap<Kernel, SettingsState>();

/** The settings API of `kernel`. */
export function getSettingsApi(kernel: Kernel): SettingsApi {
  return stateOf(kernel);
}

/** The mutable state behind the API (for the plugin itself). */
export function stateOf(kernel: Kernel): SettingsState {
  let state = apis.get(kernel);
  if (!state) apis.set(kernel, (state = { files: [], places: [], mcpFailures: [], skillSwitches: [] }));
  return state;
}

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
