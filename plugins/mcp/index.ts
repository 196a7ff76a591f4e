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
import type { Kernel } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { folderTrusted } from "../_kits/process/index";
import type { McpServerConfig } from "./options";
import type { McpServers, McpServerReport } from "./servers";
import { mcpCommands, mcpFlags } from "./cli";
import { mcpOptions } from "./options";
import { getSettingsApi } from "../settings/api";
import { warn, warnOnce } from "../_kits/sources/index";
import { pluginServers } from "./plugin-servers";
import { relativeArgsWarnings } from "./untrusted-args";
import { tapPermissionPromptTool } from "./permission-prompt";
import { noteServerSecrets } from "./server-secrets";
import type { McpResourceContents, McpResourceInfo, McpResourceTemplateInfo } from "./resources";
import { McpResourceError } from "./resource-error";
import type { McpFeatures } from "./features";
import { ELICITATION_CALL } from "./names";
import type { TerminalAnswerer } from "../../loader/index";
import { lazyImport } from "../_kits/lazy/index";
import { PROMPT_STAGE, REQUEST_STAGE } from "../../src/index";
import { offerOnly } from "../_kits/tool-search/index";
import "./init-fields";

export { parseMcpConfig, type ParseMcpConfigOptions } from "./config";
export { formatMcpReport } from "./format";
export { mcpToolName } from "./names";
export type { McpServerStatus, McpServerReport, McpToolReport } from "./servers";
export type { McpTransportKind } from "./transport";
export type { McpResourceInfo, McpResourceTemplateInfo, McpResourceContents } from "./resources";
export { McpResourceError } from "./resource-error";
export type { McpElicitation, McpElicitationResult, McpElicitationValue, OnElicitation } from "./elicitation";
export type { McpProgressEvent, McpLogEvent, McpListChangedEvent } from "./events";

// The terminal's answers to a server's elicitation: a question only a connected server can ask.
const elicitation = lazyImport(() => import("./elicitation"));
const elicitInTerminal: TerminalAnswerer = async (call, terminal) =>
  call.toolName === ELICITATION_CALL ? (await elicitation()).elicitInTerminal(call, terminal) : undefined;

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

/** What other code (the runner's `mcp list`, tests, `Query.readMcpResource`) can ask the plugin about a kernel. */
export interface McpApi {
  /** Every configured server with its status and tools, sorted by name. */
  servers(): McpServerReport[];
  /** The resources (and uri templates) of the connected servers, or of `server`; rejects for an unknown server. */
  listMcpResources(server?: string): Promise<{ resources: McpResourceInfo[]; templates: McpResourceTemplateInfo[] }>;
  /** Read one resource; rejects (McpResourceError) when the server is unknown, not connected, offers no resources or fails. */
  readMcpResource(server: string, uri: string): Promise<McpResourceContents>;
}

const apis = new WeakMap<Kernel, McpApi>();

/** The mcp plugin's API on a kernel (undefined when the plugin is not loaded). */
export function getMcpApi(kernel: Kernel): McpApi | undefined {
  return apis.get(kernel);
}

/** Nothing listed: no server is configured. */
const noResources = () => ({ resources: [], templates: [] });

/** The servers' reports, with the .mcp.json entries that could not be used as failed ones, by name. */
function reportsOf(
  servers: McpServers | undefined,
  unusable: readonly { name: string; error: string }[],
): McpServerReport[] {
  const failed = unusable.map(
    (f): McpServerReport => ({
      name: f.name,
      transport: "stdio",
      target: "",
      status: "failed",
      error: f.error,
      tools: [],
    }),
  );
  return [...(servers?.report() ?? []), ...failed].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The mcp plugin. */
export const mcpPlugin = definePlugin({
  name: NAME,
  options: mcpOptions,
  factoryOptions: McpPluginOptions,
  commands: mcpCommands(NAME, getMcpApi),
  flags: mcpFlags,
  terminal: elicitInTerminal,
  apply(kernel, context) {
    let servers: McpServers | undefined;
    // Resources, prompts, tool search, notifications (features.ts), once servers are configured.
    let features: McpFeatures | undefined;
    // The servers of Claude Code plugins' .mcp.json files (read at ready), under the options' own.
    let fromPlugins: ReturnType<typeof pluginServers> = { servers: {}, failed: [] };
    // Servers of a .mcp.json that could not be used (a bad entry, an unset ${VAR}): failed, by name.
    const unusable = () => {
      const configured = context.options.mcpServers ?? {};
      return [...getSettingsApi(kernel).mcpFailures, ...fromPlugins.failed].filter((f) => !(f.name in configured));
    };
    apis.set(kernel, {
      servers: () => reportsOf(servers, unusable()),
      listMcpResources: async (server) =>
        features ? features.resources.list(server) : server === undefined ? noResources() : noServers(server),
      readMcpResource: async (server, uri) => (features ? features.resources.read(server, uri) : noServers(server)),
    });

    tapPermissionPromptTool(kernel, NAME, (run) => context.optionsOf(run).permissionPromptTool);
    // Every configured server's keys are secrets from now, not from its connection (red team zl, ZL4).
    kernel.hooks.kernel.configResolved.tap(NAME, (options) => noteServerSecrets(context.optionsOf(options).mcpServers));

    kernel.hooks.kernel.ready.tapPromise(NAME, async () => {
      const { claudePlugins, cwd, trust, strictMcpConfig } = context.options;
      if (!strictMcpConfig)
        fromPlugins = pluginServers(
          claudePlugins,
          { cwd, trust },
          (message) => warn(kernel, NAME, message),
          (message) => warnOnce(kernel, NAME, message),
        );
      const configured = { ...fromPlugins.servers, ...context.options.mcpServers } as Record<string, McpServerConfig>;
      // A server of the options (a project's .mcp.json or config.toml among them) named as a plugin's
      // (plugin_<plugin>_<server>): neither starts — one must not silently take the other's tools,
      // the rules written for them, and a prompt tool's approvals.
      for (const name of Object.keys(fromPlugins.servers)) {
        if (!context.options.mcpServers || !Object.hasOwn(context.options.mcpServers, name)) continue;
        delete configured[name];
        const error = `a server of mcpServers (or .mcp.json, or config.toml) has the name of a plugin's server, so neither starts; rename it`;
        warn(kernel, NAME, `MCP server "${name}" was not started: ${error}`);
        fromPlugins = { ...fromPlugins, failed: [...fromPlugins.failed, { name, error }] };
      }
      if (Object.keys(configured).length === 0) return;
      // The MCP SDK costs ~250 ms to import: only runs that configure servers pay for it.
      const [{ McpServers }, { McpFeatures }] = await Promise.all([import("./servers"), import("./features")]);
      const wrap = (spec: SpawnSpec) =>
        getSandboxApi(kernel).wrap(spec, { kind: "mcp", subject: [spec.command, ...spec.args].join(" ") });
      const trusted = folderTrusted(kernel.options);
      for (const message of relativeArgsWarnings(configured, kernel.options.cwd, trusted)) warn(kernel, NAME, message);
      features = new McpFeatures(
        kernel,
        NAME,
        () => servers,
        () => context.options.mcpToolSearch,
      );
      servers = new McpServers(
        configured,
        {
          ...context.factoryOptions,
          cwd: kernel.options.cwd,
          logger: kernel.logger,
          environment: kernel.options,
          wrap,
          trusted,
          ...features.clientOptions(),
        },
        NAME,
      );
      await servers.connect(kernel);
      await features.ready();
    });

    kernel.hooks.tool.list.tapPromise(NAME, async (tools, run) =>
      features ? features.toolSearch.list(tools, run) : tools,
    );

    // Deferred MCP tools are left out of what the request offers (before compaction sizes it).
    kernel.hooks.model.request.tap({ name: NAME, stage: REQUEST_STAGE.ASSEMBLE }, (request, run) => {
      const offered = features?.toolSearch.offer(request.toolList, run);
      return offered ? offerOnly(request, offered) : request;
    });

    kernel.hooks.tool.afterCall.tapPromise(NAME, async (output, call) => {
      if (!features) return output;
      features.toolSearch.called(call.run, call.toolName);
      // A resource the run holds changed during the work: the next result carries its new contents.
      const changed = await features.resources.changedFor(call.run);
      return changed.length ? { ...output, content: [output.content, ...changed].join("\n\n") } : output;
    });

    // After the commands plugin (an MCP prompt's text may mention resources too), before the hooks see the prompt.
    kernel.hooks.turn.prompt.tapPromise(
      { name: NAME, stage: PROMPT_STAGE.EXPAND, after: "ubiquity:commands" },
      async (prompt, run) => {
        if (!features || prompt.source !== "user" || run.agent || prompt.blocked !== undefined) return prompt;
        const changed = await features.resources.changedFor(run);
        const next = changed.length ? { ...prompt, context: [...prompt.context, ...changed] } : prompt;
        return features.resources.expandMentions(next, run);
      },
    );

    kernel.hooks.session.end.tap(NAME, (run) => {
      features?.resources.release(run);
    });

    kernel.hooks.session.start.tap(NAME, (run) => {
      const failed = unusable().map((f) => ({ name: f.name, status: "failed" as const, error: f.error }));
      if (!servers && !failed.length) return;
      const statuses = [...(servers?.statuses() ?? []), ...failed];
      run.initFields.mcpServers = statuses;
      run.initExtra.mcpServers = statuses;
    });

    kernel.hooks.kernel.dispose.tapPromise(NAME, async () => {
      await servers?.close();
    });
  },
});

/** The answer of the resource API on a kernel without servers. */
function noServers(server: string): never {
  throw new McpResourceError(`no MCP server is named "${server}" (no MCP servers are configured: mcpServers)`);
}

export default mcpPlugin;
export { pluginServers } from "./plugin-servers";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
