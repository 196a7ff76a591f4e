/**
 * The client side of WebFetch: one GET through node's http/https, with every limit enforced
 * here. Redirects are handled by hand: a redirect to the same host is followed (up to a limit),
 * one to another host is returned to the caller as such, never followed. The address check runs
 * inside the socket's own DNS lookup, so the address judged is the address connected to (a name
 * that resolves to a public address when checked and to 127.0.0.1 when used cannot slip past),
 * and it runs again for every hop. The body is read up to a byte cap (after decompression, so a
 * compressed bomb stops at the cap too) under one timeout for the whole fetch.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { Agent, IncomingMessage } from "node:http";
import { isIP, type LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import { lazyRequire } from "../_kits/lazy/index";
import { nonPublicReason } from "./address";
import { hostOf, parseWebUrl, WebFetchError } from "./web-url";

export { hostOf, parseWebUrl, WebFetchError } from "./web-url";

// Loaded on the first fetch: an ESM import of node:http loads node's whole fetch stack (undici,
// ~50 ms and ~17 MiB), and node:https its TLS, at every cold start otherwise.
const http = lazyRequire<typeof import("node:http")>("node:http");
const https = lazyRequire<typeof import("node:https")>("node:https");
const zlib = lazyRequire<typeof import("node:zlib")>("node:zlib");

/** The limits and policy of one fetch. */
export interface FetchPolicy {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  /** Reach loopback, link-local and private addresses too. */
  allowPrivateAddresses: boolean;
  /** Why `host:port` may not be reached (the sandbox network allow-list), or undefined when it may. */
  refuseHost?: (host: string, port: number) => string | undefined;
  signal?: AbortSignal;
}

/** A page that was fetched. */
export interface FetchedPage {
  kind: "page";
  /** The URL after same-host redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** True when the body was cut at `maxBytes`. */
  truncated: boolean;
  /** The URLs redirected from, in order. */
  redirects: string[];
}

/** A redirect to another host, reported instead of followed. */
export interface CrossHostRedirect {
  kind: "redirect";
  url: string;
  location: string;
  status: number;
  redirects: string[];
}

function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/** A DNS lookup that fails unless every address the name resolves to is public. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 4);
    const refused = addresses.map((a) => nonPublicReason(a.address)).find((why) => why !== undefined);
    if (refused || addresses.length === 0) {
      const err = Object.assign(
        new WebFetchError(
          `${hostname} resolves to a non-public address (${refused ?? "no address"}), so it was not fetched. Private, loopback and link-local addresses are refused unless webFetch.allowPrivateAddresses is true.`,
        ),
        { code: "EPRIVATEADDRESS" },
      );
      return callback(err, "", 4);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/** Fetch `url` under `policy`: the page, or the cross-host redirect it answered with. */
export async function fetchPage(url: string, policy: FetchPolicy): Promise<FetchedPage | CrossHostRedirect> {
  const timeout = AbortSignal.timeout(policy.timeoutMs);
  const signal = policy.signal ? AbortSignal.any([policy.signal, timeout]) : timeout;
  const redirects: string[] = [];
  let current = parseWebUrl(url);
  const firstHost = hostOf(current);
  try {
    for (;;) {
      checkTarget(current, policy);
      const response = await get(current, policy, signal);
      const location = response.headers.location;
      if (response.statusCode && response.statusCode >= 300 && response.statusCode < 400 && location) {
        response.resume();
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw new WebFetchError(
            `${current.href} redirected to ${JSON.stringify(location)}, which is not a valid URL`,
          );
        }
        redirects.push(current.href);
        if (hostOf(next) !== firstHost || (next.protocol !== "http:" && next.protocol !== "https:")) {
          return { kind: "redirect", url: current.href, location: next.href, status: response.statusCode, redirects };
        }
        if (redirects.length > policy.maxRedirects) {
          throw new WebFetchError(
            `${url} redirected more than ${policy.maxRedirects} times (last to ${next.href}); fetch the final URL directly`,
          );
        }
        current = next;
        continue;
      }
      const { body, truncated } = await readBody(response, policy.maxBytes);
      const contentType = String(response.headers["content-type"] ?? "").toLowerCase();
      return {
        kind: "page",
        url: current.href,
        status: response.statusCode ?? 0,
        contentType,
        body,
        truncated,
        redirects,
      };
    }
  } catch (error) {
    if (timeout.aborted)
      throw new WebFetchError(
        `fetching ${url} took longer than ${policy.timeoutMs} ms and was stopped (webFetch.timeoutMs)`,
      );
    if (policy.signal?.aborted) throw new WebFetchError(`fetching ${url} was interrupted`);
    throw error;
  }
}

/** The checks a hop needs before any connection: the sandbox allow-list, and a literal address. */
function checkTarget(url: URL, policy: FetchPolicy): void {
  const host = hostOf(url);
  const refused = policy.refuseHost?.(host, portOf(url));
  if (refused) throw new WebFetchError(`${host} may not be reached: ${refused}`);
  if (policy.allowPrivateAddresses) return;
  // A literal address is connected to without a lookup: it is judged here.
  if (isIP(host)) {
    const why = nonPublicReason(host);
    if (why)
      throw new WebFetchError(
        `${url.href} was not fetched: ${why}. Private, loopback and link-local addresses are refused unless webFetch.allowPrivateAddresses is true.`,
      );
  }
}

/** What a failed direct connection says when the environment names a proxy WebFetch did not use. */
function proxyHint(secure: boolean): string {
  const env = process.env;
  const proxy = secure ? (env.HTTPS_PROXY ?? env.https_proxy) : (env.HTTP_PROXY ?? env.http_proxy);
  if (!proxy) return "";
  return `; WebFetch connects directly, not through ${secure ? "HTTPS_PROXY" : "HTTP_PROXY"} (a proxy resolves names where the private-address check cannot see them): on a network that needs the proxy, set webFetch.allowPrivateAddresses: true to use it`;
}

/** Agents of WebFetch's own, which never go through the environment's proxy (see `get`). */
const direct: { http?: Agent; https?: Agent } = {};

function get(url: URL, policy: FetchPolicy, signal: AbortSignal): Promise<IncomingMessage> {
  const secure = url.protocol === "https:";
  const send = secure ? https().request : http().request;
  // With NODE_USE_ENV_PROXY (or --use-env-proxy) node's global agents send the request to
  // HTTP(S)_PROXY, which resolves the name itself: the lookup below is never called, and a name
  // the proxy resolves to a metadata service or an intranet host was fetched (red team p, P4).
  // An address that cannot be judged is not reached: without allowPrivateAddresses the request
  // goes direct, on an agent of WebFetch's own (a network that only has a proxy fails instead).
  const agent = policy.allowPrivateAddresses
    ? {}
    : { agent: secure ? (direct.https ??= new (https().Agent)()) : (direct.http ??= new (http().Agent)()) };
  return new Promise((resolve, reject) => {
    const req = send(url, {
      method: "GET",
      signal,
      ...agent,
      ...(policy.allowPrivateAddresses ? {} : { lookup: publicOnlyLookup }),
      headers: {
        "user-agent": "Ubiquity-WebFetch/1.0",
        accept:
          "text/html, application/xhtml+xml, text/markdown, text/plain, application/pdf, application/json;q=0.9, */*;q=0.5",
        "accept-encoding": "gzip, deflate, br",
      },
    });
    req.once("response", resolve);
    req.once("error", (error: Error & { code?: string }) => {
      if (error instanceof WebFetchError || signal.aborted) return reject(error);
      reject(
        new WebFetchError(
          `fetching ${url.href} failed: ${error.message}${error.code && !error.message.includes(error.code) ? ` (${error.code})` : ""}${policy.allowPrivateAddresses ? "" : proxyHint(secure)}`,
        ),
      );
    });
    req.end();
  });
}

/** The decompressed body, up to `maxBytes`. */
async function readBody(response: IncomingMessage, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const encoding = String(response.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  let stream: Readable = response;
  if (encoding === "gzip" || encoding === "x-gzip") stream = response.pipe(zlib().createGunzip());
  else if (encoding === "deflate") stream = response.pipe(zlib().createInflate());
  else if (encoding === "br") stream = response.pipe(zlib().createBrotliDecompress());
  else if (encoding !== "" && encoding !== "identity")
    throw new WebFetchError(`the server sent content-encoding ${encoding}, which WebFetch cannot decode`);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        size = maxBytes;
        return { body: Buffer.concat(chunks), truncated: true };
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (error) {
    throw new WebFetchError(`the response broke off while it was read: ${(error as Error).message}`);
  } finally {
    response.destroy();
    if (stream !== response) stream.destroy();
  }
  return { body: Buffer.concat(chunks), truncated: false };
}
