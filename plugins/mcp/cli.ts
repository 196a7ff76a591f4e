/** What the mcp plugin adds to the `ubiquity` runner: `ubiquity mcp list` and `run --mcp-config`. */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describeError, type Kernel } from "../../src/index";
import { isProjectFileTrusted, type ProjectTrust, UsageError } from "../../loader/index";
import type { FlagValue, PluginCommand, RunFlag } from "../../loader/index";
import { parseMcpConfig } from "./config";
import { formatMcpReport } from "./format";
import type { McpApi } from "./index";
import { runLoginCommand } from "./login-command";
import { MCP_ADD_FLAGS, runMcpAdd } from "./mcp-add";

/** `--mcp-config`: a `.mcp.json`-shaped file (the user's own: trust does not apply), or the JSON itself. */
function readMcpConfig(spec: string) {
  const inline = spec.trim().startsWith("{");
  const source = inline ? "--mcp-config" : resolve(spec);
  let text = spec;
  if (!inline) {
    try {
      text = readFileSync(source, "utf8");
    } catch (error) {
      throw new UsageError(`--mcp-config ${spec}: cannot read the file (${describeError(error)})`);
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--mcp-config ${inline ? "" : `${source}: `}not valid JSON (${describeError(error)})`);
  }
  return parseMcpConfig(data, { source });
}

const list = (value: FlagValue): string[] => (Array.isArray(value) ? value : [String(value)]);

/** `run --mcp-config`. */
export const mcpFlags: Record<string, RunFlag> = {
  "mcp-config": {
    type: "string",
    value: "<file>",
    multiple: true,
    group: "Tools and permissions",
    claude: "--mcp-config",
    description:
      "MCP servers from a .mcp.json-shaped file (or its JSON); repeatable (claude's --mcp-config a.json b.json works too)",
    // Claude's variadic form: a following JSON object or existing .json file is another config, a sentence is the prompt.
    variadic: (word) => word.trim().startsWith("{") || (word.endsWith(".json") && existsSync(word)),
    // Under --strict-mcp-config the files given here are the only servers: the config file's are left out too.
    apply: (o, v, values) =>
      void (o.mcpServers = Object.assign(
        {},
        values?.["strict-mcp-config"] ? {} : o.mcpServers,
        ...list(v).map(readMcpConfig),
      )),
  },
  "permission-prompt-tool": {
    type: "string",
    value: "<mcp tool>",
    group: "Tools and permissions",
    claude: "--permission-prompt-tool",
    description: "An MCP tool (mcp__<server>__<tool>) that answers the calls needing approval when no one can be asked",
    apply: (o, v) => {
      const name = String(v);
      if (!/^mcp__.+__.+$/.test(name))
        throw new UsageError(`--permission-prompt-tool ${name}: not an MCP tool's name (mcp__<server>__<tool>)`);
      o.permissionPromptTool = name;
    },
  },
  "strict-mcp-config": {
    type: "boolean",
    group: "Tools and permissions",
    claude: "--strict-mcp-config",
    description:
      "Start only the servers of --mcp-config: none from the config file, the project's .mcp.json or Claude Code plugins",
    apply: (o, _v, values) => {
      o.strictMcpConfig = true;
      if (values?.["mcp-config"] === undefined) o.mcpServers = {};
    },
  },
};

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
 * runner disposes the kernel.
 */
export function mcpCommands(
  name: string,
  apiOf: (kernel: Kernel) => McpApi | undefined,
): Record<string, PluginCommand> {
  return {
    mcp: {
      summary:
        "Connect the configured MCP servers, list each with its status and tools, and exit; log in to (or out of) a remote server with OAuth",
      usage:
        "list | login <server> | logout <server> | add [-t http] [-e K=v] [-s project] <name> <command-or-url> [args…]",
      positionals: true,
      config: true,
      flags: { json: { type: "boolean", description: "Print the report as JSON" }, ...MCP_ADD_FLAGS },
      async run({ values, positionals }, io) {
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
        const options = kernel.options as { cwd?: string; trust?: ProjectTrust };
        const mcpJson = join(resolve(options.cwd ?? process.cwd()), ".mcp.json");
        const skipped = existsSync(mcpJson) && !isProjectFileTrusted(options.trust, mcpJson) ? mcpJson : undefined;
        io.stdout(values.json ? `${JSON.stringify(servers, null, 2)}\n` : formatMcpReport(servers, skipped));
        return servers.some((s) => s.status !== "connected") ? 1 : 0;
      },
    },
  };
}
