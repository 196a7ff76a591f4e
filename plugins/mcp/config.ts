/**
 * MCP server configs read from JSON. Accepts a map of servers, or the file shape Claude Desktop
 * and Claude Code use (`{ "mcpServers": { … } }`, i.e. `.mcp.json`), so those files work as they
 * are: `${VAR}` and `${VAR:-default}` are expanded from the environment, and a server with a
 * `url` and no `type` is streamable HTTP.
 */
import { z } from "zod";
import { ConfigError } from "../../src/index";
import { isProviderKey } from "../model/api";
import { mcpOptions, McpServerSchema, type McpServerConfig } from "./options";

/** The same schema `options.mcpServers` is validated with. */
// Built on first use, with the MCP options slice (a run without servers builds neither).
let serversSchema: ReturnType<typeof mcpOptions.shape.mcpServers.unwrap> | undefined;

/** Options of `parseMcpConfig`. */
export interface ParseMcpConfigOptions {
  /** Where `${VAR}` is looked up [process.env]. */
  env?: Record<string, string | undefined>;
  /** Named in errors, e.g. the file the object came from. */
  source?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Expand `${VAR}` and `${VAR:-default}`; an unset variable without a default is an error naming it.
 * Red-team fix: a model provider's key is never expanded (an error naming the variable, not its
 * value): a file's server would otherwise get the key in its environment or arguments (which every
 * local user sees in /proc), or send it to its URL, where the subprocess allow-list keeps it away.
 */
function expand(text: string, env: Record<string, string | undefined>, where: string, source?: string): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_, name: string, fallback: string | undefined) => {
      if (isProviderKey(name))
        throw new ConfigError(
          `${where}: \${${name}} is a model provider's key, which is never handed to an MCP server from a file; give the server a key of its own under another variable, or set its env in code (options.mcpServers)`,
          source,
        );
      const value = env[name];
      if (value !== undefined && value !== "") return value;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(
        `${where}: \${${name}} is not set; set ${name} in the environment or write \${${name}:-default}`,
        source,
      );
    },
  );
}

function expandServer(
  name: string,
  server: unknown,
  env: Record<string, string | undefined>,
  source?: string,
): unknown {
  if (!isObject(server)) return server;
  const at = (key: string) => `mcpServers.${name}.${key}`;
  const out: Record<string, unknown> = { ...server };
  const str = (key: string) => {
    if (typeof out[key] === "string") out[key] = expand(out[key], env, at(key), source);
  };
  const map = (key: string) => {
    const value = out[key];
    if (isObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [
          k,
          typeof v === "string" ? expand(v, env, at(`${key}.${k}`), source) : v,
        ]),
      );
    }
  };
  str("command");
  str("cwd");
  str("url");
  if (Array.isArray(out.args))
    out.args = out.args.map((a, i) => (typeof a === "string" ? expand(a, env, at(`args[${i}]`), source) : a));
  map("env");
  map("headers");
  if (out.type === undefined && typeof out.url === "string" && out.command === undefined) out.type = "http";
  return out;
}

/** Parse MCP server configs from JSON: a server map, or a `.mcp.json` / Claude Desktop file object. Strict: the first problem throws. */
export function parseMcpConfig(value: unknown, options: ParseMcpConfigOptions = {}): Record<string, McpServerConfig> {
  const { env = process.env, source } = options;
  const servers = serversOf(value, source);
  const expanded = Object.fromEntries(
    Object.entries(servers).map(([name, server]) => [name, expandServer(name, server, env, source)]),
  );
  const result = (serversSchema ??= mcpOptions.shape.mcpServers.unwrap()).safeParse(expanded);
  if (!result.success) throw new ConfigError(`invalid MCP config:\n${z.prettifyError(result.error)}`, source);
  return result.data;
}

function serversOf(value: unknown, source: string | undefined): Record<string, unknown> {
  const servers = isObject(value) && isObject(value.mcpServers) ? value.mcpServers : value;
  if (!isObject(servers)) {
    throw new ConfigError(
      'MCP config must be an object of servers ({ "name": { "command": … } }) or a file object with "mcpServers"',
      source,
    );
  }
  return servers;
}

/** A server of a `.mcp.json` that cannot be used, and why (the message names the server and the fix). */
export interface McpServerProblem {
  name: string;
  error: string;
}

/** What `readMcpConfigEntries` made of a file: the usable servers, the failed ones, and warnings. */
export interface McpConfigEntries {
  servers: Record<string, McpServerConfig>;
  failed: McpServerProblem[];
  /** Keys that were ignored, each message naming the server and the key. */
  warnings: string[];
}

/** The keys ubiquity reads for each kind of server; any other key is reported and dropped. */
const KNOWN_KEYS = {
  stdio: new Set(["type", "command", "args", "env", "cwd", "readOnly", "roots"]),
  remote: new Set(["type", "url", "headers", "headersHelper", "oauth", "readOnly", "roots"]),
};

/** Keys that switch a server off (`"enabled": false`, `"disabled": true`): read, never passed on. */
const ON_OFF_KEYS = new Set(["enabled", "disabled"]);

/**
 * Read another tool's MCP file (`.mcp.json`, Claude Desktop's config) entry by entry, the way
 * Claude Code does: a malformed entry or an unset `${VAR}` fails only its own server (a message
 * names it), and a key ubiquity does not read is reported and ignored. Only a file that is not an
 * object of servers at all throws.
 */
export function readMcpConfigEntries(value: unknown, options: ParseMcpConfigOptions = {}): McpConfigEntries {
  const { env = process.env, source } = options;
  const out: McpConfigEntries = { servers: {}, failed: [], warnings: [] };
  for (const [name, server] of Object.entries(serversOf(value, source))) {
    // `"enabled": false` / `"disabled": true` (Cline's and many templates' spelling) say the author
    // wants the server off: it is not started, rather than started with the key ignored.
    if (isObject(server) && (server.enabled === false || server.disabled === true)) {
      out.warnings.push(
        `mcpServers.${name} says ${server.enabled === false ? '"enabled": false' : '"disabled": true'}, so it was not started; remove that key to start it`,
      );
      continue;
    }
    let expanded: unknown;
    try {
      expanded = expandServer(name, server, env);
    } catch (error) {
      out.failed.push({ name, error: error instanceof Error ? error.message : String(error) });
      continue;
    }
    if (isObject(expanded)) {
      const known = "command" in expanded ? KNOWN_KEYS.stdio : KNOWN_KEYS.remote;
      // `enabled` / `disabled` were read above (a server left on by them starts): no warning.
      const unknown = Object.keys(expanded).filter((k) => !known.has(k) && !ON_OFF_KEYS.has(k));
      for (const key of unknown)
        out.warnings.push(`mcpServers.${name}: the key "${key}" is not one ubiquity reads; it was ignored`);
      expanded = Object.fromEntries(Object.entries(expanded).filter(([k]) => known.has(k)));
    }
    const parsed = McpServerSchema.safeParse(expanded);
    if (parsed.success) out.servers[name] = parsed.data;
    else
      out.failed.push({
        name,
        error: `mcpServers.${name} is not a usable server config (${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, " ")}); fix or remove this entry`,
      });
  }
  return out;
}
