/**
 * Requests to an endpoint the user configured by name — a remote MCP server, a search backend, an
 * HTTP hook — held to the kind of address the name first resolved to. `fetch` resolves the name
 * again at every connection: a name that answered the internet first and the loopback or the
 * intranet later (DNS rebinding) made this process send its requests, their headers and bodies
 * with them, to a service on this machine and read its answers (red team zf, ZF2). A name whose
 * first answer held a public address is reached only at public addresses from then on, the check
 * inside each connection's own lookup (the address judged is the address connected to); a name
 * that resolved to private addresses only (`localhost`, a server inside the network) is the user's
 * local service and is reached as it resolves, by `fetch`. A first answer that did not come is
 * asked again at the next request, and this one is held to public addresses.
 *
 * Behind the environment's proxy (node's `NODE_USE_ENV_PROXY` or `--use-env-proxy` with
 * `HTTP(S)_PROXY`, the host not in `NO_PROXY`), this process resolves no name: the proxy connects,
 * and a name it resolves to its own loopback reaches the proxy's machine, never this one. Such a
 * request goes through `fetch` and the proxy, as the user's network requires (a network with only
 * a proxy could not reach a remote MCP server otherwise).
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
  const local = new Map<string, Promise<boolean | undefined>>();
  const agents: { http?: Agent; https?: Agent } = {};
  return async (url, init) => {
    const name = url.hostname.replace(/^\[(.*)\]$/, "$1");
    if (net().isIP(name) || proxiedByEnvironment(url)) return fetch(url, init);
    let first = local.get(name);
    if (!first) {
      first = resolve(name).then(
        (addresses) => addresses.length > 0 && addresses.every((a) => nonPublicReason(a) !== undefined),
        () => undefined,
      );
      local.set(name, first);
    }
    const isLocal = await first;
    if (isLocal === undefined) local.delete(name);
    if (isLocal) return fetch(url, init);
    const agent =
      url.protocol === "https:"
        ? (agents.https ??= new (https().Agent)({ keepAlive: true }))
        : (agents.http ??= new (http().Agent)({ keepAlive: true }));
    return publicFetch(url, init, resolve, nonPublicReason, agent);
  };
}

/**
 * Whether node sends a request for `url` to the environment's proxy: `NODE_USE_ENV_PROXY=1` (or
 * `--use-env-proxy` in the process's flags or NODE_OPTIONS) with the scheme's proxy variable set,
 * and the host in no `NO_PROXY` entry (`*`, a name, `.suffix`; a port is not compared).
 */
export function proxiedByEnvironment(
  url: URL,
  env: NodeJS.ProcessEnv = process.env,
  flags: readonly string[] = process.execArgv,
): boolean {
  const on =
    env.NODE_USE_ENV_PROXY === "1" ||
    flags.includes("--use-env-proxy") ||
    /(^|\s)--use-env-proxy(\s|$)/.test(env.NODE_OPTIONS ?? "");
  const proxy = url.protocol === "https:" ? (env.HTTPS_PROXY ?? env.https_proxy) : (env.HTTP_PROXY ?? env.http_proxy);
  if (!on || !proxy) return false;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return !(env.NO_PROXY ?? env.no_proxy ?? "")
    .split(/[\s,]+/)
    .map((entry) =>
      entry
        .replace(/:\d+$/, "")
        .replace(/^\*?\./, "")
        .toLowerCase(),
    )
    .some((entry) => entry === "*" || (entry !== "" && (host === entry || host.endsWith(`.${entry}`))));
}
