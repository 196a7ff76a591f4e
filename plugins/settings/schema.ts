/** The shape of a settings file. Unknown keys are kept (a later plugin may read them, e.g. `hooks`). */
import { z } from "zod";
import { PERMISSION_MODES } from "../permissions/api";
import { sandboxOptions } from "../sandbox/api";
import { budgetOptions } from "../budget/api";

const rules = z.array(z.string());

/** A settings file's `permissions`. */
export const PermissionsSettingsSchema = z.looseObject({
  allow: rules.optional(),
  deny: rules.optional(),
  ask: rules.optional(),
  defaultMode: z.enum(PERMISSION_MODES).optional(),
  additionalDirectories: z.array(z.string()).optional(),
  /** `"disable"`: no run reading this file is judged in bypassPermissions (Claude Code's key). */
  disableBypassPermissionsMode: z.literal("disable").optional(),
});

/** A settings file, as validated. */
export const SettingsFileSchema = z.looseObject({
  model: z.string().min(1).optional(),
  env: z.record(z.string(), z.string()).optional(),
  permissions: PermissionsSettingsSchema.optional(),
  /** The run's `sandbox` option (Claude Code's `sandbox` settings key). */
  get sandbox() {
    return sandboxOptions.shape.sandbox;
  },
  /** The run's spending caps (`maxBudgetUsd`, `maxBudgetTokens`). */
  get maxBudgetUsd() {
    return budgetOptions.shape.maxBudgetUsd;
  },
  get maxBudgetTokens() {
    return budgetOptions.shape.maxBudgetTokens;
  },
  /** Claude Code plugin folders (`ubiquity plugin add` records them in the user's file): the commands plugin's `claudePlugins`. */
  claudePlugins: z.array(z.string()).optional(),
  /** Servers of the project's `.mcp.json` that may start (Claude Code's key): with it, only these, unless a file says `enableAllProjectMcpServers: true`. */
  enabledMcpjsonServers: z.array(z.string()).optional(),
  /** Servers of the project's `.mcp.json` that never start (Claude Code's key; every file's list counts). */
  disabledMcpjsonServers: z.array(z.string()).optional(),
  /** Every server of the project's `.mcp.json` may start, whatever `enabledMcpjsonServers` lists (Claude Code's key). */
  enableAllProjectMcpServers: z.boolean().optional(),
  /** No shell line of a command or skill runs (Claude Code's key; a restriction: any file's `true` holds, trusted or not). */
  disableSkillShellExecution: z.boolean().optional(),
  /**
   * A command printing the provider's API key (Claude Code's key), run once per process when no
   * `apiKey` is given: the key is the run's `apiKey`, never in the environment. Only the user's own
   * file, the caller's settings and a managed policy run it; a project's is named and not run.
   */
  apiKeyHelper: z.string().min(1).optional(),
  /** The main agent runs as this named agent (Claude Code's key; the agents plugin's `agent` option). */
  agent: z.string().min(1).optional(),
  /** Read by the hooks plugin, not here. */
  hooks: z.unknown().optional(),
  /**
   * Claude Code's key, read by the hooks plugin: no hook of the settings files and Claude Code
   * plugins runs. In the user's own file it turns them all off; in a project's file, that
   * project's only (a project file never turns off the user's hooks). The config's `hooks` option
   * still applies.
   */
  disableAllHooks: z.boolean().optional(),
  /** URL patterns (`*` a wildcard) HTTP hooks may call; the lists of every file and the option join. */
  allowedHttpHookUrls: z.array(z.string()).optional(),
  /** Variables HTTP hooks may put into headers (each hook's own `allowedEnvVars` is narrowed to these). */
  httpHookAllowedEnvVars: z.array(z.string()).optional(),
});

/** The content of a settings file. */
export type SettingsFile = z.output<typeof SettingsFileSchema>;

/** Where settings come from, lowest precedence first. */
export const SETTING_SOURCES = ["user", "project", "local"] as const;
export type SettingSource = (typeof SETTING_SOURCES)[number];
