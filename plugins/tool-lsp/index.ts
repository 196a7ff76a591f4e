/**
 * `ubiquity:tool-lsp`: the LSP tool, as Claude Code has it — go to definition or implementation,
 * references, hover, the symbols of a file or a workspace, and call hierarchies, answered by the
 * language servers of the `lspServers` option and of Claude Code plugins (`lspServers` in their
 * manifest, or `.lsp.json`). The tool is offered only to runs that have a server; a server starts
 * on the first call for a file it serves, runs as MCP servers do (the sandbox's wrap, the scrubbed
 * environment), and is shut down with the session. A folder that is not trusted starts none: a
 * language server reads the project and may run its code (a tsconfig's plugins, a build script).
 * An edit of a file a server serves also tells the server, and the errors and warnings it finds
 * come back with the next tool result (`lspDiagnostics`, on by default; see ./diagnostics.ts).
 */
import { z } from "zod";
import type { RunContext, ToolCall, ToolContext, ToolOutput } from "../../src/index";
import type { LspServers } from "./servers";
import type { DiagnosticsTracker } from "./diagnostics";
import { definePlugin, lazyOptions } from "../_kits/authoring/index";
import {
  buildSubprocessEnv,
  folderTrusted,
  noteArgumentSecrets,
  noteEnvSecrets,
  noteServerPackages,
  withoutFolderImports,
} from "../_kits/process/index";
import { ClaudePluginsOption, readPlugins, warn } from "../_kits/sources/index";
import { getSandboxApi } from "../sandbox/api";
import { getPermissionsApi } from "../permissions/api";
import { settingsOptions } from "../settings/api";
import { lspServersSchema, pluginServers, serverFor, serversIn, type NamedServer } from "./config";

/** The plugin's name (also the owner of the tool it registers). */
export const PLUGIN_NAME = "ubiquity:tool-lsp";

// `trust` is the settings plugin's, read here too (a plugin folder inside the project needs it).
const options = lazyOptions(["lspServers", "lspDiagnostics", "claudePlugins", "trust"], () => ({
  lspServers: lspServersSchema().optional(),
  lspDiagnostics: z
    .union([z.boolean(), z.strictObject({ timeoutMs: z.number().int().positive().optional() })])
    .optional()
    .describe(
      "After an edit of a file a language server serves, show the model the new errors and warnings the server reports, with the next tool result; timeoutMs: how long after the edit the server's report is waited for [true, 2000]",
    ),
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
        const options = root.options;
        pool = new Pool!({
          cwd: root.cwd,
          root: root.cwd,
          wrap: (spec) => sandbox.wrap(spec, { kind: "lsp", subject: [spec.command, ...spec.args].join(" ") }),
          // Python imports no module a command planted in the project (red team p, P6, as P1).
          env: (server) =>
            withoutFolderImports(
              buildSubprocessEnv(
                { env: options.env, subprocessEnv: options.subprocessEnv },
                { add: [server.config.env], inherit: false },
              ),
            ),
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
      // A server starts lazily, in the project, with the MCP servers' network, after the run's
      // commands: the packages it runs by name and the paths its env names are kept from them from
      // now on, as an MCP server's are when it starts (red team p, P6).
      const env = context.options.env;
      for (const { config } of servers) {
        noteServerPackages(config.command, config.args ?? [], cwd, { ...env, ...config.env });
        noteArgumentSecrets(config.args ?? []); // a key on its command line is masked (red team zc, ZC6)
        noteEnvSecrets(config.env); // …and in its env, from now, not from its lazy start (red team zh, ZH6)
      }
      const [{ LspTool }, loaded, diagnostics] = await Promise.all([
        import("./lsp-tool"),
        import("./servers"),
        import("./diagnostics"),
      ]);
      Pool = loaded.LspServers;
      const wanted = context.options.lspDiagnostics ?? true;
      if (wanted !== false)
        tracker = new diagnostics.DiagnosticsTracker(
          (typeof wanted === "object" ? wanted.timeoutMs : undefined) ?? diagnostics.DEFAULT_DIAGNOSTICS_TIMEOUT_MS,
          rootOf,
        );
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

    // Diagnostics after edits: what earlier edits brought goes out with this result; an edit of a
    // served file tells its server (the run's folder trusted, as for any call of the tool).
    let tracker: DiagnosticsTracker | undefined;
    kernel.hooks.tool.afterCall.tapPromise(PLUGIN_NAME, async (output: ToolOutput, call: ToolCall) => {
      if (!tracker) return output;
      const run = call.run;
      if (getPermissionsApi(kernel).readDenyRule(run) || !folderTrusted(run.options)) {
        tracker.forget(run); // a report could carry a denied file's text without naming it (see hover)
        return output;
      }
      const block = await tracker.take(run, call.context.abortSignal);
      if (call.tool.kind === "edit" && output.isError !== true)
        for (const path of editedPaths(output.metadata)) {
          const match = serverFor(servers, path);
          if (!match) continue;
          const { server, languageId } = match;
          tracker.edited(run, path, server.name, (file) => poolOf(run).connect(server, file, languageId));
        }
      return block ? { ...output, content: `${output.content}\n\n${block}` } : output;
    });

    kernel.hooks.session.end.tapPromise(PLUGIN_NAME, async (run: RunContext) => {
      if (run.parent) return;
      const pool = pools.get(run);
      pools.delete(run);
      await pool?.close(servers);
    });
  },
});

/** The files an edit-kind tool's result says it changed: `path` (Write, Edit), `files[].path` (apply_patch; not the deleted). */
function editedPaths(metadata: Record<string, unknown> | undefined): string[] {
  if (typeof metadata?.path === "string") return [metadata.path];
  const files = Array.isArray(metadata?.files) ? (metadata.files as { path?: unknown; action?: unknown }[]) : [];
  return files.flatMap((f) => (typeof f?.path === "string" && f.action !== "delete" ? [f.path] : []));
}
