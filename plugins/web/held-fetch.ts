/**
 * Requests to an endpoint the user configured by name — a remote MCP server, a search backend, an
 * HTTP hook — held to the addresses the name first resolved to. `fetch` resolves the name again
 * at every connection: a name that answered the internet first and the loopback or the intranet
 * later (DNS rebinding) made this process send its requests, their headers and bodies with them,
 * to a service on this machine and read its answers (red team zf, ZF2). A name whose first answer
 * held a public address is reached only at public addresses from then on; a name that resolved to
 * private addresses only (`localhost`, a server inside the network) is reached at those addresses
 * or public ones, never at another private one: a first answer from the intranet (the attacker's
 * DNS answering 10.9.9.9 to the judgement, the server's address next, then 127.0.0.1) made ZF2's
 * rebinding work again through `fetch` (red team zh, ZH4). The check is inside each connection's
 * own lookup (the address judged is the address connected to). A first answer that did not come
 * is asked again at the next request, and this one is held to public addresses. An endpoint given
 * by its address is held to it the same way, and no redirect is followed here (the caller judges
 * each hop; `fetch` followed them unjudged: red team zh, ZH5).
 *
 * Behind the environment's proxy (node's `NODE_USE_ENV_PROXY` or `--use-env-proxy` with
 * `http(s)_proxy`, the host in no `no_proxy` entry, read as node reads them) a held name's request
 * goes through the proxy, as the user's network requires (a network with only a proxy could not
 * reach a remote MCP server otherwise), in a tunnel this process asks the proxy to open to the
 * address it judged (`CONNECT 93.184.216.34:443`, TLS named for the host): a proxy given the name
 * resolves it again, and a proxy on this machine (cntlm, px, a corporate agent) reached this
 * machine's loopback for a rebound name (red team zh, ZH2); and whether node's `fetch` sends a
 * request to the proxy or connects itself, resolving the name again, is node's reading of the
 * variables, which this one only mirrors (ZH1: `no_proxy` before `NO_PROXY`). A held request never
 * goes through a connection someone else resolves.
 */
import type { Agent, IncomingMessage } from "node:http";
import type { LookupFunction } from "node:net";
import { lazyRequire } from "../_kits/lazy/index";
import { nonPublicReason } from "./address";

// Loaded on the first request that needs them: an import would cost every run's start.
const dns = lazyRequire<typeof import("node:dns/promises")>("node:dns/promises");
const net = lazyRequire<typeof import("node:net")>("node:net");
const http = lazyRequire<typeof import("node:http")>("node:http");
const https = lazyRequire<typeof import("node:https")>("node:https");
const stream = lazyRequire<typeof import("node:stream")>("node:stream");
const tls = lazyRequire<typeof import("node:tls")>("node:tls");

/** How a name is resolved (every address). */
export type ResolveAll = (host: string) => Promise<string[]>;

/** The system's resolver (getaddrinfo, as `fetch` and node's sockets use it). */
export const resolveAll: ResolveAll = async (host) => (await dns().lookup(host, { all: true })).map((a) => a.address);

/**
 * A request by node's http(s) whose connection's lookup refuses an address `refuse` names (a
 * non-public one by default), its answer handed on as it arrives. Redirects are not followed
 * (the caller judges each hop). The body may be a string, bytes or form parameters.
 */
export function publicFetch(
  url: URL,
  init: RequestInit | undefined,
  resolve: ResolveAll = resolveAll,
  refuse: (address: string) => string | undefined = nonPublicReason,
  agent?: Agent,
): Promise<Response> {
  const lookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const why =
          addresses.length === 0
            ? `${hostname} resolved to no address`
            : addresses.map((a) => refuse(a) && `${hostname} resolves to ${a}: ${refuse(a)}`).find(Boolean);
        if (why)
          return callback(
            Object.assign(new Error(`refused to connect to ${hostname}: ${why}`), { code: "EPRIVATEADDRESS" }),
            "",
            4,
          );
        const all = addresses.map((address) => ({ address, family: net().isIP(address) }));
        if (options.all) return (callback as unknown as (e: null, a: typeof all) => void)(null, all);
        callback(null, all[0]!.address, all[0]!.family);
      },
      (error: Error) => callback(error, "", 4),
    );
  };
  const headers = new Headers(init?.headers);
  let body: string | Uint8Array | undefined;
  const given = init?.body;
  if (typeof given === "string" || given instanceof Uint8Array) body = given;
  else if (given instanceof URLSearchParams) {
    body = given.toString();
    if (!headers.has("content-type")) headers.set("content-type", "application/x-www-form-urlencoded;charset=UTF-8");
  } else if (given !== undefined && given !== null)
    return Promise.reject(new Error(`a request to ${url.origin} has a body this client does not send`));
  const send = url.protocol === "https:" ? https().request : http().request;
  return new Promise((done, fail) => {
    const req = send(url, {
      method: init?.method ?? "GET",
      headers: Object.fromEntries(headers),
      lookup,
      agent: agent ?? false,
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    req.once("error", fail);
    req.once("response", (res) => done(asResponse(res, init?.method)));
    req.end(body);
  });
}

/** An answer as fetch gives it, its body read as it arrives. */
function asResponse(res: IncomingMessage, method = "GET"): Response {
  const status = res.statusCode ?? 502;
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers))
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  const empty = status === 204 || status === 205 || status === 304 || method.toUpperCase() === "HEAD";
  if (empty) res.resume();
  const body = empty ? null : (stream().Readable.toWeb(res) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: res.statusMessage, headers });
}

/**
 * `fetch` for one configured endpoint (see above); `resolve` stands in for the system's resolver
 * in tests. Each name is judged by its own first answer; connections to a held name are kept for
 * the next request.
 */
export function heldFetch(resolve: ResolveAll = resolveAll): (url: URL, init?: RequestInit) => Promise<Response> {
  const firsts = new Map<string, Promise<ReadonlySet<string> | undefined>>();
  const agents: { http?: Agent; https?: Agent } = {};
  return async (url, init) => {
    const name = url.hostname.replace(/^\[(.*)\]$/, "$1");
    // An address is its own first answer. Nothing goes to `fetch`: it follows redirects unjudged
    // (a backend configured by its public address sent the search to the loopback: ZH5).
    let first = firsts.get(name);
    if (!first) {
      first = (net().isIP(name) ? Promise.resolve([name]) : resolve(name)).then(
        (addresses) => new Set(addresses.some((a) => !nonPublicReason(a)) ? [] : addresses),
        () => undefined,
      );
      firsts.set(name, first);
    }
    const known = await first;
    if (known === undefined) firsts.delete(name);
    const refuse = (address: string) => {
      if (known?.has(address)) return undefined;
      const why = nonPublicReason(address);
      return why && known?.size ? `${why}, and not one it first resolved to (${[...known].join(", ")})` : why;
    };
    const proxy = environmentProxy(url);
    if (proxy) return publicFetch(url, init, resolve, refuse, tunnelAgent(url, proxy, resolve, refuse));
    const agent =
      url.protocol === "https:"
        ? (agents.https ??= new (https().Agent)({ keepAlive: true }))
        : (agents.http ??= new (http().Agent)({ keepAlive: true }));
    return publicFetch(url, init, resolve, refuse, agent);
  };
}

/**
 * An agent whose one connection is a tunnel `proxy` opens to the address `url`'s host resolves to
 * here, each of its addresses judged by `refuse`, TLS on top for https named for the host.
 */
function tunnelAgent(
  url: URL,
  proxy: URL,
  resolve: ResolveAll,
  refuse: (address: string) => string | undefined,
): Agent {
  const secure = url.protocol === "https:";
  const agent = secure ? new (https().Agent)({ keepAlive: false }) : new (http().Agent)({ keepAlive: false });
  const name = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = url.port || (secure ? "443" : "80");
  const open = async () => {
    const addresses = net().isIP(name)
      ? [name]
      : await resolve(name).catch((error: NodeJS.ErrnoException) => {
          // A network where only the proxy resolves names: say why the name is resolved here at all.
          throw Object.assign(
            new Error(
              `${name} could not be resolved on this machine (${error.code ?? error.message}): behind the proxy ${proxy.host} the name is still resolved here, so that the address the tunnel goes to can be judged (a name must not lead to this machine's or the network's private services); make it resolvable here (a DNS server, an /etc/hosts entry) or give the endpoint by its public address`,
            ),
            { code: error.code },
          );
        });
    const why =
      addresses.length === 0
        ? `${name} resolved to no address`
        : addresses.map((a) => refuse(a) && `${name} resolves to ${a}: ${refuse(a)}`).find(Boolean);
    if (why) throw Object.assign(new Error(`refused to connect to ${name}: ${why}`), { code: "EPRIVATEADDRESS" });
    const address = addresses[0]!;
    const socket = await proxyTunnel(proxy, net().isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`);
    return secure ? tls().connect({ socket, servername: name, host: name }) : socket;
  };
  agent.createConnection = (_options, done) => {
    open().then(
      (socket) => done?.(null, socket),
      (error: Error) => done?.(error, undefined as never),
    );
    return undefined;
  };
  return agent;
}

/** A socket through `proxy` to `authority` (`address:port`), opened by CONNECT. */
function proxyTunnel(proxy: URL, authority: string): Promise<import("node:net").Socket> {
  const auth = proxy.username
    ? `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString("base64")}`
    : undefined;
  const req = (proxy.protocol === "https:" ? https() : http()).request({
    host: proxy.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: proxy.port || (proxy.protocol === "https:" ? 443 : 80),
    method: "CONNECT",
    path: authority,
    headers: { host: authority, ...(auth ? { "proxy-authorization": auth } : {}) },
    agent: false,
  });
  return new Promise((done, fail) => {
    req.once("error", fail);
    req.once("connect", (res, socket) => {
      if (res.statusCode === 200) return done(socket);
      socket.destroy();
      fail(
        new Error(
          `the proxy ${proxy.host} refused a tunnel to ${authority} (${res.statusCode} ${res.statusMessage ?? ""})`,
        ),
      );
    });
    req.end();
  });
}

/**
 * Whether node sends a request for `url` to the environment's proxy: see environmentProxy.
 */
export function proxiedByEnvironment(
  url: URL,
  env: NodeJS.ProcessEnv = process.env,
  flags: readonly string[] = process.execArgv,
): boolean {
  return environmentProxy(url, env, flags) !== undefined;
}

/**
 * The proxy node sends a request for `url` to, as its EnvHttpProxyAgent reads the variables:
 * `NODE_USE_ENV_PROXY=1` (or `--use-env-proxy` in the process's flags or NODE_OPTIONS); the
 * scheme's proxy, the lower-case variable first (`https_proxy`, else `HTTPS_PROXY`; an empty one
 * there means the http proxy's); the host in no entry of `no_proxy` (else `NO_PROXY`): `*`, a
 * name, `.suffix` (a port is not compared). Undefined when none, or the proxy is no http(s) URL.
 * heldFetch connects itself either way (a tunnel through the proxy, or straight): a reading that
 * differs from node's changes which way, never which address.
 */
export function environmentProxy(
  url: URL,
  env: NodeJS.ProcessEnv = process.env,
  flags: readonly string[] = process.execArgv,
): URL | undefined {
  const on =
    env.NODE_USE_ENV_PROXY === "1" ||
    flags.includes("--use-env-proxy") ||
    /(^|\s)--use-env-proxy(\s|$)/.test(env.NODE_OPTIONS ?? "");
  if (!on) return undefined;
  const httpProxy = env.http_proxy ?? env.HTTP_PROXY;
  const proxy = url.protocol === "https:" ? (env.https_proxy ?? env.HTTPS_PROXY) || httpProxy : httpProxy;
  if (!proxy) return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const excluded = (env.no_proxy ?? env.NO_PROXY ?? "")
    .split(/[\s,]+/)
    .map((entry) =>
      entry
        .replace(/:\d+$/, "")
        .replace(/^\*?\./, "")
        .toLowerCase(),
    )
    .some((entry) => entry === "*" || (entry !== "" && (host === entry || host.endsWith(`.${entry}`))));
  if (excluded) return undefined;
  const parsed = URL.canParse(proxy) ? new URL(proxy) : undefined;
  return parsed && (parsed.protocol === "http:" || parsed.protocol === "https:") ? parsed : undefined;
}
