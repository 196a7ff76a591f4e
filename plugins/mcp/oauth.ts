/**
 * OAuth 2.1 for remote MCP servers, on the SDK's `auth()` (protected-resource and
 * authorization-server metadata discovery, client ID metadata documents with dynamic client
 * registration as the fallback, PKCE, refresh, resource indicators). This file is the client's
 * side of it: an `OAuthClientProvider` whose state lives in the user's `~/.ubiquity/mcp-auth`
 * (./token-store), and `loginMcpServer`, the interactive login `ubiquity mcp login` runs — it
 * prints the authorization URL and waits on a loopback port for the redirect.
 *
 * A run never logs in: its provider refreshes a stored token, and when there is none (or the
 * refresh is refused) the server fails with a message naming `ubiquity mcp login <server>`.
 * Tokens go only into the Authorization header of requests to the server: never into a log line,
 * an error message, a transcript or a subprocess's environment.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  auth,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { describeError } from "../../src/index";
import type { McpOAuthConfig, McpServerConfig } from "./options";
import { McpTokenStore } from "./token-store";
import { serverFetch } from "./server-fetch";
import { lazyRequire } from "../_kits/lazy/index";

// The callback server loads node:http on a login only (its ESM import loads node's whole fetch stack).
const http = lazyRequire<typeof import("node:http")>("node:http");

/** What servers see of us when we register (dynamic registration, or a metadata document's contents). */
const CLIENT_NAME = "Ubiquity";
/** The path of the loopback redirect. */
const CALLBACK_PATH = "/callback";
/** How long `ubiquity mcp login` waits for the browser to come back [5 minutes]. */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;

/** Thrown inside a run's provider when only a person can authorize (no token, or the refresh was refused). */
export class McpLoginRequired extends Error {
  constructor(readonly server: string) {
    super(`requires OAuth authorization: run \`ubiquity mcp login ${server}\`, then start the run again`);
    this.name = "McpLoginRequired";
  }
}

/** The `oauth` object of a remote server config (`{}` when absent). Undefined when the config turns OAuth off. */
export function oauthConfigOf(config: McpServerConfig): McpOAuthConfig | undefined {
  if ("command" in config || config.oauth === false) return undefined;
  return config.oauth ?? {};
}

/**
 * True when a remote server gets an OAuth provider: it is not turned off (`oauth: false`) and the
 * config does not send its own Authorization header (a static key or a headersHelper's token is
 * the user's own scheme, and a 401 then means that key was refused).
 */
export function usesOAuth(config: McpServerConfig, headers: Record<string, string> | undefined): boolean {
  if (!oauthConfigOf(config)) return false;
  return !Object.keys(headers ?? {}).some((k) => k.toLowerCase() === "authorization");
}

/** How a provider behaves: in a run (refresh only), or in a login (the redirect flow). */
export type McpOAuthMode =
  | { interactive: false }
  | { interactive: true; redirectUrl: string; onAuthorizationUrl: (url: URL) => void };

/** The OAuth client of one remote server, its state in an `McpTokenStore`. */
export class McpOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl: string | undefined;
  #verifier: string | undefined;
  #state: string | undefined;
  /** True once the SDK ran an authorization with this provider (the server answered 401). */
  authAttempted = false;
  /** Present only in a login: a run never registers a client (that happens while logging in). */
  saveClientInformation?: (info: StoredOAuthClientInformation) => Promise<void>;

  constructor(
    readonly name: string,
    readonly serverUrl: string,
    readonly config: McpOAuthConfig,
    readonly store: McpTokenStore,
    private readonly mode: McpOAuthMode,
  ) {
    this.clientMetadataUrl = config.clientMetadataUrl;
    if (mode.interactive && !config.clientId) {
      this.saveClientInformation = (info) => store.update((r) => ({ ...r, client: info }));
    }
  }

  /** The loopback redirect of a login; in a run, the one the stored client was registered with. */
  get redirectUrl(): string {
    if (this.mode.interactive) return this.mode.redirectUrl;
    return `http://127.0.0.1${CALLBACK_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(this.config.scope ? { scope: this.config.scope } : {}),
    };
  }

  /** A fresh random `state` per authorization request, checked when the redirect comes back. */
  state(): string {
    this.#state = randomBytes(24).toString("base64url");
    return this.#state;
  }

  /** True when `state` is the one this login sent. */
  stateMatches(state: string | null): boolean {
    if (!this.#state || state === null) return false;
    const a = Buffer.from(state);
    const b = Buffer.from(this.#state);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /**
   * The configured client ID, else the stored registration. In a login, a registration made for
   * another redirect URI (an earlier login's port) is not reused: the server would refuse it.
   */
  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    this.authAttempted = true;
    if (this.config.clientId) return { client_id: this.config.clientId };
    const { client } = await this.store.read();
    if (!client || !this.mode.interactive) return client;
    if (client.client_id === this.clientMetadataUrl) return client;
    const uris = (client as { redirect_uris?: string[] }).redirect_uris;
    return uris === undefined || uris.includes(this.redirectUrl) ? client : undefined;
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.store.read()).tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const expiresAt = typeof tokens.expires_in === "number" ? Date.now() + tokens.expires_in * 1000 : undefined;
    // A refresh response may leave out the refresh token: the old one stays valid then.
    await this.store.update((r) => ({
      ...r,
      tokens: { ...tokens, refresh_token: tokens.refresh_token ?? r.tokens?.refresh_token },
      expiresAt,
    }));
  }

  redirectToAuthorization(url: URL): void {
    if (!this.mode.interactive) throw new McpLoginRequired(this.name);
    this.mode.onAuthorizationUrl(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new Error("no PKCE code verifier: the authorization was not started by this login");
    return this.#verifier;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.store.update((r) => ({ ...r, discovery: state }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.store.read()).discovery;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier") {
      this.#verifier = undefined;
      return;
    }
    // Another run may have refreshed meanwhile (a rotated refresh token makes ours invalid): its
    // newer tokens are on disk, and are kept rather than deleted; the SDK then refreshes with them.
    const ours = (await this.store.read()).tokens?.access_token;
    this.store.forget();
    const onDisk = (await this.store.read()).tokens?.access_token;
    const newer = scope === "tokens" && onDisk !== undefined && onDisk !== ours;
    if (newer) return;
    await this.store.update((r) => {
      const next = { ...r };
      if (scope === "all" || scope === "tokens") delete next.tokens, delete next.expiresAt;
      if (scope === "all" || scope === "client") delete next.client;
      if (scope === "all" || scope === "discovery") delete next.discovery;
      return next;
    });
  }
}

/** True when `error` (or an error it was caused by) says only a person can authorize now. */
export function isLoginRequired(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++)
    if (e instanceof McpLoginRequired) return true;
  return false;
}

/** The provider a run uses for a remote server, or undefined when the server does not use OAuth. */
export function runProvider(
  name: string,
  config: McpServerConfig,
  headers: Record<string, string> | undefined,
): McpOAuthProvider | undefined {
  if ("command" in config || !usesOAuth(config, headers)) return undefined;
  return new McpOAuthProvider(name, config.url, oauthConfigOf(config)!, new McpTokenStore(name, config.url), {
    interactive: false,
  });
}

/**
 * Before a run connects: an access token past its expiry is refreshed now (rather than on the
 * server's 401). A refusal is not an error here: the connect that follows reports it.
 */
export async function refreshIfExpired(provider: McpOAuthProvider): Promise<void> {
  const { store } = provider;
  if (!(await store.expired()) || !(await store.read()).tokens?.refresh_token) return;
  try {
    await auth(provider, { serverUrl: provider.serverUrl, fetchFn: serverFetch(provider.serverUrl) });
    provider.authAttempted = false; // refreshed: a later failure is the connection's own
  } catch {
    // The connect meets the same refusal and names the fix.
  }
}

/** Options of `loginMcpServer`. */
export interface McpLoginOptions {
  /** Where the authorization URL and progress lines go. */
  print: (text: string) => void;
  /** Aborts the wait (Ctrl-C). */
  signal?: AbortSignal;
  /** How long to wait for the redirect [LOGIN_TIMEOUT_MS]. */
  timeoutMs?: number;
  /** The home folder whose `.ubiquity/mcp-auth` keeps the tokens [os.homedir()]. */
  home?: string;
}

/** What a login leaves behind. */
export interface McpLoginResult {
  /** The file the tokens are in (mode 0600). */
  path: string;
  /** The scope the server granted, when it said. */
  scope?: string;
}

/** Listen on 127.0.0.1 (the configured callback port, else a free one) for the redirect. */
function listenForRedirect(port: number): Promise<{ server: Server; port: number; next: Promise<URLSearchParams> }> {
  let deliver: (params: URLSearchParams) => void = () => {};
  const next = new Promise<URLSearchParams>((resolve) => (deliver = resolve));
  const server = http().createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== CALLBACK_PATH) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const failed = url.searchParams.has("error");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(
      `<!doctype html><title>Ubiquity</title><p>${failed ? "Authorization failed; see the terminal." : "Authorized. You can close this window and return to the terminal."}</p>`,
    );
    deliver(url.searchParams);
  });
  return new Promise((resolve, reject) => {
    server.once("error", (error) =>
      reject(
        new Error(
          `cannot listen on 127.0.0.1:${port} for the OAuth redirect (${describeError(error)}); set another oauth.callbackPort or free the port`,
        ),
      ),
    );
    server.listen(port, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port, next }));
  });
}

/** Wait for `promise`, the timeout, or the signal, whichever comes first. */
function within<T>(promise: Promise<T>, ms: number, signal: AbortSignal | undefined, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `no redirect came back within ${Math.round(ms / 1000)}s; run the login again and open the URL it prints`,
          ),
        ),
      ms,
    );
    const abort = () => reject(new Error(`${what} was cancelled`));
    if (signal?.aborted) abort();
    signal?.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
    });
  });
}

/**
 * Log in to a remote server: discover its authorization server, register (a client ID metadata
 * document where supported and configured, else dynamic registration, unless `oauth.clientId`
 * names a registered client), print the authorization URL, wait for the redirect on a loopback
 * port, check its `state`, and exchange the code (with the PKCE verifier) for tokens, stored 0600.
 */
export async function loginMcpServer(
  name: string,
  config: McpServerConfig,
  options: McpLoginOptions,
): Promise<McpLoginResult> {
  if ("command" in config)
    throw new Error(`MCP server "${name}" runs over stdio; OAuth applies to remote (http, sse) servers only`);
  const oauth = oauthConfigOf(config);
  if (!oauth) throw new Error(`MCP server "${name}" has \`oauth: false\`; remove it from mcpServers.${name} to log in`);
  const store = new McpTokenStore(name, config.url, options.home);
  const listener = await listenForRedirect(oauth.callbackPort ?? 0);
  try {
    const redirectUrl = `http://127.0.0.1:${listener.port}${CALLBACK_PATH}`;
    const provider = new McpOAuthProvider(name, config.url, oauth, store, {
      interactive: true,
      redirectUrl,
      onAuthorizationUrl: (url) =>
        options.print(
          `Open this URL in a browser to authorize Ubiquity with MCP server "${name}":\n\n  ${url.href}\n\nWaiting for the redirect to ${redirectUrl} …\n`,
        ),
    });
    const serverUrl = config.url;
    const fetchFn = serverFetch(serverUrl);
    const first = await auth(provider, { serverUrl, scope: oauth.scope, forceReauthorization: true, fetchFn }).catch(
      (error: unknown) => {
        throw new Error(`cannot start the OAuth flow with MCP server "${name}" (${describeError(error)})`);
      },
    );
    if (first === "REDIRECT") {
      const params = await within(listener.next, options.timeoutMs ?? LOGIN_TIMEOUT_MS, options.signal, "the login");
      if (!provider.stateMatches(params.get("state")))
        throw new Error("the redirect's state does not match the one sent; the login was refused (run it again)");
      const error = params.get("error");
      if (error)
        throw new Error(
          `the authorization server refused: ${error}${params.get("error_description") ? ` (${params.get("error_description")})` : ""}`,
        );
      const code = params.get("code");
      if (!code) throw new Error("the redirect carried no authorization code; run the login again");
      await auth(provider, {
        serverUrl,
        authorizationCode: code,
        iss: params.get("iss") ?? undefined,
        scope: oauth.scope,
        fetchFn,
      }).catch((e: unknown) => {
        throw new Error(`the authorization server did not issue tokens (${describeError(e)})`);
      });
    }
    const { tokens } = await store.read();
    if (!tokens?.access_token)
      throw new Error(`no token was issued by the authorization server of MCP server "${name}"`);
    return { path: store.path, ...(tokens.scope ? { scope: tokens.scope } : {}) };
  } finally {
    const closed = new Promise<void>((resolve) => listener.server.close(() => resolve()));
    listener.server.closeAllConnections();
    await closed;
  }
}

/** Forget a server's tokens and registration. True when there were any. */
export function logoutMcpServer(name: string, config: McpServerConfig, home?: string): Promise<boolean> {
  if ("command" in config) return Promise.resolve(false);
  return new McpTokenStore(name, config.url, home).remove();
}
