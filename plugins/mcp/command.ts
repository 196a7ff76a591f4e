/**
 * `ubiquity mcp list`: connect the servers of a config's kernel, print each with its status and
 * tools, close them, exit (1 when a server failed, so scripts can use it as a health check).
 * src/cli.ts builds the kernel from the config and reaches this through the facade.
 */
import type { Kernel } from "../../src/index";
import { formatMcpReport } from "./format";
import { getMcpApi, NAME } from "./index";

/** What the command table passes on. */
export interface McpCommandArgs {
  positionals: string[];
  /** Print JSON instead of text. */
  json: boolean;
}

/** Where the command writes. */
export interface McpCommandIO {
  stdout(text: string): void;
}

/** Run `ubiquity mcp <positionals>` against `kernel`; disposes the kernel. Resolves to the exit code. */
export async function mcpListCommand(kernel: Kernel, args: McpCommandArgs, io: McpCommandIO): Promise<number> {
  try {
    const [sub, ...rest] = args.positionals;
    if (sub !== "list" || rest.length > 0) {
      const got = sub === undefined ? "no subcommand" : `"${args.positionals.join(" ")}"`;
      throw new Error(`ubiquity mcp: ${got}; the one subcommand is \`ubiquity mcp list\``);
    }
    const api = getMcpApi(kernel);
    if (!api) throw new Error(`the ${NAME} plugin is not in the plugin list (the default preset has it); add it to plugins or take it out of disable`);
    await kernel.ready();
    const servers = api.servers();
    io.stdout(args.json ? `${JSON.stringify(servers, null, 2)}\n` : formatMcpReport(servers));
    return servers.some((s) => s.status !== "connected") ? 1 : 0;
  } finally {
    await kernel.dispose();
  }
}
