/** What the mcp plugin adds to the `ubiquity` runner: `ubiquity mcp list` and `run --mcp-config`. */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describeError, type Kernel } from "../../src/index";
import { UsageError } from "../../loader/index";
import type { FlagValue, PluginCommand, RunFlag } from "../../loader/index";
import { lazyImport } from "../_kits/lazy/index";
import { parseMcpConfig } from "./config";
import type { McpApi } from "./index";
import { MCP_ADD_FLAGS } from "./mcp-add-flags";

// The command's work (list, login, add) loads when it runs, not with every run's plugins.
const work = lazyImport(() => import("./mcp-command"));

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

/** `ubiquity mcp list | login | logout | add` (mcp-command.ts does the work). */
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
      run: async (args, io) => (await work()).runMcpCommand(name, apiOf, args, io),
    },
  };
}
