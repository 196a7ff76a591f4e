/**
 * A folder's own files that can run code or change what the agent may do, found without
 * running or applying any of them — for the trust prompt and for the warning naming what an
 * untrusted folder's run skipped. The list mirrors where the built-in plugins look (config
 * search, settings, `.mcp.json`, agent and skill folders, memory files).
 */
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { extname, join, relative, resolve, sep } from "node:path";
import { parse as parseYaml } from "yaml";
import { CONFIG_SEARCH_PLACES } from "../config/load";
import { configSearchFolders } from "../config/search";
import { readRegularFileSync } from "../safe-read";

/** One file (or folder) of the project's own that would apply in a trusted folder. */
export interface ProjectFile {
  path: string;
  kind: "config" | "settings" | "mcp" | "agents" | "skills" | "memory";
  /** What it could do, in words ("runs as code", "adds 2 shell hooks, allows Bash(npm:*)"). */
  effect: string;
}

const SCRIPT = new Set([".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"]);
const MAX_PEEK_BYTES = 1024 * 1024;

/** The project's own files under `cwd` (and between it and the config search's stop). */
export function findProjectFiles(cwd: string, home: string = homedir()): ProjectFile[] {
  const root = resolve(cwd);
  const homeDir = resolve(home);
  const inHome = (p: string) => p === join(homeDir, ".ubiquity") || p.startsWith(join(homeDir, ".ubiquity") + sep) || resolve(p, "..") === homeDir || resolve(p, "..") === join(homeDir, ".config");
  const out: ProjectFile[] = [];
  const add = (path: string, kind: ProjectFile["kind"], effect: string) => {
    if (!inHome(path)) out.push({ path, kind, effect });
  };
  const folders = configSearchFolders(root, homeDir);
  for (const folder of folders) {
    for (const place of CONFIG_SEARCH_PLACES) {
      const file = join(folder, place);
      if (!exists(file)) continue;
      const effect = describeConfig(file, place === "package.json");
      if (effect) add(file, "config", effect);
    }
  }
  for (const name of ["settings.json", "settings.local.json"]) {
    const file = join(root, ".ubiquity", name);
    if (exists(file)) add(file, "settings", describeSettings(file));
  }
  const mcp = join(root, ".mcp.json");
  if (exists(mcp)) add(mcp, "mcp", describeMcp(mcp));
  for (const [name, kind] of [["agents", "agents"], ["agents.local", "agents"], ["skills", "skills"], ["skills.local", "skills"]] as const) {
    const dir = join(root, ".ubiquity", name);
    if (exists(dir)) add(dir, kind, kind === "agents" ? "defines subagents (their prompts and tools)" : "adds skills to the system prompt");
  }
  for (const folder of folders) {
    for (const name of ["UBIQUITY.md", join(".ubiquity", "UBIQUITY.md"), "UBIQUITY.local.md"]) {
      const file = join(folder, name);
      if (exists(file)) add(file, "memory", "adds instructions to the system prompt");
    }
  }
  return out;
}

/** `path` relative to `cwd` when inside it (`./x` never; just `x`), else absolute. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") && !rel.startsWith(sep) ? rel : path;
}

/**
 * Text from an untrusted file, safe to show in the trust question: control characters (an
 * escape sequence could erase or rewrite the lines around it) become "?", and long values are cut.
 */
export function printable(text: unknown, max = 60): string {
  const flat = String(text).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, "?");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function peekJsonOrYaml(file: string): unknown {
  const read = readRegularFileSync(file, MAX_PEEK_BYTES);
  if (!read.ok) return undefined;
  try {
    return extname(file) === ".json" || file.endsWith("package.json") ? JSON.parse(read.text) : parseYaml(read.text);
  } catch {
    return undefined;
  }
}

function describeConfig(file: string, isPackageJson: boolean): string | undefined {
  if (SCRIPT.has(extname(file))) return "runs as code";
  const data = peekJsonOrYaml(file);
  const config = isPackageJson ? (data as Record<string, unknown> | undefined)?.ubiquity : data;
  if (isPackageJson && config === undefined) return undefined;
  if (!config || typeof config !== "object") return "sets run options";
  const keys = Object.keys(config);
  const risky = keys.filter((k) => ["plugins", "presets", "hooks", "mcpServers", "providerSettings", "permissionMode", "allowedTools", "env", "apiKey"].includes(k));
  const loads = keys.includes("plugins") || keys.includes("presets") ? "; its plugins and presets run as code" : "";
  const shown = (risky.length ? risky : keys).slice(0, 8).map((k) => printable(k, 30));
  return keys.length ? `sets ${shown.join(", ")}${keys.length > shown.length && !risky.length ? ", …" : ""}${loads}` : "sets run options";
}

function describeSettings(file: string): string {
  const data = peekJsonOrYaml(file) as { hooks?: Record<string, unknown[]>; permissions?: { allow?: string[]; defaultMode?: string }; env?: object; model?: string } | undefined;
  if (!data || typeof data !== "object") return "settings (unreadable: the run will stop on it)";
  const parts: string[] = [];
  const hooks = Object.values(data.hooks ?? {}).flatMap((groups) => (Array.isArray(groups) ? groups : [])).flatMap((g) => ((g as { hooks?: unknown[] })?.hooks ?? []));
  if (hooks.length) parts.push(`adds ${hooks.length} shell hook${hooks.length === 1 ? "" : "s"}`);
  const allow = Array.isArray(data.permissions?.allow) ? data.permissions.allow : [];
  if (allow.length) parts.push(`allows ${allow.slice(0, 3).map((r) => printable(r)).join(", ")}${allow.length > 3 ? ` and ${allow.length - 3} more` : ""}`);
  if (data.permissions?.defaultMode) parts.push(`sets permission mode ${printable(data.permissions.defaultMode, 30)}`);
  if (data.env && typeof data.env === "object" && Object.keys(data.env).length) parts.push(`sets ${Object.keys(data.env).slice(0, 5).map((k) => printable(k, 30)).join(", ")} for commands`);
  if (data.model) parts.push(`sets model ${printable(data.model)}`);
  return parts.length ? parts.join(", ") : "settings (its deny and ask rules apply anyway)";
}

function describeMcp(file: string): string {
  const data = peekJsonOrYaml(file) as { mcpServers?: Record<string, unknown> } | undefined;
  const names = Object.keys(data?.mcpServers ?? {});
  return names.length ? `starts MCP server${names.length === 1 ? "" : "s"} ${names.slice(0, 5).map((n) => printable(n, 30)).join(", ")}${names.length > 5 ? ", …" : ""}` : "MCP servers";
}
