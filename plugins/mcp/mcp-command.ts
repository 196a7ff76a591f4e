/**
 * What `ubiquity mcp` runs (list, login, logout, add), loaded when the command runs: a plain run
 * lists the command among the runner's but never loads this (cli.ts keeps the declaration).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Kernel, redactText, secretsOf } from "../../src/index";
import { isProjectFileTrusted, UsageError } from "../../loader/index";
import { readOption } from "../_kits/authoring/index";
import type { CommandArgs, CommandIO } from "../../loader/index";
import { formatMcpReport } from "./format";
import { mcpOptions } from "./options";
import type { McpApi } from "./index";
import { runLoginCommand } from "./login-command";
import { runMcpAdd } from "./mcp-add";

/**
 * `claude mcp remove fs` and `add-json`: servers live in files here, so the error says which file
 * to edit (`mcp add` is mcp-add.ts).
 */
function notAdded(sub: string, rest: readonly string[]): string {
  const [name = "<name>", target = "<command>", ...args] = rest;
  const entry = /^https?:\/\//.test(target)
    ? { type: "http", url: target }
    : { command: target, ...(args.length ? { args } : {}) };
  const json = JSON.stringify({ mcpServers: { [name]: entry } });
  return sub === "remove"
    ? `ubiquity mcp ${sub} is not a command: servers live in files — remove "${name}" from the project's .mcp.json (or mcpServers in the config, or [mcp_servers.${name}] in ~/.codex/config.toml under --compat codex)`
    : `ubiquity mcp ${sub} is not a command (claude mcp add is): servers live in files — put ${json} in the project's .mcp.json (claude mcp add --scope project writes the same), or the entry under mcpServers in the config; then \`ubiquity mcp list\` starts it`;
}

/**
 * `ubiquity mcp list`: connect the servers of a kernel built from the config, print each with its
 * status and tools, exit (1 when a server failed, so scripts can use it as a health check). The
 * runner disposes the kernel. `login`, `logout` and `add` as their modules say.
 */
export async function runMcpCommand(
  name: string,
  apiOf: (kernel: Kernel) => McpApi | undefined,
  { values, positionals }: CommandArgs,
  io: CommandIO,
): Promise<number> {
  const [sub, ...rest] = positionals;
  if ((sub === "login" || sub === "logout") && rest.length <= 1)
    return runLoginCommand(sub, rest[0], await io.kernel({ quiet: true }), io);
  if (sub === "add")
    return runMcpAdd(rest, values, typeof values.cwd === "string" ? values.cwd : process.cwd(), io.stdout);
  if (sub === "remove" || sub === "add-json") throw new UsageError(notAdded(sub, rest));
  if (sub !== "list" || rest.length > 0) {
    const got = sub === undefined ? "no subcommand" : `"${positionals.join(" ")}"`;
    throw new UsageError(
      `ubiquity mcp: ${got}; the subcommands are \`ubiquity mcp list\`, \`ubiquity mcp login <server>\` and \`ubiquity mcp logout <server>\``,
    );
  }
  // The report shows every failure; the console logger would print each a second time.
  const kernel = await io.kernel({ quiet: true });
  const api = apiOf(kernel);
  if (!api)
    throw new Error(
      `the ${name} plugin is not in the plugin list (the default preset has it); add it to plugins or take it out of disable`,
    );
  await kernel.ready();
  const servers = api.servers();
  // An untrusted folder's .mcp.json was skipped: "none configured" alone would contradict the file.
  const mcpJson = join(resolve(kernel.options.cwd), ".mcp.json");
  const trust = readOption(mcpOptions, kernel.options, "trust");
  const skipped = existsSync(mcpJson) && !isProjectFileTrusted(trust, mcpJson) ? mcpJson : undefined;
  // Masked as every output is: a server's target holds its keys (a URL's, a command line's), its error may echo one.
  const report = values.json ? `${JSON.stringify(servers, null, 2)}\n` : formatMcpReport(servers, skipped);
  io.stdout(redactText(report, secretsOf(kernel.options)));
  return servers.some((s) => s.status !== "connected") ? 1 : 0;
}
