/**
 * The MCP servers of Claude Code plugins (`claudePlugins`): each plugin's `.mcp.json`, entry by
 * entry as a project's is, with `${CLAUDE_PLUGIN_ROOT}` standing for the plugin's folder, and each
 * server named `plugin_<plugin>_<server>` (its tools `mcp__plugin_<plugin>_<server>__<tool>`, as
 * Claude Code names them). A file that exists but is not JSON stops the run naming it; an MCP bundle
 * (`.mcpb`) is skipped with a warning.
 */
import { ConfigError } from "../../src/index";
import { pathExists, readRegularFileSync, type ProjectTrust } from "../../loader/index";
import { MAX_DEFINITION_BYTES, readPlugins } from "../_kits/sources/index";
import { readMcpConfigEntries, type McpServerProblem } from "./config";
import type { McpServerConfig } from "./options";

/** The servers of the plugins' `.mcp.json` files, and those that could not be used. */
export function pluginServers(
  folders: readonly string[] | undefined,
  place: { cwd: string; trust: ProjectTrust | undefined },
  report: (message: string) => void,
  reportOnce: (message: string) => void = report,
): { servers: Record<string, McpServerConfig>; failed: McpServerProblem[] } {
  const servers: Record<string, McpServerConfig> = {};
  const failed: McpServerProblem[] = [];
  // Two plugins of one name giving a server one name: neither starts (fail closed) — the later one
  // must not silently take the other's tools, the rules written for them, and a prompt tool's approvals.
  const from = new Map<string, string>();
  const clashed = new Set<string>();
  for (const plugin of readPlugins(folders, place.cwd, place.trust, reportOnce)) {
    let data: unknown;
    let path: string;
    if (plugin.inlineMcpServers) {
      // Written inline in the manifest, as Claude Code allows.
      data = { mcpServers: plugin.inlineMcpServers };
      path = `${plugin.root}/.claude-plugin/plugin.json#mcpServers`;
    } else {
      path = plugin.mcpFile!;
      // An MCP bundle (`"mcpServers": "./x.mcpb"`: a zip of a server and its manifest.json) is no
      // JSON config to parse: the plugin loads without its servers, and that is said.
      if (path.toLowerCase().endsWith(".mcpb") && pathExists(path)) {
        reportOnce(
          `plugin ${plugin.name}: its MCP servers are an MCP bundle (${path}: a zip archive of a server and its manifest.json), which ubiquity does not unpack; the plugin loads without them (unpack it and name the server in an .mcp.json to use it)`,
        );
        continue;
      }
      const read = readRegularFileSync(path, MAX_DEFINITION_BYTES);
      if (!read.ok) {
        if (read.missing) continue;
        throw new ConfigError(`the plugin's MCP config cannot be used: ${read.problem}`, path);
      }
      try {
        data = JSON.parse(read.text);
      } catch (error) {
        throw new ConfigError(
          `the plugin's MCP config is not valid JSON (${(error as Error).message}); fix it or remove the plugin`,
          path,
        );
      }
    }
    const entries = readMcpConfigEntries(data, {
      env: { ...process.env, CLAUDE_PLUGIN_ROOT: plugin.root, CLAUDE_PROJECT_DIR: place.cwd },
      source: path,
    });
    const named = (name: string) => `plugin_${plugin.name}_${name}`;
    for (const message of entries.warnings) report(`${path}: ${message}`);
    for (const [name, config] of Object.entries(entries.servers)) {
      const full = named(name);
      const other = from.get(full);
      if (other === undefined && !clashed.has(full)) {
        from.set(full, path);
        servers[full] = config;
        continue;
      }
      const error = `another plugin named "${plugin.name}" has a server "${name}" too${other ? ` (${other})` : ""}, so neither starts; rename one of the plugins`;
      report(`${path}: MCP server "${full}" was not started: ${error}`);
      failed.push({ name: full, error: `${error} (in ${path})` });
      if (other !== undefined) {
        delete servers[full];
        from.delete(full);
        clashed.add(full);
      }
    }
    for (const f of entries.failed) {
      report(`${path}: MCP server "${f.name}" was not started: ${f.error}`);
      failed.push({ ...f, name: named(f.name), error: `${f.error} (in ${path})` });
    }
  }
  return { servers, failed };
}
