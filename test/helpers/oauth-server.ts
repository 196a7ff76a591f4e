/**
 * A real OAuth 2.1 authorization server and an MCP server that requires its tokens, both on
 * 127.0.0.1 (node:http), for the MCP OAuth tests. The authorization server publishes RFC 8414
 * metadata, registers clients (RFC 7591) and accepts client ID metadata document URLs when told
 * to, approves every authorization request at once (the user's consent, automated: a test follows
 * the authorization URL with fetch and lands on the client's loopback redirect), requires PKCE
 * S256 and checks the verifier, and issues, refreshes (rotating) and expires tokens on demand.
 * The MCP server (the SDK 1.x server, stateless streamable HTTP) answers 401 with a
 * `resource_metadata` challenge until a valid bearer token comes, and publishes RFC 9728 metadata.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** One request the servers saw (no token values: the tests search these for leaks too). */
export interface SeenRequest {
  server: "as" | "rs";
  method: string;
  path: string;
  grant?: string;
  status?: number;
}

export interface OAuthServerOptions {
  /** Accept client ID metadata document URLs as client IDs (advertised in the metadata) [false]. */
  cimd?: boolean;
  /** Offer dynamic client registration [true]. */
  dcr?: boolean;
  /** The access tokens' lifetime in seconds, as `expires_in` [3600]. */
  expiresIn?: number;
}

export interface OAuthTestServers {
  /** The authorization server's issuer (its base URL). */
  issuer: string;
  /** The MCP endpoint (`…/mcp` on the resource server). */
  mcpUrl: string;
  seen: SeenRequest[];
  /** Clients registered through /register, by client_id. */
  registered: Map<string, { redirect_uris: string[] }>;
  /** Every access and refresh token issued (for leak checks). */
  issued: string[];
  /** Make every access token issued so far invalid (the resource server answers 401 to it). */
  expireAccessTokens(): void;
  /** Make every refresh token issued so far invalid. */
  revokeRefreshTokens(): void;
  close(): Promise<void>;
}

const b64url = (data: Buffer) => data.toString("base64url");
const token = (prefix: string) => `${prefix}_${b64url(randomBytes(24))}`;

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString("utf8")));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

function json(res: ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}) {
  res
    .writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers })
    .end(JSON.stringify(data));
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

const isLoopbackRedirect = (uri: string) => {
  try {
    const u = new URL(uri);
    return u.protocol === "http:" && (u.hostname === "127.0.0.1" || u.hostname === "localhost");
  } catch {
    return false;
  }
};

/** Start both servers. */
export async function startOAuthServers(options: OAuthServerOptions = {}): Promise<OAuthTestServers> {
  const { cimd = false, dcr = true, expiresIn = 3600 } = options;
  const seen: SeenRequest[] = [];
  const registered = new Map<string, { redirect_uris: string[] }>();
  const codes = new Map<
    string,
    { clientId: string; redirectUri: string; challenge: string; resource: string | null; scope: string | null }
  >();
  const access = new Map<string, { clientId: string; valid: boolean }>();
  const refresh = new Map<string, { clientId: string; valid: boolean; scope: string | null }>();
  const issued: string[] = [];

  const as = createServer();
  const rs = createServer();
  const issuer = await listen(as);
  const rsBase = await listen(rs);
  const mcpUrl = `${rsBase}/mcp`;

  const clientKnown = (clientId: string | null, redirectUri: string | null): boolean => {
    if (!clientId || !redirectUri) return false;
    const client = registered.get(clientId);
    if (client) return client.redirect_uris.includes(redirectUri);
    // A client ID metadata document: its loopback redirect may use any port (RFC 8252 §7.3).
    return cimd && clientId.startsWith("https://") && isLoopbackRedirect(redirectUri);
  };

  const issue = (clientId: string, scope: string | null) => {
    const accessToken = token("at");
    const refreshToken = token("rt");
    access.set(accessToken, { clientId, valid: true });
    refresh.set(refreshToken, { clientId, valid: true, scope });
    issued.push(accessToken, refreshToken);
    return {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: expiresIn,
      refresh_token: refreshToken,
      ...(scope ? { scope } : {}),
    };
  };

  as.on("request", async (req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    const record: SeenRequest = { server: "as", method: req.method ?? "", path: url.pathname };
    seen.push(record);
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        ...(dcr ? { registration_endpoint: `${issuer}/register` } : {}),
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        scopes_supported: ["mcp:tools"],
        ...(cimd ? { client_id_metadata_document_supported: true } : {}),
      });
    }
    if (url.pathname === "/register" && req.method === "POST" && dcr) {
      const meta = JSON.parse(await body(req)) as { redirect_uris?: string[] };
      if (!Array.isArray(meta.redirect_uris) || !meta.redirect_uris.every(isLoopbackRedirect))
        return json(res, 400, { error: "invalid_redirect_uri" });
      const clientId = `client_${b64url(randomBytes(8))}`;
      registered.set(clientId, { redirect_uris: meta.redirect_uris });
      return json(res, 201, {
        ...meta,
        client_id: clientId,
        client_id_issued_at: Math.floor(Date.now() / 1000),
        token_endpoint_auth_method: "none",
      });
    }
    if (url.pathname === "/authorize" && req.method === "GET") {
      const q = url.searchParams;
      const redirectUri = q.get("redirect_uri");
      if (!clientKnown(q.get("client_id"), redirectUri)) return json(res, 400, { error: "invalid_client" });
      const fail = (error: string) =>
        res
          .writeHead(302, { location: `${redirectUri}?${new URLSearchParams({ error, state: q.get("state") ?? "" })}` })
          .end();
      if (q.get("response_type") !== "code") return fail("unsupported_response_type");
      if (!q.get("code_challenge") || q.get("code_challenge_method") !== "S256") return fail("invalid_request");
      if (q.get("resource") !== null && q.get("resource") !== mcpUrl) return fail("invalid_target");
      const code = token("code");
      codes.set(code, {
        clientId: q.get("client_id")!,
        redirectUri: redirectUri!,
        challenge: q.get("code_challenge")!,
        resource: q.get("resource"),
        scope: q.get("scope"),
      });
      const back = new URLSearchParams({ code, ...(q.get("state") !== null ? { state: q.get("state")! } : {}) });
      return res.writeHead(302, { location: `${redirectUri}?${back}` }).end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const form = new URLSearchParams(await body(req));
      const grant = form.get("grant_type") ?? "";
      record.grant = grant;
      if (grant === "authorization_code") {
        const code = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? ""); // one use, even when the exchange fails
        if (!code || code.clientId !== form.get("client_id") || code.redirectUri !== form.get("redirect_uri"))
          return json(res, 400, { error: "invalid_grant", error_description: "unknown code" });
        const verifier = form.get("code_verifier") ?? "";
        if (b64url(createHash("sha256").update(verifier).digest()) !== code.challenge)
          return json(res, 400, { error: "invalid_grant", error_description: "PKCE verification failed" });
        return json(res, 200, issue(code.clientId, code.scope));
      }
      if (grant === "refresh_token") {
        const old = refresh.get(form.get("refresh_token") ?? "");
        if (!old?.valid || old.clientId !== form.get("client_id"))
          return json(res, 400, { error: "invalid_grant", error_description: "refresh token refused" });
        old.valid = false; // rotation
        return json(res, 200, issue(old.clientId, old.scope));
      }
      return json(res, 400, { error: "unsupported_grant_type" });
    }
    json(res, 404, { error: "not_found" });
  });

  const metadataUrl = `${rsBase}/.well-known/oauth-protected-resource/mcp`;
  rs.on("request", async (req, res) => {
    const url = new URL(req.url ?? "/", rsBase);
    const record: SeenRequest = { server: "rs", method: req.method ?? "", path: url.pathname };
    seen.push(record);
    if (
      url.pathname === "/.well-known/oauth-protected-resource/mcp" ||
      url.pathname === "/.well-known/oauth-protected-resource"
    ) {
      return json(res, 200, {
        resource: mcpUrl,
        authorization_servers: [issuer],
        scopes_supported: ["mcp:tools"],
        bearer_methods_supported: ["header"],
      });
    }
    if (url.pathname !== "/mcp") return json(res, 404, { error: "not_found" });
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    const grant = bearer ? access.get(bearer) : undefined;
    if (!grant?.valid) {
      record.status = 401;
      return json(
        res,
        401,
        { error: "invalid_token" },
        { "www-authenticate": `Bearer error="invalid_token", resource_metadata="${metadataUrl}"` },
      );
    }
    const server = new McpServer({ name: "protected", version: "1.0.0" });
    server.registerTool("whoami", { description: "Say which client the token was issued to" }, async () => ({
      content: [{ type: "text", text: `hello ${grant.clientId}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => void transport.close());
    await server.connect(transport);
    const text = req.method === "POST" ? await body(req) : undefined;
    await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
  });

  const close = (server: Server) =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    issuer,
    mcpUrl,
    seen,
    registered,
    issued,
    expireAccessTokens: () => {
      for (const a of access.values()) a.valid = false;
    },
    revokeRefreshTokens: () => {
      for (const r of refresh.values()) r.valid = false;
    },
    close: async () => void (await Promise.all([close(as), close(rs)])),
  };
}

/** Play the user's browser: follow the authorization URL (the server approves at once) to the client's redirect. */
export async function approveInBrowser(authorizationUrl: string): Promise<Response> {
  return fetch(authorizationUrl, { redirect: "follow" });
}
