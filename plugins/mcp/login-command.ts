/** `ubiquity mcp login <server>` and `ubiquity mcp logout <server>`: OAuth tokens of a remote server (./oauth). */
import { describeError, type Kernel } from "../../src/index";
import { UsageError } from "../../loader/index";
import { mcpOptions, type McpServerConfig } from "./options";

/** The server `name` of the kernel's config, or a usage error listing the remote ones. */
function serverOf(kernel: Kernel, name: string | undefined, sub: string): McpServerConfig {
  // Read through the slice's schema: a runner command has the kernel, not the plugin's context.
  const read = mcpOptions.shape.mcpServers.safeParse(kernel.options.mcpServers);
  const servers: Record<string, McpServerConfig> = (read.success ? read.data : undefined) ?? {};
  const remote = Object.keys(servers).filter((n) => !("command" in servers[n]!));
  const known = remote.length
    ? `the remote servers configured are: ${remote.join(", ")}`
    : "no remote (http, sse) server is configured";
  if (!name) throw new UsageError(`ubiquity mcp ${sub}: name the server (${known})`);
  const config = servers[name];
  if (!config) throw new UsageError(`ubiquity mcp ${sub}: no MCP server "${name}" in the config; ${known}`);
  return config;
}

/** Run `login` or `logout` for `name`; resolves to the exit code. */
export async function runLoginCommand(
  sub: "login" | "logout",
  name: string | undefined,
  kernel: Kernel,
  io: { stdout(text: string): void; stderr(text: string): void },
): Promise<number> {
  const config = serverOf(kernel, name, sub);
  const { loginMcpServer, logoutMcpServer } = await import("./oauth");
  if (sub === "logout") {
    const removed = await logoutMcpServer(name!, config);
    io.stdout(
      removed
        ? `Logged out of MCP server "${name}": its tokens are deleted.\n`
        : `MCP server "${name}" had no stored tokens.\n`,
    );
    return 0;
  }
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  try {
    const result = await loginMcpServer(name!, config, { print: (text) => io.stdout(text), signal: controller.signal });
    io.stdout(
      `Logged in to MCP server "${name}"${result.scope ? ` (scope: ${result.scope})` : ""}; the tokens are in ${result.path} (readable by you only).\n`,
    );
    return 0;
  } catch (error) {
    io.stderr(`error: ubiquity mcp login ${name}: ${describeError(error)}\n`);
    return 1;
  } finally {
    process.off("SIGINT", onSignal);
  }
}
