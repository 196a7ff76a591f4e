/**
 * Where the OAuth state of a remote MCP server lives between runs: one JSON file per server
 * under `~/.ubiquity/mcp-auth/`, readable by the user only (the folder 0700, the file 0600), named
 * by the server's name and a hash of its URL, so a token never follows a server whose URL changed.
 * The file holds the tokens (with the time the access token expires), the client registration and
 * the discovery results. Nothing here logs a value it reads.
 */
import { createHash } from "node:crypto";
import { chmod, mkdir, open, readFile, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { describeError, noteSecret } from "../../src/index";
import { writeFileAtomic } from "../_kits/storage/index";

/** What one server's file holds. */
export interface McpAuthRecord {
  /** The server's name in `mcpServers` and its URL, so a person can tell the files apart. */
  server: string;
  url: string;
  tokens?: StoredOAuthTokens;
  /** When the access token expires (ms since the epoch), from the token response's `expires_in`. */
  expiresAt?: number;
  /** The client registration (dynamic registration, or a client ID metadata document URL). */
  client?: StoredOAuthClientInformation;
  discovery?: OAuthDiscoveryState;
}

/** The folder of the OAuth files: `~/.ubiquity/mcp-auth` (HOME decides, as for every user file). */
export function mcpAuthFolder(home: string = homedir()): string {
  return join(home, ".ubiquity", "mcp-auth");
}

/** The file of one server: `<name>-<8 hex of sha256(url)>.json`, the name cleaned to `[A-Za-z0-9_-]`. */
export function mcpAuthFile(name: string, url: string, home?: string): string {
  const hash = createHash("sha256").update(url).digest("hex").slice(0, 8);
  return join(mcpAuthFolder(home), `${name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64)}-${hash}.json`);
}

/**
 * Everything of a record that is a credential (its tokens, the client's secret) is a secret of
 * every run from now on: a server or an authorization server echoing one back (an error body, a
 * tool's output) shows `[redacted]` wherever a message, a transcript or a log would show it.
 */
function noteRecordSecrets(record: McpAuthRecord): void {
  const { tokens, client } = record;
  noteSecret(tokens?.access_token);
  noteSecret(tokens?.refresh_token);
  noteSecret(tokens?.id_token as string | undefined);
  noteSecret((client as { client_secret?: string } | undefined)?.client_secret);
}

/** One server's OAuth state on disk. Reads are cached; every change is written at once (atomically, 0600). */
export class McpTokenStore {
  readonly path: string;
  readonly folder: string;
  #record: McpAuthRecord | undefined;

  constructor(
    readonly server: string,
    readonly url: string,
    home?: string,
  ) {
    this.path = mcpAuthFile(server, url, home);
    this.folder = mcpAuthFolder(home);
  }

  /** The stored record (empty when there is no file). A file that is not ours to read fails closed: it counts as empty. */
  async read(): Promise<McpAuthRecord> {
    if (this.#record) return this.#record;
    let record: McpAuthRecord = { server: this.server, url: this.url };
    try {
      const info = await stat(this.path);
      // Someone widened the file's mode: tighten it before reading a token from it.
      if ((info.mode & 0o077) !== 0) await chmod(this.path, 0o600);
      const data = JSON.parse(await readFile(this.path, "utf8")) as unknown;
      if (typeof data === "object" && data !== null && (data as McpAuthRecord).url === this.url)
        record = { ...(data as McpAuthRecord), server: this.server, url: this.url };
    } catch {
      // No file yet, or one we cannot parse: no stored state (a login writes a new one).
    }
    this.#record = record;
    noteRecordSecrets(record);
    return record;
  }

  /** Forget the cached record: the next read is from the file (another process may have written it). */
  forget(): void {
    this.#record = undefined;
  }

  /** Change the record and write it. */
  async update(change: (record: McpAuthRecord) => McpAuthRecord): Promise<void> {
    const next = change(await this.read());
    this.#record = next;
    noteRecordSecrets(next);
    await this.#write(next);
  }

  /** True when there is an access token or a refresh token. */
  async hasTokens(): Promise<boolean> {
    const { tokens } = await this.read();
    return Boolean(tokens?.access_token || tokens?.refresh_token);
  }

  /** True when the access token is past its expiry (with a minute's margin). */
  async expired(now = Date.now()): Promise<boolean> {
    const { expiresAt } = await this.read();
    return expiresAt !== undefined && expiresAt - 60_000 <= now;
  }

  /** Delete the file (logout). True when there was one. */
  async remove(): Promise<boolean> {
    this.#record = undefined;
    const existed = await stat(this.path).then(
      () => true,
      () => false,
    );
    await rm(this.path, { force: true });
    return existed;
  }

  async #write(record: McpAuthRecord): Promise<void> {
    const folder = this.folder;
    try {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await chmod(folder, 0o700);
      // Create the file 0600 first: the atomic write keeps an existing file's mode.
      await open(this.path, "a", 0o600).then((h) => h.close());
      await chmod(this.path, 0o600);
      await writeFileAtomic(this.path, `${JSON.stringify(record, null, 2)}\n`);
    } catch (error) {
      throw new Error(
        `cannot save the OAuth tokens of MCP server "${this.server}" in ${this.path} (${describeError(error)}); check that the folder is writable`,
      );
    }
  }
}
