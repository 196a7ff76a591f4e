/**
 * The network allow-list: an HTTP proxy on the host, listening on a Unix socket that is the
 * sandbox's only way out (inside, socat turns it into 127.0.0.1:3128 and HTTP(S)_PROXY points
 * there). Plain requests and CONNECT tunnels are let through only to hosts `allowedDomains`
 * names and `deniedDomains` does not; everything else gets a 403 and a violation. Loopback
 * and link-local addresses are separate: reached only when the entry names that host exactly
 * (`localhost`, `127.0.0.1:8080`), never through a name that happens to resolve there.
 */
import { lookup } from "node:dns/promises";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { BlockList, connect, isIP, type Socket } from "node:net";
import { hostMatches } from "./host-match";

/** A refused connection. */
export interface ProxyDenial {
  host: string;
  port: number;
  reason: string;
  at: number;
}

// Kept apart (no node:http) so the sandbox API can match hosts without loading the proxy.
export { hostMatches };

/**
 * Loopback, "this network" (0.0.0.0 reaches the host itself on Linux) and link-local, judged on the
 * parsed address: node's BlockList reads every spelling of an IPv6 address and judges an
 * IPv4-mapped one (`::ffff:0.0.0.0`, `::ffff:7f00:1`) by the IPv4 address inside. Text patterns
 * missed `::ffff:0.0.0.0` and `::ffff:169.254.169.254`, which a name under a wildcard entry could
 * resolve to (red team m, M3). The IPv4-compatible (`::a.b.c.d`) and IPv4-translated
 * (`::ffff:0:a.b.c.d`) forms count as local too, and so does anything that is no IP address.
 */
let local: BlockList | undefined;
function isLocalAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 0) return true;
  if (!local) {
    local = new BlockList();
    for (const [range, prefix] of [
      ["127.0.0.0", 8],
      ["0.0.0.0", 8],
      ["169.254.0.0", 16],
    ] as const)
      local.addSubnet(range, prefix, "ipv4");
    for (const [range, prefix] of [
      ["::", 96],
      ["::ffff:0:0:0", 96],
      ["fe80::", 10],
    ] as const)
      local.addSubnet(range, prefix, "ipv6");
  }
  return local.check(bare, family === 6 ? "ipv6" : "ipv4");
}

/** The filtering proxy of one run. */
export class FilteringProxy {
  readonly denials: ProxyDenial[] = [];
  #server: Server | undefined;
  #sockets = new Set<Socket>();

  constructor(
    private readonly allowed: readonly string[],
    private readonly denied: readonly string[],
    private readonly onDenied: (denial: ProxyDenial) => void = () => {},
    private readonly resolve: (host: string) => Promise<string> = async (host) => (await lookup(host)).address,
  ) {}

  /** Where may `host:port` go? The address to connect to, or the reason it is refused. */
  async decide(host: string, port: number): Promise<{ address: string } | { reason: string }> {
    if (this.denied.some((d) => hostMatches(d, host, port).hit)) return { reason: `${host} is in deniedDomains` };
    const hits = this.allowed.map((a) => hostMatches(a, host, port)).filter((r) => r.hit);
    if (hits.length === 0) return { reason: `${host}:${port} is not in allowedDomains` };
    let address = host.replace(/^\[(.*)\]$/, "$1");
    if (!isIP(address)) {
      try {
        address = await this.resolve(host);
      } catch (error) {
        return { reason: `${host} did not resolve (${(error as Error).message})` };
      }
    }
    if (isLocalAddress(address) && !hits.some((h) => h.exact))
      return {
        reason: `${host} resolves to the local address ${address}, which only an exact allowedDomains entry opens`,
      };
    return { address };
  }

  /** The TCP port, after `listenTcp` (macOS: Seatbelt allows one port on 127.0.0.1). */
  get port(): number | undefined {
    const address = this.#server?.address();
    return typeof address === "object" && address ? address.port : undefined;
  }

  /** Listen on 127.0.0.1 at a free port. */
  listenTcp(): Promise<void> {
    return this.listen({ host: "127.0.0.1", port: 0 });
  }

  /** Listen on the Unix socket `path` (or a TCP address). */
  async listen(path: string | { host: string; port: number }): Promise<void> {
    const server = createServer((req, res) => void this.#forward(req, res));
    server.on("connect", (req: IncomingMessage, socket: Socket, head: Buffer) => void this.#tunnel(req, socket, head));
    server.on("connection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      if (typeof path === "string") server.listen(path, () => resolve());
      else server.listen(path.port, path.host, () => resolve());
    });
    this.#server = server;
  }

  /** Stop listening and cut every open connection. */
  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
    this.#server = undefined;
  }

  #deny(host: string, port: number, reason: string): string {
    const denial = { host, port, reason, at: Date.now() };
    this.denials.push(denial);
    this.onDenied(denial);
    return `blocked by the sandbox: network access to ${host}:${port} is not allowed (${reason})`;
  }

  async #tunnel(req: IncomingMessage, client: Socket, head: Buffer) {
    const [host = "", portText = "443"] = splitHostPort(req.url ?? "");
    const port = Number(portText) || 443;
    client.on("error", () => {});
    const verdict = await this.decide(host, port);
    if ("reason" in verdict) {
      const body = this.#deny(host, port, verdict.reason);
      client.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Ubiquity-Sandbox: blocked\r\n\r\n${body}`,
      );
      return;
    }
    const upstream = connect(port, verdict.address, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    this.#sockets.add(upstream);
    upstream.on("close", () => this.#sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
  }

  async #forward(req: IncomingMessage, res: ServerResponse) {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      res
        .writeHead(400, { "Content-Type": "text/plain" })
        .end("the sandbox proxy needs an absolute URL (set HTTP_PROXY)");
      return;
    }
    const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
    const host = url.hostname;
    const verdict = await this.decide(host, port);
    if ("reason" in verdict) {
      res
        .writeHead(403, { "Content-Type": "text/plain", "X-Ubiquity-Sandbox": "blocked" })
        .end(this.#deny(host, port, verdict.reason));
      return;
    }
    // The Host the upstream sees is the one judged (RFC 9112: a proxy replaces the received Host
    // with the target's): the client's own, sent to a shared CDN's address, chose another site
    // behind it than the one allowedDomains opened (domain fronting, red team zo).
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: url.host };
    delete headers["proxy-connection"];
    delete headers["proxy-authorization"];
    const upstream = httpRequest(
      {
        host: verdict.address,
        port,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers,
        setHost: false,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", (error) => {
      if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain" });
      res.end(`the sandbox proxy could not reach ${host}:${port}: ${error.message}`);
    });
    req.pipe(upstream);
  }
}

function splitHostPort(target: string): [string, string] {
  const v6 = /^\[([^\]]+)\]:(\d+)$/.exec(target);
  if (v6) return [v6[1]!, v6[2]!];
  const at = target.lastIndexOf(":");
  return at === -1 ? [target, "443"] : [target.slice(0, at), target.slice(at + 1)];
}
