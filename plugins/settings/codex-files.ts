/**
 * Applying Codex's config files to a run (see ./codex for what is read). Decided here:
 * - the user's `~/.codex/config.toml` is the user's own, as `~/.claude/settings.json` is: its MCP
 *   servers start and its model (on its model_provider's URL and key) and reasoning apply; a project's `.codex/config.toml` does so only
 *   while trusted (under approved digests, only while unchanged) — it names programs to run;
 * - neither file ever loosens: `approval_policy` and `sandbox_mode` apply only where stricter than
 *   the run's mode (from an untrusted file too: they only take power away), `disabled_tools` are
 *   deny rules (which always apply), and nothing widens the sandbox or turns it off;
 * - explicit options win, and `.mcp.json` and the options' own servers win a server's name.
 */
import { ConfigError, type Kernel } from "../../src/index";
import { isProjectFileTrusted, type ProjectTrust } from "../../loader/index";
import type { McpServerConfig } from "../mcp/api";
import { expandAlias, modelAliasesOf } from "../model/api";
import type { PermissionMode } from "../permissions/api";
import type { SandboxOption } from "../sandbox/api";
import { warn } from "../_kits/sources/index";
import { type CodexConfig, type CodexTightening, readCodexConfigFile } from "./codex";
import { stateOf, type LoadedSettings } from "./api";
import { dropDisabledHooks } from "./codex-hook-state";
import type { SettingSource, SettingsFile } from "./schema";

const NAME = "ubiquity:settings";

/** Strictness of a mode: a Codex file may move the run only up this scale. */
const STRICTNESS: Record<PermissionMode, number> = {
  bypassPermissions: 0,
  acceptEdits: 1,
  auto: 1,
  default: 2,
  dontAsk: 3,
  plan: 4,
};

/** A `[features] hooks` switch as read, and the file it is in. */
interface HooksSwitch {
  on: boolean;
  key: string;
  path: string;
}

/** The options a Codex file can fill. */
interface CodexFilled {
  model?: unknown;
  providerSettings?: Record<string, unknown>;
  permissionMode?: PermissionMode;
  sandbox?: SandboxOption;
  reasoning?: string;
  mcpServers?: Record<string, McpServerConfig>;
  /** Only the caller's servers start (claude's --strict-mcp-config): none from a Codex file. */
  strictMcpConfig?: boolean;
}

/** Collects the Codex files of a run, then fills the merged options from them. */
export class CodexFiles {
  private readonly tightenings: CodexTightening[] = [];
  private readonly trusted: CodexConfig[] = [];
  /**
   * The `[features] hooks` (or `codex_hooks`) switch of the user's file and of the project's (the
   * last of each read): the user's decides the user's own hook files, the project's (else the
   * user's) the project's.
   */
  private readonly hooksFeature: { user?: HooksSwitch; project?: HooksSwitch } = {};
  /** The handlers `[hooks.state]` turns off, each with whose file said so. */
  private readonly disabledHooks: { key: string; byUser: boolean }[] = [];

  constructor(
    private readonly kernel: Kernel,
    private readonly trust: ProjectTrust | undefined,
    /** `--profile`'s name: the user's file's profile (a project file keeps its own `profile` key). */
    private readonly profile?: string,
  ) {}

  /** Read one file; its settings part (model, deny rules) goes through `apply`, as a settings file's does. */
  read(
    source: SettingSource,
    path: string,
    apply: (source: SettingSource, path: string, settings: SettingsFile) => void,
  ): void {
    const config = readCodexConfigFile(
      path,
      (message) => warn(this.kernel, NAME, message),
      process.env,
      source === "user" ? this.profile : undefined,
    );
    if (!config && source === "user" && this.profile !== undefined)
      throw new ConfigError(`--profile ${this.profile}: there is no Codex config file to take it from`, path);
    if (!config) return;
    this.tightenings.push(config.tightening);
    apply(source, path, config.settings);
    const byUser = source === "user";
    // Turning a skill off is the user's choice in Codex: its [[skills.config]] is read from ~/.codex/config.toml alone.
    if (byUser) stateOf(this.kernel).skillSwitches.push(...config.skillSwitches);
    else if (config.skillSwitches.length)
      warn(
        this.kernel,
        NAME,
        `${path}: its [[skills.config]] entries are not applied: Codex reads them from the user's ~/.codex/config.toml alone`,
      );
    if (!byUser && !isProjectFileTrusted(this.trust, path)) {
      // Turning a hook off is no restriction: a PreToolUse hook that blocks is a guard, and an
      // untrusted project file turned the user's off (red team zl, ZL1). Its switches apply to nothing.
      this.kernel.logger.debug(
        `[${NAME}] ${path}: not trusted (its folder is not, or it changed since it was approved); its MCP servers do not start, and its switches that turn hooks off ([features] hooks, [hooks.state]) do not apply`,
      );
      return;
    }
    if (config.hooksFeature !== undefined)
      this.hooksFeature[byUser ? "user" : "project"] = { ...config.hooksFeature, path };
    this.disabledHooks.push(...config.disabledHooks.map((key) => ({ key, byUser })));
    this.trusted.push(config);
    // The project's file is read after the user's: its project_doc_max_bytes wins, as in Codex.
    if (config.projectDocBytes !== undefined) stateOf(this.kernel).codexProjectDocBytes = config.projectDocBytes;
    stateOf(this.kernel).mcpFailures.push(...config.failed.map((f) => ({ ...f, error: `${f.error} (in ${path})` })));
    for (const { name, error } of config.failed)
      warn(this.kernel, NAME, `${path}: MCP server "${name}" was not started: ${error}`);
  }

  /**
   * `[features] hooks = false` (or `codex_hooks = false`) turns off the Codex hooks (hooks.json's and `[hooks]` tables)
   * it decides: they are taken out of the files read (`codex`: whether a file is Codex's), and that is said
   * once per switch. A project's switch decides the project's hook files only, never the user's own (as
   * Claude Code's `disableAllHooks` is read: ../hooks/settings-hooks.ts).
   */
  dropHooksIfOff(files: LoadedSettings[], codex: (path: string) => boolean): void {
    const { user, project } = this.hooksFeature;
    for (const which of [user, project]) {
      if (which?.on !== false) continue;
      const off = files.filter(
        (f) =>
          codex(f.path) && f.settings.hooks !== undefined && (f.source === "user" ? user : (project ?? user)) === which,
      );
      if (!off.length) continue;
      for (const f of off) f.settings = { ...f.settings, hooks: undefined };
      warn(
        this.kernel,
        NAME,
        `${which.path}: [features] ${which.key} = false, so the Codex hooks of ${off.map((f) => f.path).join(", ")} do not run`,
      );
    }
  }

  /**
   * Take out of the Codex hook files among `files` the handlers a `[hooks.state]` turned off (`enabled = false`):
   * the user's file's keys reach any hook file, a project's only the project's.
   */
  dropDisabledHooks(files: LoadedSettings[], codex: (path: string) => boolean): void {
    const dropped = [
      ...dropDisabledHooks(
        files,
        this.disabledHooks.filter((d) => d.byUser).map((d) => d.key),
        codex,
      ),
      ...dropDisabledHooks(
        files,
        this.disabledHooks.filter((d) => !d.byUser).map((d) => d.key),
        (path) => codex(path) && files.some((f) => f.path === path && f.source !== "user"),
      ),
    ];
    for (const hook of dropped)
      this.kernel.logger.debug(`[${NAME}] ${hook}: turned off in Codex's [hooks.state] (enabled = false), not run`);
  }

  /**
   * Codex's `-m <name>`: a model name without a provider (`--model gpt-5-mini`) runs on the
   * model_provider of the last trusted Codex file that names a model, with that provider's URL and
   * key, as `codex exec -m` does; the name is the caller's, the server and key the file's. `test`
   * and an alias (modelAliases, UBIQUITY_MODEL_ALIASES) keep their meaning.
   */
  private onFileProvider(out: CodexFilled): Pick<CodexFilled, "model" | "providerSettings"> {
    const name = out.model;
    if (typeof name !== "string" || !name || name.includes(":") || name === "test") return {};
    if (expandAlias(name, modelAliasesOf(out)) !== name) return {};
    const file = this.trusted.findLast((c) => typeof c.settings.model === "string" && c.settings.model.includes(":"));
    if (!file) return {};
    const model = `${(file.settings.model as string).split(":")[0]}:${name}`;
    this.kernel.logger.debug(`[${NAME}] --model ${name}: ${model}, on the Codex file's model_provider`);
    return { model, ...(file.provider && { providerSettings: file.provider.settings }) };
  }

  /** Fill `merged` (the options after the settings files) from the files read; `given` are the caller's options. */
  fill<T extends CodexFilled>(merged: T, given: CodexFilled, declared: (key: string) => boolean): T {
    if (!this.tightenings.length) return merged;
    const out = { ...merged };
    const strictest = this.tightenings
      .filter((t) => t.mode)
      .sort((a, b) => STRICTNESS[b.mode!] - STRICTNESS[a.mode!])[0];
    const current = out.permissionMode ?? "default";
    if (strictest?.mode && given.permissionMode === undefined && declared("permissionMode"))
      if (STRICTNESS[strictest.mode] > STRICTNESS[current]) {
        out.permissionMode = strictest.mode;
        this.kernel.logger.debug(`[${NAME}] ${strictest.path}: the run is judged in ${strictest.mode} mode`);
      }
    // The sandbox is on unless something turned it off; a trusted Codex file that wants it turns it back on.
    const off = out.sandbox === false || (typeof out.sandbox === "object" && out.sandbox.enabled === false);
    const wants = this.trusted.some((c) => c.tightening.sandbox);
    if (off && wants && given.sandbox === undefined && declared("sandbox"))
      out.sandbox = typeof out.sandbox === "object" ? { ...out.sandbox, enabled: true } : true;
    const reasoning = this.trusted
      .map((c) => c.reasoning)
      .filter((r) => r !== undefined)
      .at(-1);
    if (reasoning && given.reasoning === undefined && declared("reasoning")) out.reasoning = reasoning;
    // A custom model_provider's URL and key go with the model that file named, never with another one
    // (an explicit --model of another provider must not be sent to that server, nor with its key).
    const provider = this.trusted.map((c) => c.provider).findLast((p) => p !== undefined && p.model === out.model);
    if (provider && given.providerSettings === undefined && declared("providerSettings"))
      out.providerSettings = provider.settings;
    else if (given.providerSettings === undefined && declared("providerSettings"))
      Object.assign(out, this.onFileProvider(out));
    const servers = Object.assign({}, ...this.trusted.map((c) => c.servers)) as Record<string, McpServerConfig>;
    if (Object.keys(servers).length && declared("mcpServers") && !given.strictMcpConfig)
      out.mcpServers = { ...servers, ...(out.mcpServers ?? {}) };
    return out;
  }
}
