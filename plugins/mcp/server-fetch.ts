/**
 * What a remote MCP server may make this process fetch. Its own URL's host is the user's choice
 * and is reached as configured — at the kind of address its name first resolved to: a name whose
 * first answer held a public address is reached only at public addresses from then on, the check
 * inside each connection's own lookup (a name that answered the internet first and the loopback
 * later had the client send its requests, the configured headers with them, to a service on this
 * machine and read its answers: DNS rebinding, red team zf, ZF2); a name that resolved to private
 * addresses only (`localhost`, a server inside the network) is the user's local server and reached
 * as it resolves. Any other host it names — protected-resource metadata in a
 * `WWW-Authenticate` answer, the authorization servers that metadata lists, their registration
 * and token endpoints — is reached only at public addresses when the server itself is public: a
 * server on the internet cannot point the client at the metadata service (169.254.169.254), the
 * loopback or the intranet, from the host and outside the sandbox's proxy, with no one asked. A
 * server that is itself local or private (a deployment inside the network) may name hosts there.
 */
import type { FetchLike } from "@modelcontextprotocol/client";
import { lazyRequire } from "../_kits/lazy/index";
import { heldFetch, nonPublicReason, publicFetch, resolveAll, type ResolveAll } from "../web/api";
import { boundedResponse } from "./message-bound";

// Loaded on the first request that names another host: an import would cost every run's start.
const net = lazyRequire<typeof import("node:net")>("node:net");

export type { ResolveAll };

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

/** The most of a named host's answer read (discovery documents and token answers are a few kilobytes). */
const MAX_NAMED_BODY = 1024 * 1024;

/**
 * A request to a host the server named, by node's http(s) with the address check inside the
 * socket's own lookup: the address judged is the address connected to. Judging a name first and
 * letting `fetch` resolve it again let a name answer a public address to the check and the
 * metadata service or the loopback to the connection (DNS rebinding, red team x, X3). Redirects
 * are not followed here (the caller judges each hop); the body is read whole, up to a bound.
 */
export async function pinnedFetch(
  url: URL,
  init: RequestInit | undefined,
  resolve: ResolveAll,
  /** Why an address may not be reached (a test's stand-in may let the loopback count as public). */
  refuse: (address: string) => string | undefined = nonPublicReason,
): Promise<Response> {
  const response = await publicFetch(url, init, resolve, refuse);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body)
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > MAX_NAMED_BODY) {
        await response.body.cancel().catch(() => {});
        throw new Error(`${url.origin}${url.pathname} answered more than ${MAX_NAMED_BODY} bytes`);
      }
      chunks.push(chunk);
    }
  return new Response(response.body ? Buffer.concat(chunks) : null, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * `fetch` for the requests made on behalf of the remote server at `serverUrl` (see above). A
 * redirect is followed here, each hop judged as a first request is (fetch's own following would
 * judge none): a public host's 302 to the metadata service is refused too. A public server's
 * requests to a host it named go through `pinnedFetch`, so the address judged is the one reached
 * (unless `base` is given: a test's stand-in for the network, which takes every request).
 */
export function serverFetch(
  serverUrl: string,
  resolve: ResolveAll = resolveAll,
  base?: FetchLike,
  /** Called when an event stream's message passes the bound (the caller ends the connection). */
  onTooLarge?: () => void,
): FetchLike {
  const own = new URL(serverUrl);
  let serverIsPublic: Promise<boolean> | undefined;
  // The server's own host: held to the kind of address its name first resolved to (../web/held-fetch).
  const held = heldFetch(resolve);
  const toOwnHost = (url: URL, init: RequestInit | undefined): Promise<Response> =>
    base ? base(url, init) : held(url, init);
  /** Judge `url`; true when it is a host the (public) server named, to be reached only through `pinnedFetch`. */
  const judge = async (url: URL): Promise<boolean> => {
    if (url.host === own.host) return false;
    serverIsPublic ??= nonPublicHost(own.hostname, resolve).then((why) => why === undefined);
    if (!(await serverIsPublic)) return false;
    const why = await nonPublicHost(url.hostname, resolve);
    if (why)
      throw new Error(
        `refused to fetch ${url.origin}${url.pathname}, which MCP server ${own.origin} named: ${why}; a public server may only name public hosts`,
      );
    return true;
  };
  // `base` (a test's stand-in for the network) takes every request, judged but not pinned.
  const send = (url: URL, init: RequestInit | undefined, named: boolean) =>
    named && !base
      ? pinnedFetch(url, init, resolve)
      : url.host === own.host
        ? toOwnHost(url, init)
        : (base ?? fetch)(url, init);
  // Every answer is read up to a bound (./message-bound): the server is a third party.
  const bounded = (response: Response) => boundedResponse(response, `MCP server ${own.origin}`, onTooLarge);
  return async (input, init) => {
    let url = new URL(String(input instanceof Request ? input.url : input));
    let named = await judge(url);
    // The caller follows redirects itself (the SDK does, within the origin): each of its hops comes here.
    if (init?.redirect === "manual" || init?.redirect === "error")
      return bounded(
        await (named && !base
          ? pinnedFetch(url, init, resolve)
          : url.host === own.host
            ? toOwnHost(url, init)
            : (base ?? fetch)(input, init)),
      );
    for (let hops = 0; ; hops++) {
      const response = await send(url, { ...init, redirect: "manual" }, named);
      const location = response.status >= 300 && response.status < 400 ? response.headers.get("location") : null;
      const method = (init?.method ?? "GET").toUpperCase();
      if (!location || hops === 5 || (method !== "GET" && response.status !== 307 && response.status !== 308))
        return bounded(response);
      await response.body?.cancel().catch(() => {});
      url = new URL(location, url);
      named = await judge(url);
    }
  };
}
