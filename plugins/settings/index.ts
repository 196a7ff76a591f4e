/**
 * `ubiquity:settings`: settings files, only when `settingSources` asks for them —
 * `user` ~/.ubiquity/settings.json, `project` <cwd>/.ubiquity/settings.json (and the MCP
 * servers of <cwd>/.mcp.json), `local` <cwd>/.ubiquity/settings.local.json. Local beats project
 * beats user, and explicit options beat all three — except permission rules, which are unioned:
 * a rule in a settings file is a restriction the caller did not write, so passing a list of
 * one's own must not drop it. A file that exists but cannot be used stops the run (fail closed:
 * skipping it would drop its deny rules). With `trust: false` — or, under approved digests
 * (`TrustPins`), when the file is new or changed since it was approved — a project or local file only
 * takes power away: its deny and ask rules and spending caps apply, nothing else does (a cap is
 * the smallest any file sets, so a file only ever tightens it).
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { z } from "zod";
import { ConfigError, describeError, fieldsOf, type Kernel, type UbiquityConfig } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import type { McpOptions, McpServerConfig } from "../mcp/index";
import { getPermissionsApi, permissionsReadHere, type PermissionsOptions } from "../permissions/api";
import type { SandboxOptions } from "../sandbox/api";
import { readMcpConfigEntries } from "../mcp/api";
import { readJsonConfigFile, readSettingsFile, settingsPath } from "./read";
import { findConfigFile, isProjectFileTrusted, isUsersOwn } from "../../loader/index";
import { SETTING_SOURCES, type SettingsFile } from "./schema";
import { stateOf, type LoadedSettings } from "./api";
import { settingsOptions, type SettingsOptions } from "./options";
import { settingsProjectFiles } from "./project-files";
import { compatPaths, warn, warnOnce } from "../_kits/sources/index";
import type { SkillsOptions } from "../skills/index";
import { claudeSettingsOf, readClaudeSettingsFile } from "./claude";
import { claudeJsonNote } from "./claude-json";
import { settingsFlags } from "./cli";
import { CodexFiles } from "./codex-files";
import { readCodexHooksFile } from "./codex";
import { readCodexRulesFolder } from "./codex-rules";
import { readManagedFiles, systemManagedFiles } from "./managed";
import { freshHelperKeys, keyFromHelper } from "./key-helper";
import { getModelApi } from "../model/api";
import "./init-fields";

export const NAME = "ubiquity:settings";

/** A config as this plugin reads and writes it: its own keys and the keys it fills from settings files. */
type SettingsConfig = UbiquityConfig &
  SettingsOptions &
  PermissionsOptions &
  SandboxOptions &
  McpOptions &
  Pick<SkillsOptions, "claudePlugins" | "disableSkillShellExecution"> & { agent?: string };

/** Options of the settings plugin. */
export const SettingsPluginOptions = z.strictObject({
  home: z.string().optional().describe("The folder holding the user's .ubiquity/settings.json [os.homedir()]"),
  managedFiles: z
    .array(z.string().min(1))
    .optional()
    .describe(
      "More managed policy files in ubiquity's format, read after the system's (/etc/ubiquity/managed-settings.json, …) and as they are: a policy kept elsewhere, or a test's. They add to the system's, never replace it",
    ),
});
export type SettingsPluginOptions = z.input<typeof SettingsPluginOptions>;

/** The settings plugin. */
export const settingsPlugin = definePlugin({
  name: NAME,
  factoryOptions: SettingsPluginOptions,
  options: settingsOptions,
  projectFiles: settingsProjectFiles,
  flags: settingsFlags,
  apply(kernel, context) {
    const opts = context.factoryOptions;
    // A short-lived key from the user's apiKeyHelper is renewed as it ages or when refused (key-helper.ts).
    getModelApi(kernel).addFetchWrapper(
      NAME,
      freshHelperKeys(() => stateOf(kernel).keyHelper),
    );
    // `system/init` names the managed policy files, so an administrator can see that they hold (see ./init-fields.ts).
    kernel.hooks.session.start.tap(NAME, (run) => {
      const managed = stateOf(kernel).files.filter((f) => f.managed);
      if (managed.length > 0 && !run.agent) run.initFields.managedPolicy = managed.map((f) => f.path);
    });
    kernel.hooks.kernel.config.tap(NAME, (config: UbiquityConfig) => {
      const options = config as SettingsConfig;
      const wanted = new Set(options.settingSources ?? []);
      const cwd = resolve(options.cwd ?? process.cwd());
      const home = opts.home ?? homedir();
      // Claude Code's files (compat: ["claude"]), each just before ours of the same source: ours win.
      const claude = compatPaths(
        "settings",
        { compat: options.compat, sources: options.settingSources },
        { cwd, home },
      );
      compatNotes(kernel, options, wanted, cwd, home);
      const managed = managedPolicy(kernel, opts.managedFiles, cwd, home);
      if (wanted.size === 0 && claude.length === 0 && options.settings === undefined && managed.length === 0)
        return options;
      const files: LoadedSettings[] = [];
      const codex = new CodexFiles(kernel, options.trust, options.codexProfile);
      stateOf(kernel).mcpFailures = [];
      const places: { source: (typeof SETTING_SOURCES)[number]; path: string }[] = [];
      // The files that apply only as restrictions (not trusted): their lists may only narrow.
      const restricted = new Set<string>();
      let mcpServers: Record<string, McpServerConfig> | undefined;
      // `whole`: the file applies in full (unset: as its source and trust say); `place`: a file of a
      // settings source (ConfigChange watches those), not the caller's own settings.
      const apply: ApplyFile = (source, path, read, whole, place = true) => {
        if (place) places.push({ source, path });
        if (!read) return;
        // A project or local file applies in full only while trusted: under approved digests, only while unchanged.
        const full = whole ?? (source === "user" || isProjectFileTrusted(options.trust, path));
        const settings = full ? read : restrictionsOnly(read);
        if (!full) {
          restricted.add(path);
          kernel.logger.debug(
            `[${NAME}] ${path}: not trusted (its folder is not, or it changed since it was approved); only its deny and ask rules and spending caps (which only tighten) apply`,
          );
        }
        applyRules(kernel, settings, `settings (${source}: ${path})`, path);
        files.push({ source, path, settings });
      };
      for (const source of SETTING_SOURCES) {
        for (const other of claude.filter((c) => c.source === source))
          readOtherFile(kernel, other, source, codex, apply, cwd, home);
        if (!wanted.has(source)) continue;
        const path = settingsPath(source, cwd, home);
        apply(
          source,
          path,
          readSettingsFile(path, (message) => warn(kernel, NAME, message)),
        );
        const mcpJson = join(cwd, ".mcp.json");
        if (source === "project" && !options.strictMcpConfig && isProjectFileTrusted(options.trust, mcpJson))
          mcpServers = readMcpJson(kernel, mcpJson);
      }
      if (options.settings !== undefined) callerSettings(kernel, options, cwd, home, apply);
      // Above everything else, the caller's own settings included; its hooks run as the user's own do.
      for (const { path, settings } of managed) files.push({ source: "user", path, settings, managed: true });
      const isCodex = (path: string) => claude.some((c) => c.tool === "codex" && c.path === path);
      codex.dropHooksIfOff(files, isCodex);
      codex.dropDisabledHooks(files, isCodex);
      if (files.length > 0) sameCopy(kernel, files[0]!.path);
      stateOf(kernel).files = files;
      stateOf(kernel).places = places;
      // A key only a plugin reads is filled only when that plugin is in the list (else it would be an unknown key).
      const declared = (key: string) => kernel.plugins.some((p) => key in fieldsOf(p.plugin.options));
      const merged = merge(
        options,
        files.map((f) => f.settings),
        declared,
      );
      if (mcpServers) mcpServers = startable(kernel, mcpServers, files, restricted);
      enforceManaged(kernel, merged, options, files, declared);
      apiKeyFromHelper(kernel, merged, options, files, declared, home);
      noBypass(kernel, merged, files);
      if (mcpServers && declared("mcpServers")) merged.mcpServers = { ...mcpServers, ...options.mcpServers };
      return codex.fill(merged, options, declared);
    });
  },
});

/** Applies one settings file: `whole` says it applies in full (unset: as its source and trust say); `place` that it is a settings source's file. */
type ApplyFile = (
  source: (typeof SETTING_SOURCES)[number],
  path: string,
  read: SettingsFile | undefined,
  whole?: boolean,
  place?: boolean,
) => void;

/** One Claude Code or Codex file of a settings source, read and applied: a Codex config with the rules folder beside it. */
function readOtherFile(
  kernel: Kernel,
  other: { tool: string; path: string },
  source: (typeof SETTING_SOURCES)[number],
  codex: CodexFiles,
  apply: ApplyFile,
  cwd: string,
  home: string,
): void {
  const say = (message: string) => warn(kernel, NAME, message);
  if (other.tool === "codex" && basename(other.path) === "hooks.json")
    apply(source, other.path, readCodexHooksFile(other.path, say));
  else if (other.tool !== "codex") apply(source, other.path, readClaudeSettingsFile(other.path, say, cwd, home));
  else {
    codex.read(source, other.path, apply);
    // Its command rules, next to it: forbidden and prompt rules restrict from any file.
    const rules = join(dirname(other.path), "rules");
    apply(source, rules, readCodexRulesFolder(rules, source === "user", say), undefined, false);
  }
}

/**
 * The organisation's policy: the system's managed files and those the plugin's `managedFiles`
 * adds, read by every run whatever the sources, compat and trust say; their rules handed on.
 */
function managedPolicy(
  kernel: Kernel,
  more: readonly string[] | undefined,
  cwd: string,
  home: string,
): { path: string; settings: SettingsFile }[] {
  const extra = (more ?? []).map((path) => ({ path: resolve(cwd, path), format: "ubiquity" as const }));
  const managed = readManagedFiles([...systemManagedFiles(), ...extra], (m) => warn(kernel, NAME, m), cwd, home);
  for (const { path, settings } of managed) applyRules(kernel, settings, `managed policy (${path})`, path, true);
  return managed;
}

/** What the run's `compat` leaves unread that a user would expect read (Claude Code's project files, a moved CODEX_HOME), and a `codexProfile` without Codex's files. */
function compatNotes(kernel: Kernel, options: SettingsConfig, wanted: Set<string>, cwd: string, home: string): void {
  if (wanted.has("project") && options.compat === undefined)
    unreadClaudeSettings(kernel, cwd, skippedConfig(cwd, home, options.trust), wanted.has("user") ? home : undefined);
  if (options.compat?.includes("claude") && (options.settingSources === undefined || wanted.has("user"))) {
    const note = claudeJsonNote(home, cwd);
    if (note) warnOnce(kernel, NAME, note);
  }
  if (options.compat?.includes("codex")) unreadCodexHome(kernel, home);
  else if (options.codexProfile !== undefined)
    throw new ConfigError(
      `codexProfile "${options.codexProfile}" (--profile) selects a profile of Codex's ~/.codex/config.toml, which is read only with compat: ["codex"]: pass --compat codex too`,
    );
}

/**
 * A project's Claude Code settings file is read only under `compat: ["claude"]`: someone used to
 * `claude -p` expects its deny rules and hooks to hold, so a run that reads project settings says
 * that they do not (an explicit `compat`, even `[]`, is a choice and silences it).
 */
function unreadClaudeSettings(kernel: Kernel, cwd: string, skipped: string | undefined, home?: string): void {
  const found = ["settings.json", "settings.local.json"].find((name) => existsSync(join(cwd, ".claude", name)));
  // Without settings, a CLAUDE.md alone (what most Claude Code projects have): its instructions are dropped as silently.
  const memory = found
    ? undefined
    : ["CLAUDE.md", join(".claude", "CLAUDE.md")].find((name) => existsSync(join(cwd, name)));
  if (!found && !memory) return;
  // The user's own ~/.claude/settings.json (their deny rules, their hooks) is as unread: said with the project's file, never alone (it is in every folder).
  const user = home === undefined ? undefined : join(home, ".claude", "settings.json");
  const also =
    user && existsSync(user) ? ` (nor is ${user}: your own permission rules and hooks do not apply either)` : "";
  const what = found
    ? `${join(cwd, ".claude", found)} is Claude Code's settings file and is not read, so its permission rules and hooks do not apply${also}`
    : `${join(cwd, memory!)} is Claude Code's memory file and is not read, so its instructions do not reach the model${also}`;
  // The project's config may say compat: ["claude"] already, and be skipped for want of trust.
  if (skipped) {
    warnOnce(
      kernel,
      NAME,
      `${what}: the project's config ${skipped}, which may set compat: ["claude"], was not applied (the folder is not trusted, or the file changed since it was approved: see the warning about the folder's files); approve it with \`ubiquity trust .\`, or pass --compat claude to \`ubiquity run\``,
    );
    return;
  }
  warnOnce(
    kernel,
    NAME,
    `${what}: set compat: ["claude"] to read Claude Code's files (CLAUDE.md, .claude/settings.json, skills, agents, commands). In a program, with summon()'s options: summon(prompt, { compat: ["claude"], settingSources: ["project"], … }) (the Claude Agent SDK's settingSources: ["project"] read them alone). For \`ubiquity run\`, in the project's config — ubiquity.config.ts: \`export default defineConfig({ compat: ["claude"] })\`, or .ubiquityrc.json: {"compat": ["claude"]} — or with --compat claude; then trust the folder (\`ubiquity trust .\`). compat: [] keeps them unread without this warning`,
  );
}

/** The project's config file when there is one and `trust` keeps it out of the run (its path from `cwd`), else undefined. */
function skippedConfig(cwd: string, home: string, trust: SettingsOptions["trust"]): string | undefined {
  let file: string | undefined;
  try {
    file = findConfigFile(cwd, home);
  } catch {
    return undefined; // two config files in one folder: the runner has stopped on it already
  }
  if (!file || isProjectFileTrusted(trust, file)) return undefined;
  return relative(cwd, file) || file;
}

/**
 * Codex reads its files from `$CODEX_HOME` when it is set; they are read from `~/.codex` here, so a
 * user who moved them would see their config, AGENTS.md and prompts silently missing: say so.
 */
function unreadCodexHome(kernel: Kernel, home: string): void {
  const moved = process.env.CODEX_HOME?.trim();
  if (!moved || resolve(home, moved) === join(home, ".codex")) return;
  warnOnce(
    kernel,
    NAME,
    `CODEX_HOME is ${moved}, which is not read: Codex's config.toml, AGENTS.md and prompts/ are read from ${join(home, ".codex")} (link it there: ln -s ${moved} ${join(home, ".codex")})`,
  );
}

/**
 * What an untrusted file may still say: rules that take power away (a spending cap only ever
 * tightens, see `merge`; so do the lists of `.mcp.json` servers that may or may not start, and
 * `disableSkillShellExecution: true`).
 */
function restrictionsOnly(settings: SettingsFile): SettingsFile {
  const { deny, ask, disableBypassPermissionsMode } = settings.permissions ?? {};
  const { maxBudgetUsd, maxBudgetTokens, enabledMcpjsonServers, disabledMcpjsonServers, disableSkillShellExecution } =
    settings;
  return {
    permissions: {
      ...(deny ? { deny } : {}),
      ...(ask ? { ask } : {}),
      ...(disableBypassPermissionsMode && { disableBypassPermissionsMode }),
    },
    ...(maxBudgetUsd !== undefined && { maxBudgetUsd }),
    ...(maxBudgetTokens !== undefined && { maxBudgetTokens }),
    ...(enabledMcpjsonServers !== undefined && { enabledMcpjsonServers }),
    ...(disabledMcpjsonServers !== undefined && { disabledMcpjsonServers }),
    ...(disableSkillShellExecution === true && { disableSkillShellExecution }),
  };
}

/**
 * A file saying `"disableBypassPermissionsMode": "disable"` (a restriction: it holds in an untrusted
 * file too) keeps the run out of bypassPermissions, as Claude Code refuses the mode: asked for by
 * the options or a file, the run is judged in the default mode instead, with a warning naming the file.
 */
function noBypass(kernel: Kernel, config: SettingsConfig, files: readonly LoadedSettings[]): void {
  const by = files.find((f) => f.settings.permissions?.disableBypassPermissionsMode === "disable");
  if (!by) return;
  // A live session's setPermissionMode (an editor's mode menu) is refused the mode too.
  if (kernel.hasPlugin("ubiquity:permissions"))
    getPermissionsApi(kernel).refuseMode(
      "bypassPermissions",
      `${by.path} says "disableBypassPermissionsMode": "disable"`,
    );
  if (config.permissionMode !== "bypassPermissions") return;
  config.permissionMode = "default";
  warn(
    kernel,
    NAME,
    `${by.path}: "disableBypassPermissionsMode": "disable" refuses bypassPermissions; the run is judged in the default mode`,
  );
}

/**
 * The managed policy above the run's own options (Claude Code: "no other level can override them,
 * including command line arguments"): its sandbox, permission mode and `env` win over the options'
 * (`--no-sandbox`, `--permission-mode`, the config), each overruled option said in a warning; its
 * spending caps hold against a larger one of the options. A policy whose plugin the run lacks (the
 * sandbox, the hooks) stops the run rather than go without it.
 */
function enforceManaged(
  kernel: Kernel,
  out: SettingsConfig,
  options: SettingsConfig,
  files: readonly LoadedSettings[],
  declared: (key: string) => boolean,
): void {
  const managed = files.filter((f) => f.managed);
  const last = <T>(pick: (f: SettingsFile) => T | undefined) =>
    managed
      .map((f) => ({ path: f.path, value: pick(f.settings) }))
      .filter((v): v is { path: string; value: T } => v.value !== undefined)
      .at(-1);
  const missing = (what: string, plugin: string, path: string) =>
    new ConfigError(
      `the managed policy sets ${what}, and the run has no ${plugin} plugin (disabled, replaced or left out of the preset): the run stops rather than run without it`,
      path,
    );
  const overruled = (key: "sandbox" | "permissionMode", path: string, value: unknown) => {
    if (options[key] !== undefined && JSON.stringify(options[key]) !== JSON.stringify(value))
      warn(
        kernel,
        NAME,
        `${path}: the managed policy sets the ${key === "sandbox" ? "sandbox" : "permission mode"} (${JSON.stringify(value)}); the run's own ${key} ${JSON.stringify(options[key])} (a flag, an option or the config) is not applied`,
      );
  };
  const sandbox = last((f) => f.sandbox);
  if (sandbox) {
    if (!declared("sandbox")) throw missing('"sandbox"', "ubiquity:sandbox", sandbox.path);
    overruled("sandbox", sandbox.path, sandbox.value);
    out.sandbox = sandbox.value;
  }
  const mode = last((f) => f.permissions?.defaultMode);
  if (mode && declared("permissionMode")) {
    overruled("permissionMode", mode.path, mode.value);
    out.permissionMode = mode.value;
  }
  const hooks = last((f) => f.hooks);
  if (hooks && !kernel.hasPlugin("ubiquity:hooks")) throw missing('"hooks"', "ubiquity:hooks", hooks.path);
  for (const key of ["maxBudgetUsd", "maxBudgetTokens"] as const) {
    const caps = managed.map((f) => f.settings[key]).filter((v): v is number => typeof v === "number");
    const own = options[key];
    if (caps.length > 0 && declared(key))
      out[key] = Math.min(...caps, typeof own === "number" ? own : Number.POSITIVE_INFINITY);
  }
  const env = Object.assign({}, ...managed.map((f) => f.settings.env ?? {})) as Record<string, string>;
  if (Object.keys(env).length > 0) out.env = { ...out.env, ...env };
}

/**
 * `apiKeyHelper` (Claude Code's key): the run's `apiKey` is what the highest-precedence helper of
 * the user's own file, the caller's settings or a managed policy prints, unless the options give
 * one. A project's file never sets the provider's key (it would be the project's to choose): its
 * helper is named and not run.
 */
function apiKeyFromHelper(
  kernel: Kernel,
  out: SettingsConfig,
  options: SettingsConfig,
  files: readonly LoadedSettings[],
  declared: (key: string) => boolean,
  home: string,
): void {
  for (const f of files.filter((f) => f.source !== "user" && f.settings.apiKeyHelper !== undefined))
    warn(
      kernel,
      NAME,
      `${f.path}: its apiKeyHelper is not run: a project's file never sets the provider's key (put it in ~/.claude/settings.json or ~/.ubiquity/settings.json)`,
    );
  const own = files.filter((f) => f.source === "user" && f.settings.apiKeyHelper !== undefined).at(-1);
  if (!own || options.apiKey !== undefined || !declared("apiKey")) return;
  (out as { apiKey?: string }).apiKey = keyFromHelper(own.settings.apiKeyHelper!, own.path, home);
  stateOf(kernel).keyHelper = { command: own.settings.apiKeyHelper!, home };
}

/**
 * The servers of `.mcp.json` the settings files let start, as Claude Code decides which project
 * servers are approved: none listed in any file's `disabledMcpjsonServers`; when a file lists
 * `enabledMcpjsonServers`, only those (every file's list counts) unless the highest-precedence file
 * that sets `enableAllProjectMcpServers` sets it true. Each server left out is reported. A file
 * that applies only as restrictions (`restricted`: not trusted) is no approval: its list narrows,
 * a server must be on it too, and never adds one — unioned with the user's approvals, a new
 * project file's list started a server of the trusted .mcp.json that the user had left out (red
 * team zl, ZL2).
 */
function startable(
  kernel: Kernel,
  servers: Record<string, McpServerConfig>,
  files: readonly LoadedSettings[],
  restricted: ReadonlySet<string>,
): Record<string, McpServerConfig> {
  const disabled = new Set(files.flatMap((f) => f.settings.disabledMcpjsonServers ?? []));
  const listed = (f: LoadedSettings) => (f.settings.enabledMcpjsonServers ? [f.settings.enabledMcpjsonServers] : []);
  const lists = files.filter((f) => !restricted.has(f.path)).flatMap(listed);
  const narrowing = files.filter((f) => restricted.has(f.path)).flatMap(listed);
  const all =
    files
      .map((f) => f.settings.enableAllProjectMcpServers)
      .filter((v) => v !== undefined)
      .at(-1) === true;
  const enabled = lists.length > 0 && !all ? new Set(lists.flat()) : undefined;
  const out: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(servers)) {
    if (disabled.has(name))
      warn(kernel, NAME, `MCP server "${name}" of .mcp.json was not started: disabledMcpjsonServers lists it`);
    else if ((enabled && !enabled.has(name)) || narrowing.some((list) => !list.includes(name)))
      warn(kernel, NAME, `MCP server "${name}" of .mcp.json was not started: enabledMcpjsonServers does not list it`);
    else out[name] = server;
  }
  return out;
}

/**
 * The servers of a project's `.mcp.json` (Claude Code's file), or undefined when there is none.
 * Entry by entry: a bad entry or an unset `${VAR}` fails only its server (reported by the mcp
 * plugin as failed, and warned here naming it); an unknown key is warned about and ignored. A file
 * that is not JSON, or not an object of servers, still stops the run.
 */
function readMcpJson(kernel: Kernel, path: string): Record<string, McpServerConfig> | undefined {
  const data = readJsonConfigFile(path, "MCP config file");
  if (data === undefined) return undefined;
  // ${CLAUDE_PROJECT_DIR} stands for the project (the folder holding the file), as in Claude Code.
  const entries = readMcpConfigEntries(data, {
    env: { ...process.env, CLAUDE_PROJECT_DIR: dirname(path) },
    source: path,
  });
  for (const message of entries.warnings) warn(kernel, NAME, `${path}: ${message}`);
  for (const { name, error } of entries.failed)
    warn(kernel, NAME, `${path}: MCP server "${name}" was not started: ${error}`);
  stateOf(kernel).mcpFailures.push(...entries.failed.map((f) => ({ ...f, error: `${f.error} (in ${path})` })));
  return entries.servers;
}

/**
 * Hand a file's permission rules to the permissions plugin; a malformed rule stops the run, naming
 * the file. A managed policy's rules without the permissions plugin stop it too (`required`).
 */
function applyRules(kernel: Kernel, settings: SettingsFile, source: string, path: string, required = false): void {
  const p = settings.permissions;
  if (!p?.allow?.length && !p?.deny?.length && !p?.ask?.length) return;
  sameCopy(kernel, path);
  if (required && !kernel.hasPlugin("ubiquity:permissions"))
    throw new ConfigError(
      "the managed policy has permission rules, and the run has no ubiquity:permissions plugin (disabled or left out of the preset): the run stops rather than run without them",
      path,
    );
  try {
    getPermissionsApi(kernel).addRules({ allow: p.allow, deny: p.deny, ask: p.ask }, source);
  } catch (error) {
    throw new ConfigError(`${describeError(error)}; fix the rule or remove it`, path);
  }
  if (!kernel.hasPlugin("ubiquity:permissions")) {
    warn(
      kernel,
      NAME,
      `the permission rules in ${path} have no effect: the ubiquity:permissions plugin is not in the plugin list`,
    );
  }
}

/**
 * The settings files' rules and hooks reach the other plugins through their APIs, which live in
 * each copy of ubiquity's modules: a settings plugin of another copy than the permissions plugin
 * (a config importing `ubiquity/plugins/settings` from the project's install, run by a global bin)
 * handed every rule to a copy nobody reads — a managed policy's deny rules and hooks silently
 * absent while `system/init` named the policy (red team zm, ZM3). The run stops instead.
 */
function sameCopy(kernel: Kernel, path: string): void {
  if (permissionsReadHere(kernel)) return;
  throw new ConfigError(
    "the settings plugin and the permissions plugin come from two copies of ubiquity (the config imports one, the runner is another): this file's rules and hooks would never reach them, so the run stops. Run the copy the config imports (`npx ubiquity` in the project), or import the plugins from the runner's copy",
    path,
  );
}

/** Settings under the options: the highest-precedence file that sets a value wins, and an explicit option beats them all. */
function merge(options: SettingsConfig, files: SettingsFile[], declared: (key: string) => boolean): SettingsConfig {
  const last = <T>(pick: (f: SettingsFile) => T | undefined): T | undefined =>
    files
      .map(pick)
      .filter((v) => v !== undefined)
      .at(-1);
  const out: SettingsConfig = { ...options };
  const model = last((f) => f.model);
  if (options.model === undefined && model !== undefined) out.model = model;
  const mode = last((f) => f.permissions?.defaultMode);
  if (options.permissionMode === undefined && mode !== undefined && declared("permissionMode"))
    out.permissionMode = mode;
  const agent = last((f) => f.agent);
  if (options.agent === undefined && agent !== undefined && declared("agent")) out.agent = agent;
  const dirs = last((f) => f.permissions?.additionalDirectories);
  if (options.additionalDirectories === undefined && dirs !== undefined) out.additionalDirectories = dirs;
  // A file can turn the sandbox on; turning it off takes power away from none of them, so a
  // more specific file cannot switch off what another file switched on.
  const sandboxes = files.map((f) => f.sandbox).filter((v) => v !== undefined);
  const on = (v: (typeof sandboxes)[number]) => v === true || (typeof v === "object" && v.enabled !== false);
  const sandbox = sandboxes.filter(on).at(-1) ?? sandboxes.at(-1);
  if (options.sandbox === undefined && sandbox !== undefined && declared("sandbox")) out.sandbox = sandbox;
  // A spending cap is the smallest any file sets: a project may tighten the user's cap, never loosen it.
  for (const key of ["maxBudgetUsd", "maxBudgetTokens"] as const) {
    const caps = files.map((f) => f[key]).filter((v) => v !== undefined);
    const cap = caps.length > 0 ? Math.min(...caps) : undefined;
    if (options[key] === undefined && cap !== undefined && declared(key)) out[key] = cap;
  }
  // Shell lines off is a restriction: any file's true holds, and none turns them back on.
  if (files.some((f) => f.disableSkillShellExecution === true) && declared("disableSkillShellExecution"))
    out.disableSkillShellExecution = true;
  // Plugin folders add up: every file's, then the options' own.
  const plugins = [...new Set([...files.flatMap((f) => f.claudePlugins ?? []), ...(options.claudePlugins ?? [])])];
  if (plugins.length > 0 && declared("claudePlugins")) (out as { claudePlugins?: string[] }).claudePlugins = plugins;
  const env = Object.assign({}, ...files.map((f) => f.env ?? {}), options.env ?? {}) as Record<string, string>;
  if (Object.keys(env).length > 0) out.env = env;
  return out;
}

export default settingsPlugin;
export { getSettingsApi, type SettingsApi, type LoadedSettings, type SkillSwitch } from "./api";
export { SettingsFileSchema, SETTING_SOURCES, type SettingsFile, type SettingSource } from "./schema";
export { settingsPath } from "./read";
export { codexModelProblem } from "./codex";
export { unreadClaudeVariables } from "./claude-env";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";

/**
 * The caller's own settings (claude's --settings, read by the runner into an object): above every
 * file, whole as the user's are. A path is a file the options name — from code or from a config,
 * which may be a project's: it applies whole only when it is the user's own or trust lets it
 * (unset: the caller decided; under pins, only while approved and unchanged).
 */
function callerSettings(
  kernel: Kernel,
  options: SettingsConfig,
  cwd: string,
  home: string,
  apply: (source: "user", path: string, read: SettingsFile | undefined, whole?: boolean, place?: boolean) => void,
): void {
  const setting = options.settings;
  const inline = typeof setting === "object";
  const path = typeof setting === "string" ? resolve(cwd, setting) : "the settings option";
  const data = inline ? setting : readJsonConfigFile(path, "settings file (the settings option)");
  if (data === undefined) throw new ConfigError("the file the settings option names does not exist", path);
  const whole = inline || isUsersOwn(path, home) || isProjectFileTrusted(options.trust, path);
  if (!whole)
    warn(
      kernel,
      NAME,
      `${path}: the file the settings option names is not the user's own and its folder's trust does not cover it (not trusted, or new or changed since it was approved), so only its deny and ask rules and spending caps apply; pass it on the command line (--settings), inline, or trust the folder for the run (--trust)`,
    );
  apply(
    "user",
    path,
    claudeSettingsOf(data, path, (message) => warn(kernel, NAME, message), cwd, home),
    whole,
    false,
  );
}
