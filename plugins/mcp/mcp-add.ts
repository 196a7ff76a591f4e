/**
 * `ubiquity mcp add` as Claude Code's `claude mcp add` reads it: `[-t stdio|sse|http] [-e KEY=v]…
 * [-H "Name: v"]… [-s local|user|project] <name> <command-or-url> [args…]`. Servers live in files
 * here: `--scope project` writes the project's `.mcp.json` as Claude Code does (the file is then
 * new content, so a folder approved by its contents asks again: `ubiquity trust`); the other
 * scopes, whose files (`~/.claude.json`) Ubiquity does not read, print the entry to put in one.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describeError } from "../../src/index";
import { type FlagValue, UsageError } from "../../loader/index";
import { writeFileAtomic } from "../_kits/storage/index";
import { parseMcpConfig } from "./config";

export { MCP_ADD_FLAGS } from "./mcp-add-flags";

const list = (value: FlagValue | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [String(value)];

/** The `.mcp.json` entry a `claude mcp add` command line describes. */
export function mcpAddEntry(rest: readonly string[], values: Record<string, FlagValue | undefined>) {
  const [name, target, ...args] = rest;
  if (!name || !target)
    throw new UsageError(
      "ubiquity mcp add needs a name and a command or URL: mcp add <name> -- <command> [args…], or mcp add --transport http <name> <url>",
    );
  const transport = values.transport === undefined ? undefined : String(values.transport);
  if (transport !== undefined && !["stdio", "sse", "http"].includes(transport))
    throw new UsageError(`--transport ${transport}: the transports are stdio, sse and http`);
  const remote =
    transport === "sse" || transport === "http" || (transport === undefined && /^https?:\/\//.test(target));
  const pairs = (flag: string, items: string[], separator: string) =>
    Object.fromEntries(
      items.map((item) => {
        const at = item.indexOf(separator);
        if (at <= 0)
          throw new UsageError(`--${flag} ${item}: not ${separator === "=" ? "KEY=value" : "'Name: value'"}`);
        return [item.slice(0, at).trim(), item.slice(at + 1).trim()];
      }),
    );
  const env = pairs("env", list(values.env), "=");
  const headers = pairs("header", list(values.header), ":");
  if (remote) {
    if (args.length > 0)
      throw new UsageError(`mcp add ${name}: a ${transport ?? "http"} server takes a URL, not arguments`);
    if (Object.keys(env).length > 0) throw new UsageError("--env is for a stdio server; a remote one takes --header");
    return {
      name,
      entry: { type: transport ?? "http", url: target, ...(Object.keys(headers).length ? { headers } : {}) },
    };
  }
  if (Object.keys(headers).length > 0) throw new UsageError("--header is for a remote server; a stdio one takes --env");
  return {
    name,
    entry: { command: target, ...(args.length ? { args } : {}), ...(Object.keys(env).length ? { env } : {}) },
  };
}

/** `ubiquity mcp add …`: writes `.mcp.json` under `--scope project`, otherwise says what to write where. */
export function runMcpAdd(
  rest: readonly string[],
  values: Record<string, FlagValue | undefined>,
  cwd: string,
  stdout: (text: string) => void,
): number {
  const scope = values.scope === undefined ? "local" : String(values.scope);
  if (!["local", "user", "project"].includes(scope))
    throw new UsageError(`--scope ${scope}: the scopes are local, user and project`);
  const { name, entry } = mcpAddEntry(rest, values);
  const json = JSON.stringify({ mcpServers: { [name]: entry } });
  if (scope !== "project")
    throw new UsageError(
      `ubiquity mcp add --scope ${scope}: Claude Code keeps ${scope} servers in ~/.claude.json, which is not read here; --scope project writes the project's .mcp.json, or put ${json} there (or the entry under mcpServers in the config); then \`ubiquity mcp list\` starts it`,
    );
  const file = join(resolve(cwd), ".mcp.json");
  let data: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      data = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    } catch (error) {
      throw new UsageError(`${file}: not valid JSON (${describeError(error)}); fix it, then run mcp add again`);
    }
    if (typeof data !== "object" || data === null || Array.isArray(data))
      throw new UsageError(`${file}: not a JSON object; fix it, then run mcp add again`);
  }
  const servers = (data.mcpServers ?? {}) as Record<string, unknown>;
  if (typeof servers !== "object" || Array.isArray(servers))
    throw new UsageError(`${file}: "mcpServers" is not an object; fix it, then run mcp add again`);
  if (name in servers)
    throw new UsageError(`${file} has a server "${name}" already; remove it there first, or choose another name`);
  // Refused here, not at the next run: the entry as the server list will read it (every
  // `${VAR}` counts as set, since this shell need not have the server's variables).
  const anyVariable = new Proxy({}, { get: () => "set" }) as Record<string, string>;
  try {
    parseMcpConfig({ mcpServers: { [name]: entry } }, { source: file, env: anyVariable });
  } catch (error) {
    throw new UsageError(`mcp add ${name}: ${describeError(error)}`);
  }
  writeFileAtomic(file, `${JSON.stringify({ ...data, mcpServers: { ...servers, [name]: entry } }, null, 2)}\n`);
  stdout(
    `Added ${"url" in entry ? entry.type : "stdio"} MCP server "${name}" to ${file}; \`ubiquity mcp list\` starts it (a folder you trusted by its files asks again: \`ubiquity trust\`)\n`,
  );
  return 0;
}
