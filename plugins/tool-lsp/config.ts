/**
 * Language server configurations, in Claude Code's shape: the `lspServers` option, and each
 * Claude Code plugin's `lspServers` (written in its manifest, or a path to a JSON file) or its
 * `.lsp.json`, with `${CLAUDE_PLUGIN_ROOT}` standing for the plugin's folder. A server serves the
 * files whose extension its `extensionToLanguage` names.
 */
import { join, resolve } from "node:path";
import { z } from "zod";
import { readRegularFileSync } from "../../loader/index";
import { expandPluginRoot, MAX_DEFINITION_BYTES, type ClaudePlugin } from "../_kits/sources/index";
import { isRecord } from "../_kits/json/index";

/** One language server, as Claude Code's `lspServers` entries are written (built on first use: cold start). */
export const lspServerSchema = once(() =>
  z.object({
    command: z.string().min(1).describe("The server's program (on PATH, or a path)"),
    args: z.array(z.string()).optional().describe("Its arguments (most servers need `--stdio` or `serve`)"),
    extensionToLanguage: z
      .record(z.string().regex(/^\.[^/]+$/, "an extension starts with a dot"), z.string().min(1))
      .refine((m) => Object.keys(m).length > 0, "name at least one extension")
      .describe('File extensions it serves and their language ids: { ".ts": "typescript" }'),
    env: z.record(z.string(), z.string()).optional().describe("Variables added to its environment"),
    transport: z.enum(["stdio", "socket"]).optional().describe("How it is reached; only stdio is supported [stdio]"),
    initializationOptions: z.unknown().optional().describe("Sent in its `initialize` request"),
    settings: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("What it is answered when it asks for its settings (workspace/configuration)"),
    workspaceFolder: z.string().optional().describe("Its workspace folder, relative to the working directory [.]"),
    startupTimeout: z.number().int().positive().optional().describe("Longest its start may take, in ms [60000]"),
    shutdownTimeout: z.number().int().positive().optional().describe("Longest its shutdown may take, in ms [5000]"),
    restartOnCrash: z.boolean().optional().describe("Start it again on the next call after it crashed [true]"),
    maxRestarts: z.number().int().nonnegative().optional().describe("Restarts after crashes, at most [3]"),
  }),
);
export type LspServerConfig = z.output<ReturnType<typeof lspServerSchema>>;

/** The `lspServers` option: server name → configuration. */
export const lspServersSchema = once(() =>
  z
    .record(z.string().min(1), lspServerSchema())
    .describe(
      "Language servers for the LSP tool, as Claude Code's lspServers: name → { command, args, extensionToLanguage, env, … }. Claude Code plugins' lspServers and .lsp.json add theirs [{}]",
    ),
);

function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

/** A configured server with where it came from. */
export interface NamedServer {
  name: string;
  config: LspServerConfig;
  /** The file or option that declared it (for messages). */
  source: string;
}

/** The servers a map declares; an entry that is not a valid configuration is reported and skipped. */
export function serversIn(map: unknown, source: string, report: (message: string) => void): NamedServer[] {
  if (!isRecord(map)) {
    report(`${source}: lspServers is not an object of server name → configuration; no server of it is used`);
    return [];
  }
  const out: NamedServer[] = [];
  for (const [name, value] of Object.entries(map)) {
    const parsed = lspServerSchema().safeParse(value);
    if (!parsed.success) {
      report(
        `${source}: the language server "${name}" is not used: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`,
      );
      continue;
    }
    if (parsed.data.transport === "socket") {
      report(`${source}: the language server "${name}" is not used: only the stdio transport is supported`);
      continue;
    }
    out.push({ name, config: parsed.data, source });
  }
  return out;
}

/** Every string of a configuration with `${CLAUDE_PLUGIN_ROOT}` expanded. */
function expandRoot(config: unknown, root: string): unknown {
  if (typeof config === "string") return expandPluginRoot(config, root);
  if (Array.isArray(config)) return config.map((v) => expandRoot(v, root));
  if (isRecord(config)) return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, expandRoot(v, root)]));
  return config;
}

/**
 * A plugin's servers: its manifest's `lspServers` (inline, or a path inside the plugin to a JSON
 * file of them), else its `.lsp.json`; each named `plugin:<plugin>:<server>`.
 */
export function pluginServers(plugin: ClaudePlugin, report: (message: string) => void): NamedServer[] {
  let declared: unknown = plugin.inlineLspServers;
  let source = `${join(plugin.root, ".claude-plugin", "plugin.json")}#lspServers`;
  if (declared === undefined) {
    const path = plugin.lspFile ?? join(plugin.root, ".lsp.json");
    if (!resolve(path).startsWith(`${plugin.root}/`)) {
      report(`plugin ${plugin.name}: its lspServers path leads outside the plugin and is not read`);
      return [];
    }
    const read = readRegularFileSync(path, MAX_DEFINITION_BYTES);
    if (!read.ok) {
      if (!read.missing) report(`plugin ${plugin.name}: ${path}: ${read.problem}`);
      return [];
    }
    try {
      declared = JSON.parse(read.text);
    } catch (error) {
      report(
        `plugin ${plugin.name}: ${path} is not valid JSON (${(error as Error).message}); its servers are not used`,
      );
      return [];
    }
    source = path;
    // A file written as the manifest key ({ "lspServers": { … } }) is read the same.
    if (isRecord(declared) && isRecord(declared.lspServers) && Object.keys(declared).length === 1)
      declared = declared.lspServers;
  }
  return serversIn(expandRoot(declared, plugin.root), source, report).map((s) => ({
    ...s,
    name: `plugin:${plugin.name}:${s.name}`,
  }));
}

/** The server for a file: the first whose `extensionToLanguage` names its extension (exact case first, as `.C` differs from `.c`). */
export function serverFor(
  servers: readonly NamedServer[],
  path: string,
): { server: NamedServer; languageId: string } | undefined {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return undefined;
  const ext = path.slice(dot);
  for (const server of servers) {
    const languageId = Object.hasOwn(server.config.extensionToLanguage, ext)
      ? server.config.extensionToLanguage[ext]
      : undefined;
    if (languageId) return { server, languageId };
  }
  const lower = ext.toLowerCase();
  for (const server of servers)
    for (const [e, languageId] of Object.entries(server.config.extensionToLanguage))
      if (e.toLowerCase() === lower) return { server, languageId };
  return undefined;
}
