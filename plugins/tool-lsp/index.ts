/**
 * `ubiquity:tool-lsp`: the LSP tool, as Claude Code has it — go to definition or implementation,
 * references, hover, the symbols of a file or a workspace, and call hierarchies, answered by the
 * language servers of the `lspServers` option and of Claude Code plugins (`lspServers` in their
 * manifest, or `.lsp.json`). The tool is offered only to runs that have a server; a server starts
 * on the first call for a file it serves, runs as MCP servers do (the sandbox's wrap, the scrubbed
 * environment), and is shut down with the session. A folder that is not trusted starts none: a
 * language server reads the project and may run its code (a tsconfig's plugins, a build script).
 */
import type { z } from "zod";
import type { RunContext, ToolContext } from "../../src/index";
import type { LspServers } from "./servers";
import { definePlugin, lazyOptions } from "../_kits/authoring/index";
import { buildSubprocessEnv, folderTrusted, trackProcessGroup } from "../_kits/process/index";
import { ClaudePluginsOption, readPlugins, warn } from "../_kits/sources/index";
import { getSandboxApi } from "../sandbox/api";
import { settingsOptions } from "../settings/api";
import { lspServersSchema, pluginServers, serversIn, type NamedServer } from "./config";

/** The plugin's name (also the owner of the tool it registers). */
export const PLUGIN_NAME = "ubiquity:tool-lsp";

// `trust` is the settings plugin's, read here too (a plugin folder inside the project needs it).
const options = lazyOptions(["lspServers", "claudePlugins", "trust"], () => ({
  lspServers: lspServersSchema().optional(),
  claudePlugins: ClaudePluginsOption,
  trust: settingsOptions.shape.trust,
}));

/** The root run of a session (subagents share its servers). */
const rootOf = (run: RunContext): RunContext => {
  let r = run;
  while (r.parent) r = r.parent;
  return r;
};

/** The run options this plugin reads. */
export type LspOptions = z.input<typeof options>;

export default definePlugin({
  name: PLUGIN_NAME,
  options,
  apply(kernel, context) {
    // Every server the kernel's options and plugins declare (read at ready, as MCP servers are).
    let servers: NamedServer[] = [];
    const pools = new WeakMap<RunContext, LspServers>();
    // The pool's class, loaded with the tool (a run without servers never loads it).
    let Pool: typeof import("./servers").LspServers | undefined;
    const report = (message: string) => warn(kernel, PLUGIN_NAME, message);

    const poolOf = (run: RunContext): LspServers => {
      const root = rootOf(run);
      let pool = pools.get(root);
      if (!pool) {
        const sandbox = getSandboxApi(kernel);
        const options = root.options as { env?: Record<string, string>; subprocessEnv?: "scrubbed" | "inherit" };
        pool = new Pool!({
          cwd: root.cwd,
          root: root.cwd,
          wrap: (spec) => sandbox.wrap(spec, { kind: "lsp", subject: [spec.command, ...spec.args].join(" ") }),
          env: (server) =>
            buildSubprocessEnv(
              { env: options.env, subprocessEnv: options.subprocessEnv },
              { add: [server.config.env], inherit: false },
            ),
          track: (pgid, reaper) => trackProcessGroup(pgid, { reaper }),
          stderr: (name, text) => kernel.logger.debug(`language server ${name}: ${text.trimEnd()}`),
        });
        pools.set(root, pool);
      }
      return pool;
    };

    // The tool is registered only where a server is configured: it costs every request its
    // definition, and its code (and the servers' client) loads only then.
    kernel.hooks.kernel.ready.tapPromise(PLUGIN_NAME, async () => {
      const { lspServers, claudePlugins, cwd, trust, tools } = context.options;
      if (tools) return; // `tools` replaces the built-in suite
      servers = [
        ...(lspServers ? serversIn(lspServers, "the lspServers option", report) : []),
        ...readPlugins(claudePlugins, cwd, trust, () => {}).flatMap((plugin) => pluginServers(plugin, report)),
      ];
      if (servers.length === 0) return;
      const [{ LspTool }, loaded] = await Promise.all([import("./lsp-tool"), import("./servers")]);
      Pool = loaded.LspServers;
      const tool = new LspTool({
        servers: () => servers,
        async connect(ctx: ToolContext, server, path, languageId) {
          const run = ctx.run;
          if (!run) throw new Error("the LSP tool needs its run (call it through a session)");
          if (!folderTrusted(run.options))
            throw new Error(
              "language servers are not started in a folder that is not trusted: they read the project and may run its code (a tsconfig's plugins, a build script); trust the folder to use LSP",
            );
          return poolOf(run).connect(server, path, languageId, ctx.abortSignal);
        },
      });
      // A plugin later in the list that registered the same name keeps it.
      const position = (owner: string) => kernel.plugins.findIndex((p) => p.plugin.name === owner);
      const claimed = kernel.registries.tools.entries().find((e) => e.name === tool.name);
      if (claimed && position(claimed.owner) > position(PLUGIN_NAME)) return;
      kernel.registries.tools.register(tool.name, tool, PLUGIN_NAME);
    });

    kernel.hooks.session.end.tapPromise(PLUGIN_NAME, async (run: RunContext) => {
      if (run.parent) return;
      const pool = pools.get(run);
      pools.delete(run);
      await pool?.close(servers);
    });
  },
});
