/**
 * Claude Code (and Codex) plugin folders (`claudePlugins`): `.claude-plugin/plugin.json` or
 * `.codex-plugin/plugin.json` (its `name`, else the
 * folder's name) and the places of its parts — `commands/` (and folders the manifest's `commands`
 * names), `skills/`, `agents/`, `hooks/hooks.json`, `.mcp.json` — read by the plugins that load each part, namespaced
 * `plugin:name` and with `${CLAUDE_PLUGIN_ROOT}` standing for the folder, as Claude Code does.
 * A folder inside the project is one of its files (trust applies); one outside is the user's.
 */
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { z } from "zod";
import {
  isProjectFileTrusted,
  readRegularFileSync,
  realFolder,
  TrustPins,
  type ProjectTrust,
} from "../../../loader/index";
import { absolutePath } from "../../../src/index";
import { isInside } from "../paths/index";
import { definitionNameProblem, MAX_DEFINITION_BYTES } from "./sources";
import { isRecord } from "../json/index";

/** The `claudePlugins` option (declared by each plugin that loads a part of them). */
export const ClaudePluginsSchema = z
  .array(z.string())
  .describe(
    "Plugin folders of Claude Code (.claude-plugin/plugin.json) or Codex (.codex-plugin/plugin.json): their commands and skills become /plugin:name commands (skills also plugin:name in the Skill tool), agents plugin:agent subagents, hooks/hooks.json hooks run, .mcp.json servers start as plugin_<plugin>_<server>. A folder inside the project applies only where the project's files would (trust) [[]]",
  );

/** The manifest's place in a plugin folder: Claude Code's, else Codex's. */
export const PLUGIN_MANIFEST = join(".claude-plugin", "plugin.json");
export const CODEX_PLUGIN_MANIFEST = join(".codex-plugin", "plugin.json");

/** The `claudePlugins` option as each plugin's slice declares it (one instance, so the slices agree). */
export const ClaudePluginsOption = ClaudePluginsSchema.optional();

/** What is read of one plugin. */
export interface ClaudePlugin {
  name: string;
  root: string;
  /** Whose manifest it has. */
  kind: "claude" | "codex";
  /** Folders of command files: `commands/` and the manifest's `commands` paths. */
  commandDirs: string[];
  /** Folders of skills: `skills/` and the manifest's `skills` paths. */
  skillsDirs: string[];
  /** Agent files and folders: `agents/` and the manifest's `agents` paths. */
  agentPaths: string[];
  /** Hooks files: the manifest's `hooks` paths, else `hooks/hooks.json` (none when the manifest has them inline). */
  hooksFiles: string[];
  /** The manifest's `hooks` written inline (the hooks.json shape, with or without its `"hooks"` key). */
  inlineHooks?: Record<string, unknown>;
  /** Its MCP config: the manifest's `mcpServers` path, else `.mcp.json` (none when the manifest has them inline). */
  mcpFile?: string;
  /** The manifest's `mcpServers` written inline (server name → config). */
  inlineMcpServers?: Record<string, unknown>;
  /** Its language servers' file: the manifest's `lspServers` path, else `.lsp.json` (none when the manifest has them inline). */
  lspFile?: string;
  /** The manifest's `lspServers` written inline (server name → config). */
  inlineLspServers?: Record<string, unknown>;
}

/** The manifest's path list under `key` (a string or a list of strings), each inside the plugin: a `../` out of it is not followed. */
function pathsOf(
  manifest: Record<string, unknown>,
  key: string,
  root: string,
  report: (message: string) => void,
): string[] | undefined {
  const value = manifest[key];
  if (value === undefined || isRecord(value)) return undefined; // absent, or written inline (hooks, mcpServers)
  const list =
    typeof value === "string"
      ? [value]
      : Array.isArray(value) && value.every((v) => typeof v === "string")
        ? (value as string[])
        : undefined;
  if (!list) {
    report(`plugin ${root}: its manifest's "${key}" is not a path or a list of paths; the default place is read`);
    return undefined;
  }
  const inside = list.map((p) => resolve(root, p)).filter((p) => p === root || p.startsWith(`${root}/`));
  if (inside.length < list.length) report(`plugin ${root}: a "${key}" path leads outside the plugin and is not read`);
  return inside;
}

/**
 * A manifest `skills` entry that names a skill's own file (`"./skills/route/SKILL.md"`, as
 * 0xrdan/claude-router lists its eleven) means that skill's folder: read as a folder, each was
 * "not a folder" in a warning at every run, though the skill itself loaded from `skills/`.
 */
const skillFolderOf = (path: string) => (basename(path) === "SKILL.md" ? dirname(path) : path);

/**
 * `paths` without those inside another of them: a manifest that lists the files of its own
 * `agents/` or `commands/` folder (secondsky/claude-skills' plugins: `"agents": ["./agents/x.md", …]`)
 * had each file read twice, with every warning about it said twice.
 */
const outermost = (paths: string[]) => paths.filter((p, _, all) => !all.some((q) => q !== p && p.startsWith(`${q}/`)));

/**
 * Where a plugin's skills are looked for when its manifest lists none: `skills/`, or, in a plugin
 * with neither, the plugin folder itself when it holds a SKILL.md — a plugin that is one skill, which
 * Claude Code loads as `plugin:skill` (ninthspace/claude-code-marketplace's noteplan, filament-mockup
 * and js-simplifier were dropped here in silence).
 */
function defaultSkillsFolder(root: string, manifest: Record<string, unknown>): string {
  const folder = join(root, "skills");
  if (manifest.skills !== undefined || existsSync(folder) || !existsSync(join(root, "SKILL.md"))) return folder;
  return root;
}

/** Read a plugin folder's manifest; a problem is reported and the plugin skipped (a manifest that cannot be parsed is never half-read). */
export function readClaudePlugin(folder: string, report: (message: string) => void): ClaudePlugin | undefined {
  const root = resolve(folder);
  let kind: ClaudePlugin["kind"] = "claude";
  let file = join(root, PLUGIN_MANIFEST);
  let read = readRegularFileSync(file, MAX_DEFINITION_BYTES);
  if (!read.ok && read.missing) {
    const codex = readRegularFileSync(join(root, CODEX_PLUGIN_MANIFEST), MAX_DEFINITION_BYTES);
    if (codex.ok || !codex.missing) [kind, file, read] = ["codex", join(root, CODEX_PLUGIN_MANIFEST), codex];
  }
  const marketplace = read.ok || !read.missing ? undefined : marketplaceAt(root);
  if (marketplace) {
    report(marketplace);
    return undefined;
  }
  let manifest: Record<string, unknown> = {};
  if (!read.ok && !read.missing) {
    report(`skipped the plugin ${root}: ${file}: ${read.problem}`);
    return undefined;
  }
  if (read.ok) {
    try {
      const parsed: unknown = JSON.parse(read.text);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not a JSON object");
      manifest = parsed as Record<string, unknown>;
    } catch (error) {
      report(`skipped the plugin ${root}: ${file} is not valid (${(error as Error).message})`);
      return undefined;
    }
  }
  const name = typeof manifest.name === "string" && manifest.name.trim() ? manifest.name.trim() : basename(root);
  const problem = definitionNameProblem(name);
  if (problem) {
    report(`skipped the plugin ${root}: ${problem}`);
    return undefined;
  }
  const withDefault = (first: string, more: string[] | undefined) => [
    first,
    ...(more ?? []).filter((p) => p !== first),
  ];
  // `hooks` and `mcpServers` may be written inline in the manifest, as Claude Code allows.
  const inline = (key: string) => (isRecord(manifest[key]) ? (manifest[key] as Record<string, unknown>) : undefined);
  const inlineHooks = inline("hooks");
  const inlineMcp = inline("mcpServers");
  const inlineLsp = inline("lspServers");
  // Parts no plugin of ours runs are said, never dropped in silence.
  const unrun = unrunParts(root, manifest);
  if (unrun.length) report(`plugin ${name} (${root}): ${unrun.join("; ")}`);
  return {
    name,
    root,
    kind,
    commandDirs: outermost(withDefault(join(root, "commands"), pathsOf(manifest, "commands", root, report))),
    // A skill folder inside another listed folder is read with it (each skill once, its warnings once).
    skillsDirs: withDefault(
      defaultSkillsFolder(root, manifest),
      pathsOf(manifest, "skills", root, report)?.map(skillFolderOf),
    ).filter((dir, _, all) => !all.includes(dirname(dir))),
    agentPaths: outermost(withDefault(join(root, "agents"), pathsOf(manifest, "agents", root, report))),
    hooksFiles: inlineHooks ? [] : (pathsOf(manifest, "hooks", root, report) ?? [join(root, "hooks", "hooks.json")]),
    ...(inlineHooks ? { inlineHooks: isRecord(inlineHooks.hooks) ? inlineHooks.hooks : inlineHooks } : {}),
    ...(inlineMcp
      ? { inlineMcpServers: isRecord(inlineMcp.mcpServers) ? inlineMcp.mcpServers : inlineMcp }
      : { mcpFile: pathsOf(manifest, "mcpServers", root, report)?.[0] ?? join(root, ".mcp.json") }),
    ...(inlineLsp
      ? { inlineLspServers: inlineLsp }
      : { lspFile: pathsOf(manifest, "lspServers", root, report)?.[0] ?? join(root, ".lsp.json") }),
  };
}

/** A marketplace's files: Claude Code's, then Codex's. */
export const MARKETPLACES = [
  join(".claude-plugin", "marketplace.json"),
  join(".agents", "plugins", "marketplace.json"),
];

/**
 * Why a folder without a plugin manifest is no plugin because it is a marketplace (a repository
 * that lists plugins in `.claude-plugin/marketplace.json`): read as a plugin, it adds nothing, and
 * said nothing (gtapps/claude-code-hermit's repository given to `--plugin-dir`). Undefined when it
 * is no marketplace, or one that lists the folder itself as a plugin (`"source": "./"`).
 */
function marketplaceAt(root: string): string | undefined {
  const file = MARKETPLACES.map((m) => join(root, m)).find((m) => existsSync(m));
  if (!file) return undefined;
  const read = readRegularFileSync(file, MAX_DEFINITION_BYTES);
  let entries: { name?: unknown; source?: unknown }[] = [];
  try {
    const parsed: unknown = read.ok ? JSON.parse(read.text) : undefined;
    if (isRecord(parsed) && Array.isArray(parsed.plugins)) entries = parsed.plugins.filter(isRecord);
  } catch {
    // Unreadable: still no plugin here; the message names the file.
  }
  const sources = entries.map((e) => (typeof e.source === "string" ? resolve(root, e.source) : undefined));
  if (sources.includes(root)) return undefined;
  const names = entries.map((e) => e.name).filter((n): n is string => typeof n === "string");
  const first = sources.find((s) => s?.startsWith(`${root}/`));
  const listed = names.length
    ? ` (${names.length} plugin${names.length === 1 ? "" : "s"}: ${names.slice(0, 8).join(", ")}${names.length > 8 ? ", …" : ""})`
    : "";
  return `skipped ${root}: it is a plugin marketplace${listed}, not a plugin (${file} lists plugins; the folder has no ${PLUGIN_MANIFEST}), so it would add nothing: give one of its plugin folders instead${first ? ` (${first})` : ""}, or add one with \`ubiquity plugin add ${root} <plugin>\``;
}

/**
 * What a plugin declares that no plugin of ours runs (output styles, Codex apps), one message
 * each; `root` undefined reads the manifest alone (a marketplace entry).
 */
export function unrunParts(root: string | undefined, manifest: Record<string, unknown>): string[] {
  const out: string[] = [];
  const has = (file: string) => root !== undefined && existsSync(join(root, file));
  if (manifest.outputStyles !== undefined || has("output-styles"))
    out.push("its output styles (outputStyles, output-styles/) are not applied: ubiquity does not read output styles");
  // Claude Code asks for these when the plugin is enabled, then hands them to its hooks and servers as
  // CLAUDE_PLUGIN_OPTION_<key> and `${user_config.<key>}`: here nobody asks, so the plugin runs on its defaults.
  const options = isRecord(manifest.userConfig) ? Object.keys(manifest.userConfig) : [];
  if (options.length)
    out.push(
      `its userConfig options (${options.join(", ")}) are not asked for: ubiquity has no plugin options, so its hooks and servers get no CLAUDE_PLUGIN_OPTION_* variables and \${user_config.…} stays unexpanded (the plugin runs on its defaults)`,
    );
  // Codex reads `apps` (else `.app.json`): ChatGPT connectors, which only OpenAI's service reaches.
  if (manifest.apps !== undefined || has(".app.json"))
    out.push(
      "its apps (apps, .app.json) are not applied: they are ChatGPT connectors, which ubiquity cannot reach; its skills and MCP servers load",
    );
  return out;
}

/** `${CLAUDE_PLUGIN_ROOT}` in a plugin's text, as Claude Code expands it. */
export function expandPluginRoot(text: string, root: string): string {
  return text.replace(/\$\{CLAUDE_PLUGIN_ROOT\}/g, () => root);
}

/** `expand` applied to a frontmatter value: a string, or each string of a list (`allowed-tools`). */
export function expandIn(value: unknown, expand: (text: string) => string): unknown {
  if (typeof value === "string") return expand(value);
  return Array.isArray(value) ? value.map((v) => expandIn(v, expand)) : value;
}

/**
 * Whether a folder a run was told to read from (a plugin folder, a skills folder a config names)
 * applies. Inside the project — the cwd, through symlinks too, or any trusted folder covering it
 * (a repository's tools/ seen from its sub/) — it is one of the project's files, applied only
 * while approved and unchanged; outside it, the user named it (their settings or their trusted config).
 */
export function projectFolderApplies(folder: string, cwd: string, trust: ProjectTrust | undefined): boolean {
  const project =
    isInside(cwd, folder) ||
    isInside(realFolder(cwd), realFolder(folder)) ||
    (TrustPins.is(trust) && trust.covers(folder));
  return !project || isProjectFileTrusted(trust, folder);
}

/** The Claude Code plugins the options name that apply: a plugin folder is trusted as a project folder is. */
export function readPlugins(
  folders: readonly string[] | undefined,
  cwd: string,
  trust: ProjectTrust | undefined,
  report: (message: string) => void,
): ClaudePlugin[] {
  const plugins: ClaudePlugin[] = [];
  for (const written of folders ?? []) {
    const folder = absolutePath(cwd, written);
    if (!projectFolderApplies(folder, cwd, trust)) {
      report(
        `the plugin ${folder} was not loaded: its folder is not trusted (or changed since it was); trust it to use it`,
      );
      continue;
    }
    const plugin = readClaudePlugin(folder, report);
    if (!plugin || plugins.some((p) => p.root === plugin.root)) continue; // one folder named twice is one plugin
    const namesake = plugins.find((p) => p.name === plugin.name);
    if (namesake)
      report(
        `two plugins are named ${plugin.name} (${namesake.root} and ${plugin.root}): where their commands, skills or agents share a name, the later one's replace the earlier one's, and their MCP servers of one name start neither; rename one in its plugin.json`,
      );
    plugins.push(plugin);
  }
  return plugins;
}
