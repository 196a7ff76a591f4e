/**
 * What the settings plugin would apply from a folder of its own: `.ubiquity/settings.json`,
 * `.ubiquity/settings.local.json` and the servers of `.mcp.json`, described for the trust question.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import type * as Toml from "smol-toml";
import type { ProjectFile, ProjectPlace } from "../../loader/index";
import { pathExists, peekJsonOrYaml, printable } from "../../loader/index";
import { settingsPath } from "./read";
import { codexModelOf, withProfile } from "./codex-provider";
import { compatProjectPaths } from "../_kits/sources/index";

/** The settings files and `.mcp.json` of `place.cwd`, each with what it would do. */
export function settingsProjectFiles({ cwd }: ProjectPlace): ProjectFile[] {
  const out: ProjectFile[] = [];
  for (const source of ["project", "local"] as const) {
    const file = settingsPath(source, cwd, "");
    if (pathExists(file)) out.push({ path: file, kind: "settings", effect: describeSettings(file) });
  }
  for (const other of compatProjectPaths("settings", cwd)) {
    if (pathExists(other.path))
      out.push({
        path: other.path,
        kind: "settings",
        effect: `${other.tool === "codex" && other.path.endsWith(".toml") ? describeCodexConfig(other.path) : describeSettings(other.path, true)} (with compat: ["${other.tool}"])`,
        compat: other.tool,
      });
  }
  const mcp = join(cwd, ".mcp.json");
  if (pathExists(mcp)) out.push({ path: mcp, kind: "mcp", effect: describeMcp(mcp) });
  return out;
}

/**
 * Keys of a settings file the description may leave out: those described below and those that only
 * take power away (rules and caps that apply from an untrusted file too). Any other key a file has
 * is named, so the question never says less than the file does (red team zj, ZJ4): `sandbox`,
 * `additionalDirectories`, `enabledPlugins`, `agent` and keys added later among them.
 */
const SAID_OR_TIGHTENING = new Set([
  "$schema",
  // A Codex hooks.json's own note.
  "description",
  "hooks",
  "permissions",
  "env",
  "model",
  "maxBudgetUsd",
  "maxBudgetTokens",
  "disableSkillShellExecution",
  "disabledMcpjsonServers",
]);
const SAID_OR_TIGHTENING_PERMISSIONS = new Set(["allow", "deny", "ask", "defaultMode", "disableBypassPermissionsMode"]);

/** The keys of `data` (and of its `permissions`) that the description does not otherwise say, as `sets a, b`. */
function otherKeys(data: Record<string, unknown>): string | undefined {
  const permissions = data.permissions;
  const keys = [
    ...Object.keys(data).filter((k) => !SAID_OR_TIGHTENING.has(k)),
    ...(permissions && typeof permissions === "object"
      ? Object.keys(permissions)
          .filter((k) => !SAID_OR_TIGHTENING_PERMISSIONS.has(k))
          .map((k) => `permissions.${k}`)
      : []),
  ];
  if (!keys.length) return undefined;
  return `sets ${keys
    .slice(0, 5)
    .map((k) => printable(k, 40))
    .join(", ")}${keys.length > 5 ? ` and ${keys.length - 5} more` : ""}`;
}

/** `claude`: a Claude Code settings file, whose `model` (a Claude model name) is reported and ignored, not applied. */
function describeSettings(file: string, claude = false): string {
  const data = peekJsonOrYaml(file) as
    | {
        hooks?: Record<string, unknown[]>;
        permissions?: { allow?: string[]; defaultMode?: string };
        env?: object;
        model?: string;
      }
    | undefined;
  if (!data || typeof data !== "object") return "settings (unreadable: the run will stop on it)";
  const parts: string[] = [];
  const hooks = hookCount(data.hooks);
  if (hooks) parts.push(`adds ${hooks} shell hook${hooks === 1 ? "" : "s"}`);
  const allow = Array.isArray(data.permissions?.allow) ? data.permissions.allow : [];
  if (allow.length)
    parts.push(
      `allows ${allow
        .slice(0, 3)
        .map((r) => printable(r))
        .join(", ")}${allow.length > 3 ? ` and ${allow.length - 3} more` : ""}`,
    );
  if (data.permissions?.defaultMode) parts.push(`sets permission mode ${printable(data.permissions.defaultMode, 30)}`);
  if (data.env && typeof data.env === "object" && Object.keys(data.env).length)
    parts.push(
      `sets ${Object.keys(data.env)
        .slice(0, 5)
        .map((k) => printable(k, 30))
        .join(", ")} for commands`,
    );
  if (data.model && !claude) parts.push(`sets model ${printable(data.model)}`);
  const other = otherKeys(data as Record<string, unknown>);
  if (other) parts.push(other);
  return parts.length ? parts.join(", ") : "settings (its deny and ask rules apply anyway)";
}

/** What a Codex config.toml would do: the servers it starts, the model it sets. */
/** How many handlers a `hooks` value (event → matcher groups → hooks) holds. */
function hookCount(hooks: unknown): number {
  if (typeof hooks !== "object" || hooks === null) return 0;
  return Object.values(hooks)
    .flatMap((groups) => (Array.isArray(groups) ? groups : []))
    .flatMap((g) => {
      const list = (g as { hooks?: unknown } | null)?.hooks;
      return Array.isArray(list) ? list : [];
    }).length;
}

function describeCodexConfig(file: string): string {
  let data: Record<string, unknown>;
  try {
    // smol-toml loads only when there is a Codex config.toml to describe (cold start).
    data = (createRequire(import.meta.url)("smol-toml") as typeof Toml).parse(readFileSync(file, "utf8"));
  } catch {
    return "Codex settings (unreadable: the run will stop on it)";
  }
  const servers = data.mcp_servers && typeof data.mcp_servers === "object" ? Object.entries(data.mcp_servers) : [];
  const names = servers.filter(([, s]) => (s as { enabled?: unknown })?.enabled !== false).map(([n]) => n);
  const parts: string[] = [];
  if (names.length)
    parts.push(
      `starts MCP server${names.length === 1 ? "" : "s"} ${names
        .slice(0, 5)
        .map((n) => printable(n, 30))
        .join(", ")}${names.length > 5 ? ", …" : ""}`,
    );
  const model = codexModelOf(
    withProfile(data, () => {}),
    {},
    () => {},
  );
  const url = model?.providerSettings?.baseURL;
  if (model)
    parts.push(
      `sets model ${printable(model.model)}${typeof url === "string" ? ` at ${printable(url)}` : ""}${model.keyVariable ? `, sending it the key in ${printable(model.keyVariable, 60)}` : ""}`,
    );
  const hooks = hookCount(data.hooks);
  if (hooks) parts.push(`adds ${hooks} shell hook${hooks === 1 ? "" : "s"}`);
  // A hook that blocks is a guard: turning the project's off is said (red team zl, ZL1).
  const off = codexHooksTurnedOff(data);
  if (off) parts.push(off);
  // `[shell_environment_policy] set` reaches every command (./codex-shell-env), as a settings file's env does.
  const policy = data.shell_environment_policy as { set?: unknown } | undefined;
  const set =
    policy && typeof policy === "object" && policy.set && typeof policy.set === "object" ? Object.keys(policy.set) : [];
  if (set.length)
    parts.push(
      `sets ${set
        .slice(0, 5)
        .map((k) => printable(k, 30))
        .join(", ")}${set.length > 5 ? " and more" : ""} for commands`,
    );
  return parts.length ? parts.join(", ") : "Codex settings (its approval and sandbox modes only tighten)";
}

/** What a Codex config's `[features] hooks = false` and `[hooks.state]` turn off (the project's hooks), or undefined. */
function codexHooksTurnedOff(data: Record<string, unknown>): string | undefined {
  const features = data.features as Record<string, unknown> | undefined;
  const all = typeof features === "object" && features !== null && (features.hooks ?? features.codex_hooks) === false;
  if (all) return "turns off the project's Codex hooks ([features] hooks = false)";
  const state = (data.hooks as { state?: unknown } | undefined)?.state;
  const n =
    typeof state === "object" && state !== null
      ? Object.values(state).filter((e) => (e as { enabled?: unknown } | null)?.enabled === false).length
      : 0;
  return n ? `turns off ${n} of the project's Codex hook${n === 1 ? "" : "s"} ([hooks.state])` : undefined;
}

function describeMcp(file: string): string {
  const data = peekJsonOrYaml(file) as { mcpServers?: Record<string, unknown> } | undefined;
  // A server written `"enabled": false` / `"disabled": true` is not started (readMcpConfigEntries).
  const off = (s: unknown) =>
    typeof s === "object" &&
    s !== null &&
    ((s as { enabled?: unknown }).enabled === false || (s as { disabled?: unknown }).disabled === true);
  const names = Object.entries(data?.mcpServers ?? {})
    .filter(([, s]) => !off(s))
    .map(([n]) => n);
  return names.length
    ? `starts MCP server${names.length === 1 ? "" : "s"} ${names
        .slice(0, 5)
        .map((n) => printable(n, 30))
        .join(", ")}${names.length > 5 ? ", …" : ""}`
    : "MCP servers";
}
