/**
 * `ubiquity:mcp`: the servers of `options.mcpServers` (stdio, SSE, streamable HTTP) through
 * `@modelcontextprotocol/client`. Their tools are registered as `mcp__<server>__<tool>` and go
 * through the same funnel as built-in tools: permission rules, user hooks, tool_use/tool_result.
 * Servers connect in parallel at `kernel.ready` (a failing one never fails the run), report
 * their status in `system/init` (`extra.mcpServers`), and are closed and reaped at
 * `kernel.dispose`. `ubiquity mcp list` is `mcpListCommand` (./command), reached through the facade.
 */
import { getSandboxApi, type SpawnSpec } from "../sandbox/api";
import { z } from "zod";
import { type Kernel } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { folderTrusted } from "../_kits/process/index";
import type { McpServerConfig, McpResolvedOptions } from "./options";
import type { McpServers, McpServerReport } from "./servers";
import { mcpCommands, mcpFlags } from "./cli";
import { mcpOptions } from "./options";
import { getSettingsApi } from "../settings/api";
import { warn, warnOnce } from "../_kits/sources/index";
import { pluginServers } from "./plugin-servers";

export { parseMcpConfig, type ParseMcpConfigOptions } from "./config";
export { formatMcpReport } from "./format";
export { mcpToolName } from "./names";
export { toToolOutput, describeBlock } from "./content";
export type { McpServerStatus, McpServerReport, McpToolReport } from "./servers";
export type { McpTransportKind } from "./transport";

/** The plugin's name (also the owner of the tools it registers). */
export const NAME = "ubiquity:mcp";

/** Options of the mcp plugin. */
export const McpPluginOptions = z.strictObject({
  /** How long a server may take to start and list its tools [30000]. */
  connectTimeoutMs: z.number().int().positive().default(30_000),
  /** How long one tool call may take [600000]: coding tools (builds, test runs) are slow. */
  toolTimeoutMs: z.number().int().positive().default(600_000),
  /**
   * The protocol revision [auto]: `auto` asks `server/discover` (2026-07-28) and falls back to the
   * 2025 handshake; `legacy` speaks only the 2025 handshake; `2026-07-28` requires that revision.
   */
  protocol: z.enum(["auto", "legacy", "2026-07-28"]).default("auto"),
});
/** Options of the mcp plugin, as passed to its factory. */
export type McpPluginOptions = z.input<typeof McpPluginOptions>;

/** What other code (the runner's `mcp list`, tests) can ask the plugin about a kernel. */
export interface McpApi {
  /** Every configured server with its status and tools, sorted by name. */
  servers(): McpServerReport[];
}

const apis = new WeakMap<Kernel, McpApi>();

/** The mcp plugin's API on a kernel (undefined when the plugin is not loaded). */
export function getMcpApi(kernel: Kernel): McpApi | undefined {
  return apis.get(kernel);
}

/** The mcp plugin. */
export const mcpPlugin = definePlugin(NAME, McpPluginOptions, function mcp(options) {
  return {
    name: NAME,
    options: mcpOptions,
    commands: mcpCommands(NAME, getMcpApi),
    flags: mcpFlags,
    apply(kernel) {
      let servers: McpServers | undefined;
      // The servers of Claude Code plugins' .mcp.json files (read at ready), under the options' own.
      let fromPlugins: ReturnType<typeof pluginServers> = { servers: {}, failed: [] };
      // Servers of a .mcp.json that could not be used (a bad entry, an unset ${VAR}): failed, by name.
      const unusable = () => {
        const configured = (kernel.options as McpResolvedOptions).mcpServers ?? {};
        return [...getSettingsApi(kernel).mcpFailures, ...fromPlugins.failed].filter((f) => !(f.name in configured));
      };
      apis.set(kernel, {
        servers: () =>
          [...(servers?.report() ?? []), ...unusable().map((f): McpServerReport => ({ name: f.name, transport: "stdio", target: "", status: "failed", error: f.error, tools: [] }))].sort((a, b) =>
            a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
          ),
      });

      kernel.hooks.kernel.ready.tapPromise(NAME, async () => {
        const { claudePlugins, cwd, trust } = kernel.options as McpResolvedOptions;
        fromPlugins = pluginServers(claudePlugins, { cwd, trust }, (message) => warn(kernel, NAME, message), (message) => warnOnce(kernel, NAME, message));
        const configured = { ...fromPlugins.servers, ...(kernel.options as McpResolvedOptions).mcpServers } as Record<string, McpServerConfig>;
        if (Object.keys(configured).length === 0) return;
        // The MCP SDK costs ~250 ms to import: only runs that configure servers pay for it.
        const { McpServers } = await import("./servers");
        const wrap = (spec: SpawnSpec) => getSandboxApi(kernel).wrap(spec, { kind: "mcp", subject: [spec.command, ...spec.args].join(" ") });
        const trusted = folderTrusted(kernel.options);
        servers = new McpServers(configured, { ...options, cwd: kernel.options.cwd, logger: kernel.logger, environment: kernel.options, wrap, trusted }, NAME);
        await servers.connect(kernel);
      });

      kernel.hooks.session.start.tap(NAME, (run) => {
        const failed = unusable().map((f) => ({ name: f.name, status: "failed" as const, error: f.error }));
        if (servers || failed.length) run.initExtra.mcpServers = [...(servers?.statuses() ?? []), ...failed];
      });

      kernel.hooks.kernel.dispose.tapPromise(NAME, async () => {
        await servers?.close();
      });
    },
  };
});

export default mcpPlugin;
export { pluginServers } from "./plugin-servers";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
