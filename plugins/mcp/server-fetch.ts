/**
 * What a remote MCP server may make this process fetch. Its own URL's host is the user's choice
 * and is reached as configured. Any other host it names — protected-resource metadata in a
 * `WWW-Authenticate` answer, the authorization servers that metadata lists, their registration
 * and token endpoints — is reached only at public addresses when the server itself is public: a
 * server on the internet cannot point the client at the metadata service (169.254.169.254), the
 * loopback or the intranet, from the host and outside the sandbox's proxy, with no one asked. A
 * server that is itself local or private (a deployment inside the network) may name hosts there.
 */
import type { FetchLike } from "@modelcontextprotocol/client";
import { lazyRequire } from "../_kits/lazy/index";
import { nonPublicReason } from "../web/api";

// Loaded on the first request that names another host: an import would cost every run's start.
const dns = lazyRequire<typeof import("node:dns/promises")>("node:dns/promises");
const net = lazyRequire<typeof import("node:net")>("node:net");

/** How a name is resolved (every address). */
export type ResolveAll = (host: string) => Promise<string[]>;

const resolveAll: ResolveAll = async (host) => (await dns().lookup(host, { all: true })).map((a) => a.address);

/** Why `host` is not public (a literal, or any address its name resolves to), or undefined. */
async function nonPublicHost(host: string, resolve: ResolveAll): Promise<string | undefined> {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (net().isIP(bare)) return nonPublicReason(bare);
  let addresses: string[];
  try {
    addresses = await resolve(bare);
  } catch (error) {
    return `${bare} did not resolve (${(error as Error).message})`;
  }
  if (addresses.length === 0) return `${bare} resolved to no address`;
  for (const address of addresses) {
    const why = nonPublicReason(address);
    if (why) return `${bare} resolves to ${address}: ${why}`;
  }
  return undefined;
}

/**
 * `fetch` for the requests made on behalf of the remote server at `serverUrl` (see above). A
 * redirect is followed here, each hop judged as a first request is (fetch's own following would
 * judge none): a public host's 302 to the metadata service is refused too.
 */
export function serverFetch(serverUrl: string, resolve: ResolveAll = resolveAll, base: FetchLike = fetch): FetchLike {
  const own = new URL(serverUrl);
  let serverIsPublic: Promise<boolean> | undefined;
  const judge = async (url: URL) => {
    if (url.host === own.host) return;
    serverIsPublic ??= nonPublicHost(own.hostname, resolve).then((why) => why === undefined);
    if (!(await serverIsPublic)) return;
    const why = await nonPublicHost(url.hostname, resolve);
    if (why)
      throw new Error(
        `refused to fetch ${url.origin}${url.pathname}, which MCP server ${own.origin} named: ${why}; a public server may only name public hosts`,
      );
  };
  return async (input, init) => {
    let url = new URL(String(input instanceof Request ? input.url : input));
    await judge(url);
    // The caller follows redirects itself (the SDK does, within the origin): each of its hops comes here.
    if (init?.redirect === "manual" || init?.redirect === "error") return base(input, init);
    for (let hops = 0; ; hops++) {
      const response = await base(url, { ...init, redirect: "manual" });
      const location = response.status >= 300 && response.status < 400 ? response.headers.get("location") : null;
      const method = (init?.method ?? "GET").toUpperCase();
      if (!location || hops === 5 || (method !== "GET" && response.status !== 307 && response.status !== 308))
        return response;
      await response.body?.cancel().catch(() => {});
      url = new URL(location, url);
      await judge(url);
    }
  };
}
