/** The SDK transport for one server config: stdio (a child process), SSE, or streamable HTTP. */
import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type OAuthClientProvider,
  type Transport,
} from "@modelcontextprotocol/client";
import {
  buildSubprocessEnv,
  noteArgumentSecrets,
  noteSecretForms,
  noteUrlSecrets,
  spawnFolder,
  scriptFolders,
  withoutFolderImports,
  withScriptFolders,
  type SubprocessEnvOptions,
} from "../_kits/process/index";
import type { McpServerConfig } from "./options";
import type { SpawnSpec } from "../sandbox/api";
import { StdioTransport } from "./stdio-transport";
import { noteServerPackages } from "./server-packages";
import { serverFetch } from "./server-fetch";

export { StdioTransport } from "./stdio-transport";

/** Rewrites the spawn of a stdio server (ubiquity:sandbox wraps it). */
export type SpawnWrap = (spec: SpawnSpec) => SpawnSpec;

/** How a server is reached. */
export type McpTransportKind = "stdio" | "sse" | "http";

/** The transport kind of a config (`command` means stdio). */
export function transportKind(config: McpServerConfig): McpTransportKind {
  return "command" in config ? "stdio" : config.type;
}

/** One line saying where a server is: its command line, or its URL. */
export function describeTarget(config: McpServerConfig): string {
  if ("command" in config) return [config.command, ...(config.args ?? [])].join(" ");
  return config.url;
}

/**
 * A stdio server's environment: the allow-listed variables of our process (locale, terminal,
 * PATH without relative entries, HOME, temp, TLS and proxy settings; never a credential), then
 * the run's `env`, then the server's own `env` (the most specific, so it wins; one that copies our
 * environment keeps the credentials it copied back, as the run's does). `subprocessEnv:
 * "inherit"` does not widen it: a server never got our whole environment. It is always passed to
 * the transport, so the SDK's own default environment never applies.
 */
export function serverEnv(
  config: { env?: Record<string, string> },
  options: SubprocessEnvOptions,
): Record<string, string> {
  return buildSubprocessEnv(options, { add: [config.env], inherit: false });
}

/**
 * Build the transport. A stdio server runs in the run's cwd (or its own `cwd`, relative to it)
 * when the folder is trusted; in an untrusted folder it runs outside it (`spawnFolder`: its own
 * absolute `cwd`, else the home folder), so neither its program nor npm's settings come from the
 * folder. It gets `serverEnv`; its stderr goes to `onStderr` rather than the user's terminal.
 * A remote server gets `authProvider` (./oauth), which puts the OAuth token on its requests.
 */
export function createTransport(
  config: McpServerConfig,
  cwd: string,
  onStderr: (text: string) => void,
  environment: SubprocessEnvOptions = {},
  wrap: SpawnWrap = (s) => s,
  trusted = true,
  authProvider?: OAuthClientProvider,
): Transport {
  if ("command" in config) {
    const folder = spawnFolder(cwd, trusted, config.cwd);
    // Before the sandbox wraps this or any later spawn: what the program loads from there is protected.
    noteServerPackages(config.command, config.args ?? [], folder, { ...environment.env, ...config.env });
    // A key on its command line is the server's as its env's is: masked wherever it shows (red team zc).
    noteArgumentSecrets(config.args ?? []);
    const spec = wrap({
      command: config.command,
      args: config.args ?? [],
      // Python imports no module a command planted in that folder (red team p, P1); a Python
      // script's own folder stays on the path where no sandboxed command writes (a plugin's server
      // importing its siblings, as a hook's does).
      env: withScriptFolders(
        withoutFolderImports(serverEnv(config, environment)),
        scriptFolders([config.command, ...(config.args ?? [])].join(" "), cwd),
      ),
      cwd: folder,
    });
    // Its own process group under the reaper (or the sandbox), so it ends with this program.
    const transport = new StdioTransport({ ...spec, env: spec.env ?? {} });
    transport.stderr.on("data", (chunk: Buffer) => onStderr(chunk.toString("utf8")));
    return transport;
  }
  // A header's value is a credential as often as not, whatever its name (secretsOf reads an
  // option's `headers` so): each one sent is masked from now on, including those a
  // headersHelper printed, which no option holds.
  for (const value of Object.values(config.headers ?? {})) noteSecretForms(value);
  // So is a value in the URL's query (`?api_key=`) or path (`/mcp/sk-ak-…/sse`): a server's
  // "Cannot POST /mcp?api_key=…" echoes it.
  noteUrlSecrets(config.url);
  const requestInit = config.headers ? { headers: config.headers } : undefined;
  const url = new URL(config.url);
  const auth = authProvider ? { authProvider } : {};
  // Every request, the OAuth discovery the server's answers start included, goes through the
  // guard of what a server may make us fetch.
  // An event over the bound ends the connection: the SDK would wait for the answer it held.
  const fetch = serverFetch(config.url, undefined, undefined, () => void transport.close());
  const transport =
    config.type === "sse"
      ? new SSEClientTransport(url, { requestInit, fetch, ...auth })
      : new StreamableHTTPClientTransport(url, { requestInit, fetch, ...auth });
  return transport;
}
