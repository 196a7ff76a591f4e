/**
 * Claude Code's settings files (`~/.claude/settings.json`, `.claude/settings.json`,
 * `.claude/settings.local.json`) under `compat: ["claude"]`, read into our settings shape:
 * `permissions` (allow, deny, ask, defaultMode, additionalDirectories, disableBypassPermissionsMode), `hooks`, `env`, the
 * `sandbox` keys the sandbox plugin has, which servers of `.mcp.json` may start, and `enabledPlugins`
 * (the folders Claude Code installed them in), `apiKeyHelper`. Everything else (`model` — a Claude
 * model name — `statusLine`, …) is reported once per file and ignored,
 * never fatal. Fail closed where dropping would loosen: a file that is not JSON, or whose deny or
 * ask rules are not a list of strings, stops the run naming the file. A file rule's `/path` is
 * read as Claude Code reads it, from the project root (see `projectRooted`).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../../src/index";
import { modelStringFor } from "../model/api";
import { PERMISSION_MODES, parseRule, type PermissionMode } from "../permissions/api";
import { SandboxSchema } from "../sandbox/api";
import { readJsonConfigFile } from "./read";
import { claudeOwnVariables } from "./claude-env";
import type { SettingsFile } from "./schema";
import { isRecord, isStrings } from "../_kits/json/index";

/** The `permissions` keys taken from a Claude Code file. */
const PERMISSION_KEYS = new Set([
  "allow",
  "deny",
  "ask",
  "defaultMode",
  "additionalDirectories",
  "disableBypassPermissionsMode",
]);
/** The `sandbox` keys the sandbox plugin has (`autoAllowBashIfSandboxed` is Claude Code's own name). */
const SANDBOX_KEYS = new Set([
  "enabled",
  "autoAllowBashIfSandboxed",
  "excludedCommands",
  "network",
  "filesystem",
  "failIfUnavailable",
]);
const SANDBOX_NETWORK_KEYS = new Set(["allowedDomains", "deniedDomains", "allowUnixSockets", "allowAllUnixSockets"]);
const SANDBOX_FILESYSTEM_KEYS = new Set(["allowWrite", "denyWrite", "denyRead", "allowRead"]);

/**
 * Read one Claude Code settings file: `undefined` when it does not exist. `report` hears, in one
 * message, every key that was ignored. `root` is the project's folder, where its rules' `/path` starts;
 * `home` the user's, under which Claude Code keeps the plugins `enabledPlugins` names.
 */
export function readClaudeSettingsFile(
  path: string,
  report: (message: string) => void,
  root: string,
  home: string = homedir(),
): SettingsFile | undefined {
  const data = readJsonConfigFile(path, "Claude Code settings file");
  return data === undefined ? undefined : claudeSettingsOf(data, path, report, root, home);
}

/** Claude Code settings already parsed from JSON (a file's, or `--settings`' inline JSON), as `readClaudeSettingsFile` reads them. */
export function claudeSettingsOf(
  data: unknown,
  path: string,
  report: (message: string) => void,
  root: string,
  home: string = homedir(),
): SettingsFile {
  if (!isRecord(data))
    throw new ConfigError("the Claude Code settings file is not a JSON object; fix it or remove it", path);
  const ignored: string[] = [];
  const out: SettingsFile = {};
  for (const [key, value] of Object.entries(data)) {
    if (key === "$schema") continue;
    if (key === "permissions") out.permissions = permissions(value, path, ignored, root);
    else if (key === "hooks")
      out.hooks = value; // read entry by entry by the hooks plugin
    else if (key === "disableAllHooks") {
      // Hooks off takes guards away: only a plain true turns them off.
      if (value === true) out.disableAllHooks = true;
      else if (typeof value !== "boolean") ignored.push(`${key} (not true or false: the hooks run)`);
    } else if (key === "allowedHttpHookUrls" || key === "httpHookAllowedEnvVars") {
      // A list that is not one would loosen nothing if dropped, but a restriction must hold: none is allowed then.
      out[key] = isStrings(value) ? value : [];
      if (!isStrings(value))
        ignored.push(
          `${key} (not a list of strings: no HTTP hook ${key === "allowedHttpHookUrls" ? "URL" : "header variable"} is allowed)`,
        );
    } else if (key === "disabledMcpjsonServers") {
      // Like a deny list: dropping it would start the servers it keeps out.
      if (!isStrings(value)) throw new ConfigError(`"${key}" is not a list of server names; fix it or remove it`, path);
      out[key] = value;
    } else if (key === "enabledMcpjsonServers") {
      out[key] = isStrings(value) ? value : [];
      if (!isStrings(value)) ignored.push(`${key} (not a list of strings: read as an empty list)`);
    } else if (key === "disableSkillShellExecution") {
      // A restriction: a value that is not true or false turns the shell lines off rather than on.
      out.disableSkillShellExecution = value !== false;
      if (typeof value !== "boolean") ignored.push(`${key} (not true or false: read as true)`);
    } else if (key === "enableAllProjectMcpServers") {
      if (typeof value === "boolean") out.enableAllProjectMcpServers = value;
      else ignored.push(`${key} (not true or false)`);
    } else if (key === "env") {
      const env = envOf(value, ignored);
      if (env) out.env = env;
    } else if (key === "sandbox") {
      const sandbox = sandboxOf(value, ignored, path);
      if (sandbox !== undefined) out.sandbox = sandbox;
    } else if (key === "enabledPlugins") {
      const folders = installedPlugins(value, root, home, ignored);
      if (folders.length) out.claudePlugins = folders;
    } else if (key === "apiKeyHelper") {
      if (typeof value === "string" && value.trim()) out.apiKeyHelper = value;
      else ignored.push(`${key} (not a command)`);
    } else if (key === "agent") {
      if (typeof value === "string" && value) out.agent = value;
      else ignored.push(`${key} (not an agent's name)`);
    } else if (key === "model" && typeof value === "string") {
      // A Claude model name names no provider, so it is never the run's model: say which --model it means.
      const meant = /^[\w.[\]-]{1,80}$/.test(value) ? modelStringFor(value) : undefined;
      ignored.push(`model (a Claude model name, not read: pass --model ${meant ?? "anthropic:<model>"})`);
    } else ignored.push(key);
  }
  if (ignored.length)
    report(
      `${path}: ignored ${ignored.map((k) => `"${k}"`).join(", ")} (not Claude Code settings ubiquity applies; see "Coming from Claude Code / Codex" in the README)`,
    );
  return out;
}

/**
 * `enabledPlugins` (`{"name@marketplace": true}`): the folders Claude Code installed those plugins
 * in, from `~/.claude/plugins/installed_plugins.json` (version 1: one install per plugin; version 2:
 * a list, by scope — a user install, else this project's). A plugin enabled but not installed, or
 * whose folder is gone, is reported; one set to false is not loaded.
 */
function installedPlugins(value: unknown, root: string, home: string, ignored: string[]): string[] {
  // Where Claude Code keeps the plugins it installed, and its record of them.
  const pluginsHome = join(home, ".claude", "plugins");
  if (!isRecord(value)) {
    ignored.push("enabledPlugins (not an object of plugin@marketplace: true)");
    return [];
  }
  const wanted = Object.entries(value).filter(([, on]) => on === true);
  if (wanted.length === 0) return [];
  let record: unknown;
  try {
    record = JSON.parse(readFileSync(join(pluginsHome, "installed_plugins.json"), "utf8"));
  } catch {
    ignored.push(
      `enabledPlugins (${wanted.map(([id]) => id).join(", ")}: no readable ~/.claude/plugins/installed_plugins.json)`,
    );
    return [];
  }
  const plugins = isRecord(record) && isRecord(record.plugins) ? record.plugins : {};
  const folders: string[] = [];
  for (const [id] of wanted) {
    const installs = [plugins[id]].flat().filter(isRecord);
    const install =
      installs.find((i) => i.scope === undefined || i.scope === "user") ??
      installs.find((i) => typeof i.projectPath === "string" && resolve(i.projectPath) === resolve(root));
    const path = typeof install?.installPath === "string" ? resolve(pluginsHome, install.installPath) : undefined;
    if (path && existsSync(path) && statSync(path).isDirectory()) folders.push(path);
    else
      ignored.push(
        `enabledPlugins.${id} (not installed in ~/.claude/plugins: install it, or ubiquity plugin add its folder)`,
      );
  }
  return folders;
}

function permissions(value: unknown, path: string, ignored: string[], root: string): SettingsFile["permissions"] {
  if (!isRecord(value))
    throw new ConfigError(
      '"permissions" is not an object; fix it or remove it (its deny and ask rules must not be dropped)',
      path,
    );
  const out: NonNullable<SettingsFile["permissions"]> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!PERMISSION_KEYS.has(key)) {
      ignored.push(`permissions.${key}`);
      continue;
    }
    if (key === "deny" || key === "ask") {
      if (!isStrings(v))
        throw new ConfigError(`"permissions.${key}" is not a list of rule strings; fix it or remove it`, path);
      out[key] = v.flatMap((rule) => projectRooted(rule, key, root));
    } else if (key === "allow") {
      if (isStrings(v))
        out.allow = v.filter((rule) => isRule(rule, ignored)).flatMap((rule) => projectRooted(rule, key, root));
      else ignored.push("permissions.allow (not a list of strings)");
    } else if (key === "disableBypassPermissionsMode") {
      // A restriction: a value that is not "disable" (`true`, "disabled") still turns the mode off; only false leaves it.
      if (v !== false) out.disableBypassPermissionsMode = "disable";
      if (v !== "disable")
        ignored.push(
          `permissions.disableBypassPermissionsMode ${JSON.stringify(v)} (only "disable" is a value: ${v === false ? "bypassPermissions stays allowed" : 'read as "disable"'})`,
        );
    } else if (key === "defaultMode") {
      if (PERMISSION_MODES.includes(v as PermissionMode)) out.defaultMode = v as PermissionMode;
      else ignored.push(`permissions.defaultMode ${JSON.stringify(v)}`);
    } else if (isStrings(v)) out.additionalDirectories = v;
    else ignored.push("permissions.additionalDirectories (not a list of strings)");
  }
  return out;
}

/**
 * An allow rule that is no rule (`"Bash:*"`, `"Edit:*"`: a colon where Claude Code wants `Bash(...)`)
 * allows nothing in Claude Code, which skips it (or, in older versions, matches nothing with it), and
 * loads the rest of the file. It is skipped here too, named among the ignored keys: dropping an allow
 * rule never gives more power, so the file's hooks, deny rules and mode still apply (the run stopped on
 * diet103's showcase settings). A deny or ask rule that is no rule still stops the run: a guard its
 * author believes in must not vanish.
 */
function isRule(rule: string, ignored: string[]): boolean {
  try {
    parseRule(rule, "allow", "claude settings");
    return true;
  } catch {
    ignored.push(
      `permissions.allow ${JSON.stringify(rule)} (not a permission rule, so it allows nothing, as in Claude Code: write Tool or Tool(content), e.g. "Bash" or "Bash(git:*)")`,
    );
    return false;
  }
}

/** Claude Code's file tools: their rule content is a path (`Edit` rules cover every tool that edits). */
const FILE_RULE = /^\s*(Read|Edit|Write|MultiEdit|NotebookEdit|Glob|Grep|LS)\((\/(?!\/)[\s\S]*)\)\s*$/;
const escapeGlob = (path: string) => path.replace(/[*?[\]{}()!+@\\]/g, "\\$&");

/**
 * Claude Code reads a file rule's `/path` from the project root (`Edit(/src/**)`, `Read(/.env)`;
 * `//path` is absolute), where our rules read `/path` as absolute: such a rule is rewritten to
 * `//<project>/path`. A deny or ask rule also keeps its absolute reading, which it had here before,
 * so it never covers less; an allow rule keeps only Claude Code's meaning.
 */
function projectRooted(written: string, list: "allow" | "deny" | "ask", root: string): string[] {
  // `Task` is Claude Code's former name of the Agent tool; its rules still name it (`Task(Explore)`).
  const rule = written.replace(/^(\s*)Task(?=\s*(?:\(|$))/, "$1Agent");
  const match = FILE_RULE.exec(rule);
  if (!match) return [rule];
  const rooted = `${match[1]}(/${escapeGlob(root.replace(/\/+$/, ""))}${match[2]})`;
  return list === "allow" ? [rooted] : [rooted, rule];
}

function envOf(value: unknown, ignored: string[]): Record<string, string> | undefined {
  if (!isRecord(value)) {
    ignored.push("env (not an object)");
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    // Claude Code writes numbers and booleans too ("MAX_THINKING_TOKENS": 1024): the variable is their text.
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = String(v);
    else ignored.push(`env.${k}`);
  }
  // Still passed to commands (Claude Code's own children see them too); what they configure is said.
  ignored.push(...claudeOwnVariables(Object.keys(out)));
  return out;
}

/**
 * The `sandbox` key in the sandbox plugin's shape. Fail closed: one whose values cannot be read (a
 * string for a list, `"sandbox": "on"`) stops the run naming the file, since dropping it would drop
 * its network allow-list, its read denials and `enabled: true` with it; a key of it that ubiquity
 * does not have is reported and left out, as any other file key.
 */
function sandboxOf(value: unknown, ignored: string[], path: string): SettingsFile["sandbox"] {
  if (typeof value === "boolean") return value;
  if (!isRecord(value))
    throw new ConfigError(
      `"sandbox" is ${JSON.stringify(value)}, not true, false or an object of sandbox settings; fix it or remove it (dropping it would drop the sandbox it asks for)`,
      path,
    );
  const picked: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // Claude Code's strict mode: ours has no unsandboxed retry to refuse, so `false` is what it does already.
    if (k === "allowUnsandboxedCommands" && v === false) continue;
    if (!SANDBOX_KEYS.has(k)) ignored.push(`sandbox.${k}`);
    else if ((k === "network" || k === "filesystem") && isRecord(v)) {
      const known = k === "network" ? SANDBOX_NETWORK_KEYS : SANDBOX_FILESYSTEM_KEYS;
      const part: Record<string, unknown> = {};
      for (const [nk, nv] of Object.entries(v)) {
        if (known.has(nk)) part[nk] = nv;
        else ignored.push(`sandbox.${k}.${nk}`);
      }
      if (Object.keys(part).length) picked[k] = part;
    } else picked[k] = v;
  }
  const parsed = SandboxSchema.safeParse(picked);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    `"sandbox" does not match the sandbox settings; fix it or remove it (dropping it would drop its network allow-list and read denials):\n${z.prettifyError(parsed.error)}`,
    path,
  );
}
