/**
 * Codex's `config.toml` (`~/.codex/config.toml`, and a project's `.codex/config.toml`) under
 * `compat: ["codex"]`, read into what Ubiquity has: `[mcp_servers.<name>]` (stdio and streamable
 * HTTP), `model` on its `model_provider` and the selected `profile` (see ./codex-provider), `model_reasoning_effort`, `[hooks]` (as in hooks.json), and
 * `approval_policy` / `sandbox_mode` — these two only ever tighten (see `CodexTightening`).
 * Everything else is reported once per file and ignored, never fatal. Fail closed: a file that is
 * not TOML stops the run naming the file; a server entry that cannot be used fails only itself.
 */
import { hookStateOf } from "./codex-hook-state";
import { shellEnvironmentOf } from "./codex-shell-env";
import { skillSwitchesOf } from "./codex-skills";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as Toml from "smol-toml";
import { ConfigError } from "../../src/index";
import { readRegularFileSync } from "../../loader/index";
import { McpServerSchema, mcpToolName, type McpServerConfig, type McpServerProblem } from "../mcp/api";
import { isProviderKey } from "../model/api";
import type { PermissionMode } from "../permissions/api";
import { REASONING_LEVELS } from "../reasoning/api";
import { MAX_SETTINGS_BYTES, readJsonConfigFile } from "./read";
import { codexModelOf, withProfile } from "./codex-provider";
import type { SettingsFile } from "./schema";
import type { SkillSwitch } from "./api";
import { isRecord, isStrings } from "../_kits/json/index";

const isStringMap = (v: unknown): v is Record<string, string> =>
  isRecord(v) && Object.values(v).every((s) => typeof s === "string");

/**
 * What a Codex file asks that only takes power away, applied whether or not the file is trusted
 * and only where it is stricter than what the run has: `approval_policy = "never"` is `dontAsk`
 * (nothing asks; what would ask is denied), `sandbox_mode = "read-only"` is `plan`;
 * `sandbox_mode = "workspace-write"` or `"read-only"` turns the OS sandbox on.
 */
export interface CodexTightening {
  path: string;
  mode?: Extract<PermissionMode, "plan" | "dontAsk">;
  sandbox?: true;
}

/** What one Codex config file gives the run. */
export interface CodexConfig {
  /** The model and the `disabled_tools` deny rules, in our settings shape. */
  settings: SettingsFile;
  /** `model_reasoning_effort`, the reasoning plugin's `reasoning`. */
  reasoning?: (typeof REASONING_LEVELS)[number];
  servers: Record<string, McpServerConfig>;
  failed: McpServerProblem[];
  tightening: CodexTightening;
  /** `[features] hooks` (or `codex_hooks`, its old name), when the file sets it: `false` turns Codex's hooks off. */
  hooksFeature?: { on: boolean; key: "hooks" | "codex_hooks" };
  /** The hook handlers its `[hooks.state]` turns off (`enabled = false`), as `<file>:<event>:<group>:<handler>`. */
  disabledHooks: string[];
  /** Its `[[skills.config]]` entries (applied from the user's file alone, as Codex does). */
  skillSwitches: SkillSwitch[];
  /** `project_doc_max_bytes`: how many bytes of the project's AGENTS.md files are read in all. */
  projectDocBytes?: number;
  /** A custom `model_provider`'s URL, key and headers, for `settings.model` alone. */
  provider?: { model: string; settings: Record<string, unknown> };
}

/** Top-level keys read here; any other is reported as ignored. */
const READ_KEYS = new Set([
  "model",
  "model_provider",
  "model_providers",
  "profile",
  "profiles",
  "model_reasoning_effort",
  "approval_policy",
  "sandbox_mode",
  "sandbox_workspace_write",
  "mcp_servers",
  "hooks",
  "shell_environment_policy",
  "skills",
  "project_doc_max_bytes",
]);

/** The TOML parser, loaded when there is a Codex config.toml to read (cold start: a run without one never needs it). */
const toml = (): typeof Toml => createRequire(import.meta.url)("smol-toml") as typeof Toml;

/** Parse a Codex config file: `undefined` when it does not exist, a `ConfigError` when it is not TOML. */
function parseCodexToml(path: string): Record<string, unknown> | undefined {
  const read = readRegularFileSync(path, MAX_SETTINGS_BYTES);
  if (!read.ok) {
    if (read.missing) return undefined;
    throw new ConfigError(`the Codex config file cannot be used: ${read.problem}; fix it or remove it`, path);
  }
  try {
    return toml().parse(read.text) as Record<string, unknown>;
  } catch (error) {
    const why = error instanceof toml().TomlError ? `line ${error.line}, column ${error.column}` : String(error);
    throw new ConfigError(`the Codex config file is not valid TOML (${why}); fix it or remove it`, path);
  }
}

/**
 * Codex's `--profile <name>` (since 0.134): `<name>.config.toml` next to the user's config.toml,
 * laid over it; `undefined` when there is none (then the legacy `[profiles.<name>]` table of
 * config.toml is read, see ./codex-provider). A name is letters, digits, `-` and `_`, as in Codex:
 * anything else could name a file elsewhere, so it stops the run.
 */
function profileFile(path: string, profile: string | undefined): Record<string, unknown> | undefined {
  if (profile === undefined) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(profile))
    throw new ConfigError(
      `--profile ${JSON.stringify(profile)}: a profile's name is letters, digits, "-" and "_" (Codex reads ~/.codex/<name>.config.toml)`,
      path,
    );
  return parseCodexToml(join(dirname(path), `${profile}.config.toml`));
}

/** `over` laid over `base` key by key, tables merged (as Codex merges its config layers). */
function mergeTables(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [key, value] of Object.entries(over))
    out[key] = isRecord(value) && isRecord(out[key]) ? mergeTables(out[key], value) : value;
  return out;
}

/**
 * Read one Codex config file: `undefined` when it does not exist. `report` hears each thing that
 * is not applied, naming the key and why; `env` is where `env_vars`, `bearer_token_env_var`,
 * `env_key` and `env_http_headers` are looked up; `profile` is `--profile`'s name (the user's file).
 */
export function readCodexConfigFile(
  path: string,
  report: (message: string) => void,
  env: Record<string, string | undefined> = process.env,
  profile?: string,
): CodexConfig | undefined {
  const file = parseCodexToml(path);
  const layer = profileFile(path, profile);
  if (file === undefined && layer === undefined) return undefined;
  const data = layer
    ? mergeTables(file ?? {}, layer)
    : withProfile(file!, (m) => report(`${path}: ${m}`), profile, path);
  // `[features]` is read for its hooks switch alone: its other flags are the ones named.
  const ignored = Object.keys(data).flatMap((k) =>
    k !== "features" || !isRecord(data.features)
      ? READ_KEYS.has(k)
        ? []
        : [k]
      : Object.keys(data.features)
          .filter((f) => f !== "hooks" && f !== "codex_hooks")
          .map((f) => `features.${f}`),
  );
  if (ignored.length)
    report(
      `${path}: Codex keys ubiquity does not read were ignored: ${ignored.join(", ")} (see docs/coming-from-claude-code.md)`,
    );
  const settings: SettingsFile = {};
  const model = codexModelOf(data, env, (m) => report(`${path}: ${m}`));
  if (model) settings.model = model.model;
  const effort = data.model_reasoning_effort;
  const reasoning = (REASONING_LEVELS as readonly unknown[]).includes(effort)
    ? (effort as (typeof REASONING_LEVELS)[number])
    : undefined;
  if (effort !== undefined && !reasoning)
    report(`${path}: model_reasoning_effort ${JSON.stringify(effort)} is not a reasoning level; it was ignored`);
  const tightening = tighteningOf(path, data, (m) => report(`${path}: ${m}`));
  const { servers, failed, deny } = serversOf(data.mcp_servers, env, (m) => report(`${path}: ${m}`));
  if (deny.length) settings.permissions = { deny };
  // Its `set`: the variables Codex gives the commands it runs (./codex-shell-env).
  if (data.shell_environment_policy !== undefined) {
    const env = shellEnvironmentOf(data.shell_environment_policy, (m) => report(`${path}: ${m}`));
    if (env) settings.env = env;
  }
  // Hooks written inline (`[[hooks.PreToolUse]]`), as Codex reads them next to hooks.json: the same shape.
  // Their `[hooks.state]` is Codex's record of reviewed hooks, not an event (./codex-hook-state).
  const hookState = hookStateOf(data.hooks);
  if (data.hooks !== undefined) settings.hooks = hookState.hooks;
  // `hooks` is Codex's name for the switch since openai/codex#20522; `codex_hooks` is its deprecated alias.
  const features = isRecord(data.features) ? data.features : {};
  const featureKey = typeof features.hooks === "boolean" ? "hooks" : "codex_hooks";
  const feature = features[featureKey];
  const provider = model?.providerSettings ? { model: model.model, settings: model.providerSettings } : undefined;
  const docBytes = data.project_doc_max_bytes;
  const projectDocBytes =
    Number.isSafeInteger(docBytes) && (docBytes as number) >= 0 ? (docBytes as number) : undefined;
  if (docBytes !== undefined && projectDocBytes === undefined)
    report(`${path}: project_doc_max_bytes ${JSON.stringify(docBytes)} is not a number of bytes; it was ignored`);
  return {
    ...(projectDocBytes !== undefined && { projectDocBytes }),
    settings,
    ...(reasoning ? { reasoning } : {}),
    servers,
    failed,
    tightening,
    disabledHooks: hookState.disabled,
    skillSwitches: skillSwitchesOf(data.skills, path, (m) => report(`${path}: ${m}`)),
    ...(typeof feature === "boolean" ? { hooksFeature: { on: feature, key: featureKey } } : {}),
    ...(provider && { provider }),
  };
}

/**
 * Codex's `hooks.json` (`~/.codex/hooks.json`, a project's `.codex/hooks.json`): its `hooks`, in
 * Claude Code's shape (event → matcher groups → command handlers), which the hooks plugin reads
 * as a settings file's (trust applies to a project's as to its other files). `undefined` when the
 * file does not exist; one that is not a JSON object stops the run naming it.
 */
export function readCodexHooksFile(path: string, report: (message: string) => void): SettingsFile | undefined {
  const data = readJsonConfigFile(path, "Codex hooks file");
  if (data === undefined) return undefined;
  if (!isRecord(data)) throw new ConfigError("the Codex hooks file is not a JSON object; fix it or remove it", path);
  // `description` is the file's own note, as in a plugin's hooks.json (45ck/prompt-language writes one).
  const ignored = Object.keys(data).filter((k) => !["hooks", "$schema", "description"].includes(k));
  if (ignored.length) report(`${path}: keys ubiquity does not read were ignored: ${ignored.join(", ")}`);
  return data.hooks === undefined ? {} : { hooks: data.hooks };
}

/** `approval_policy` and `sandbox_mode`, taken only where they take power away; the rest reported. */
function tighteningOf(path: string, data: Record<string, unknown>, report: (message: string) => void): CodexTightening {
  const out: CodexTightening = { path };
  const policy = data.approval_policy;
  if (policy === "never") out.mode = "dontAsk";
  else if (policy !== undefined && !["untrusted", "on-request", "on-failure"].includes(policy as string))
    report(
      `approval_policy ${JSON.stringify(policy)} is not understood; the run's permission mode is unchanged (it is never loosened by a Codex file)`,
    );
  const sandbox = data.sandbox_mode;
  if (sandbox === "read-only") out.mode = "plan";
  if (sandbox === "read-only" || sandbox === "workspace-write") out.sandbox = true;
  else if (sandbox === "danger-full-access")
    report(
      'sandbox_mode "danger-full-access" is not applied: a Codex file never turns the sandbox off or widens what runs without asking',
    );
  else if (sandbox !== undefined) report(`sandbox_mode ${JSON.stringify(sandbox)} is not understood; it was ignored`);
  const write = data.sandbox_workspace_write;
  if (isRecord(write)) {
    const keys = Object.keys(write).filter((k) => write[k] !== false && !(Array.isArray(write[k]) && !write[k].length));
    if (keys.length)
      report(
        `[sandbox_workspace_write] ${keys.join(", ")} not applied: a Codex file never widens the sandbox (set sandbox.filesystem or sandbox.network in the ubiquity config)`,
      );
  }
  return out;
}

/** The `[mcp_servers.<name>]` entries, entry by entry: a bad one fails only itself. */
function serversOf(
  table: unknown,
  env: Record<string, string | undefined>,
  report: (message: string) => void,
): { servers: Record<string, McpServerConfig>; failed: McpServerProblem[]; deny: string[] } {
  const out = {
    servers: {} as Record<string, McpServerConfig>,
    failed: [] as McpServerProblem[],
    deny: [] as string[],
  };
  if (table === undefined) return out;
  if (!isRecord(table)) {
    report("mcp_servers is not a table of servers; it was ignored");
    return out;
  }
  for (const [name, raw] of Object.entries(table)) {
    if (!isRecord(raw)) {
      out.failed.push({ name, error: `mcp_servers.${name} is not a table; fix or remove this entry` });
      continue;
    }
    if (raw.enabled === false) continue; // Codex's own switch: the author wants it off
    // disabled_tools hold whether or not the server starts: they are deny rules, which only take away.
    if (isStrings(raw.disabled_tools)) out.deny.push(...raw.disabled_tools.map((tool) => mcpToolName(name, tool)));
    try {
      const server = codexServer(name, raw, env, report);
      const parsed = McpServerSchema.safeParse(server);
      if (parsed.success) out.servers[name] = parsed.data;
      else out.failed.push({ name, error: `mcp_servers.${name} is not a usable server; fix or remove this entry` });
    } catch (error) {
      out.failed.push({ name, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return out;
}

/**
 * Codex's own top-level keys: one found inside a server's table was written below its
 * `[mcp_servers.<name>]` header (jonhill90/vibes: `approval_policy` and `sandbox_mode` after the
 * last server), which TOML reads as the server's key, so it is said where it went.
 */
const CODEX_TOP_LEVEL = new Set([
  ...READ_KEYS,
  "profile",
  "profiles",
  "project_doc_fallback_filenames",
  "project_doc_max_bytes",
  "project_root_markers",
  "model_verbosity",
  "model_reasoning_summary",
  "model_context_window",
  "model_auto_compact_token_limit",
  "hide_agent_reasoning",
  "show_raw_agent_reasoning",
  "notify",
  "instructions",
  "developer_instructions",
  "file_opener",
  "history",
  "features",
  "shell_environment_policy",
  "web_search",
  "preferred_auth_method",
  "disable_response_storage",
  "tui",
]);

/** Keys of a server entry that are read, by transport; `NOT_APPLIED` ones are reported with why. */
const STDIO_KEYS = new Set(["command", "args", "env", "env_vars", "cwd"]);
const HTTP_KEYS = new Set(["url", "bearer_token_env_var", "http_headers", "env_http_headers"]);
const NOT_APPLIED: Record<string, string> = {
  startup_timeout_sec: "the mcp plugin's connectTimeoutMs applies to every server",
  startup_timeout_ms: "the mcp plugin's connectTimeoutMs applies to every server",
  tool_timeout_sec: "the mcp plugin's toolTimeoutMs applies to every server",
  enabled_tools: "every tool of the server is offered, and each call is judged by the permission rules",
  required: "a server that fails to start never fails the run",
  scopes: "OAuth asks for the scope the server's metadata names",
  oauth_resource: "OAuth uses the server's own resource",
};

/** One server entry in our shape; throws (failing only this server) what cannot be used. */
function codexServer(
  name: string,
  raw: Record<string, unknown>,
  env: Record<string, string | undefined>,
  report: (message: string) => void,
): unknown {
  const at = `mcp_servers.${name}`;
  const stdio = typeof raw.command === "string";
  const known = stdio ? STDIO_KEYS : HTTP_KEYS;
  for (const key of Object.keys(raw)) {
    if (known.has(key) || key === "enabled" || key === "disabled_tools") continue;
    if (key in NOT_APPLIED) report(`${at}.${key} is not applied: ${NOT_APPLIED[key]}`);
    else if (STDIO_KEYS.has(key) || HTTP_KEYS.has(key) || key === "bearer_token")
      throw new Error(
        `${at}: ${key} is not supported for a ${stdio ? "stdio" : "streamable HTTP"} server, as in Codex`,
      );
    else if (CODEX_TOP_LEVEL.has(key))
      report(
        `${at}: "${key}" is a top-level Codex setting, but written below the [${at}] header it belongs to that table (TOML puts every key after a [table] header into it), so neither Codex nor ubiquity applies it as ${key}; it was ignored: move it above the file's first [table] header`,
      );
    else report(`${at}: the key "${key}" is not one ubiquity reads; it was ignored`);
  }
  if (stdio) return stdioServer(at, raw, env);
  if (typeof raw.url !== "string") throw new Error(`${at} has neither command nor url; fix or remove this entry`);
  for (const key of ["http_headers", "env_http_headers"])
    if (raw[key] !== undefined && !isStringMap(raw[key])) throw new Error(`${at}.${key} is not a table of strings`);
  const headers: Record<string, string> = isStringMap(raw.http_headers) ? { ...raw.http_headers } : {};
  if (isStringMap(raw.env_http_headers))
    for (const [header, variable] of Object.entries(raw.env_http_headers)) {
      const value = fromEnv(at, variable, env, false);
      if (value !== undefined) headers[header] = value;
    }
  if (typeof raw.bearer_token_env_var === "string")
    headers.Authorization = `Bearer ${fromEnv(at, raw.bearer_token_env_var, env, true)}`;
  return { type: "http", url: raw.url, ...(Object.keys(headers).length ? { headers } : {}) };
}

function stdioServer(at: string, raw: Record<string, unknown>, env: Record<string, string | undefined>): unknown {
  if (raw.env !== undefined && !isStringMap(raw.env)) throw new Error(`${at}.env is not a table of strings`);
  if (raw.env_vars !== undefined && !isStrings(raw.env_vars)) throw new Error(`${at}.env_vars is not a list of names`);
  const vars: Record<string, string> = {};
  if (isStrings(raw.env_vars))
    for (const variable of raw.env_vars) {
      const value = fromEnv(at, variable, env, false);
      if (value !== undefined) vars[variable] = value;
    }
  const own = isStringMap(raw.env) ? raw.env : {};
  const merged = { ...vars, ...own };
  return {
    command: raw.command,
    ...(raw.args !== undefined ? { args: raw.args } : {}),
    ...(Object.keys(merged).length ? { env: merged } : {}),
    ...(typeof raw.cwd === "string" ? { cwd: raw.cwd } : {}),
  };
}

/**
 * A variable's value for a server. A model provider's key is never handed to a server from a
 * file (an error naming the variable, not its value); an unset one is an error when `required`.
 */
function fromEnv(
  at: string,
  variable: string,
  env: Record<string, string | undefined>,
  required: boolean,
): string | undefined {
  if (isProviderKey(variable))
    throw new Error(
      `${at}: ${variable} is a model provider's key, which is never handed to an MCP server from a file; give the server a key of its own under another variable`,
    );
  const value = env[variable];
  if ((value === undefined || value === "") && required)
    throw new Error(`${at}: ${variable} is not set; set it in the environment`);
  return value === "" ? undefined : value;
}

/**
 * Why a Codex config file's model is not used (for the runner's "No model configured" under
 * `compat: ["codex"]`, found before the settings plugin runs): what reading its profile and
 * `model_provider` reports, or `undefined` when it names a model that is used, or none.
 */
export function codexModelProblem(
  path: string,
  profile?: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  let data: Record<string, unknown> | undefined;
  try {
    data = parseCodexToml(path);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  let layer: Record<string, unknown> | undefined;
  try {
    layer = profileFile(path, profile);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (data === undefined && layer === undefined) return undefined;
  const said: string[] = [];
  const model = codexModelOf(
    layer ? mergeTables(data ?? {}, layer) : withProfile(data!, (m) => said.push(m), profile),
    env,
    (m) => said.push(m),
  );
  return model || !said.length ? undefined : said.join("; ");
}
