/**
 * Which MCP protocol revision a connection speaks. Revision 2026-07-28 is stateless: no
 * `initialize` handshake (the client asks `server/discover`, and every request carries the
 * version, the client's identity and capabilities in `_meta`), no sessions, so nothing to end with
 * a DELETE. The SDK negotiates it (`versionNegotiation`); this file chooses the mode, and says how
 * a connection ends in the revision it got.
 */
import type { Client, Transport, VersionNegotiationOptions } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** The stateless revision. */
export const MODERN_REVISION = "2026-07-28";

/**
 * How a connection picks its revision (the `protocol` option of the plugin):
 * - `auto` (default): ask `server/discover` first; a server that does not know it gets the 2025
 *   `initialize` handshake (the previous revision, 2025-11-25, or older as the server says);
 * - `legacy`: the 2025 handshake only, as before 2026-07-28;
 * - `2026-07-28`: that revision or nothing (a server without it fails to start).
 */
export type McpProtocolMode = "auto" | "legacy" | typeof MODERN_REVISION;

/**
 * How long a stdio server may take to answer the probe before it counts as a 2025 server [5 s]:
 * some 2025 servers ignore a request that comes before `initialize` rather than refuse it, and
 * each would otherwise cost the whole connect timeout. (Over HTTP silence is an outage, and the
 * probe has the connect timeout.)
 */
export const STDIO_PROBE_TIMEOUT_MS = 5000;

/** The SDK's negotiation options for `mode`, on a `stdio` or remote server. */
export function versionNegotiation(
  mode: McpProtocolMode,
  stdio = false,
  connectTimeoutMs = Infinity,
): VersionNegotiationOptions {
  if (mode === "legacy") return { mode: "legacy" };
  if (mode === "auto")
    return stdio
      ? { mode: "auto", probe: { timeoutMs: Math.min(STDIO_PROBE_TIMEOUT_MS, connectTimeoutMs) } }
      : { mode: "auto" };
  return { mode: { pin: mode } };
}

/** The revision the connection negotiated (undefined before it connected). */
export function negotiatedRevision(client: Client | undefined): string | undefined {
  return client?.getNegotiatedProtocolVersion();
}

/**
 * End a streamable HTTP session the way its revision does: a 2025 session (one the server gave an
 * `Mcp-Session-Id`) is ended with a DELETE, so the server frees it now; a 2026-07-28 connection has
 * no session, and sends nothing (closing the client aborts its open requests and streams).
 */
export async function endSession(client: Client | undefined, transport: Transport | undefined): Promise<void> {
  if (
    !(transport instanceof StreamableHTTPClientTransport) ||
    client?.getProtocolEra() !== "legacy" ||
    !transport.sessionId
  )
    return;
  await Promise.race([transport.terminateSession().catch(() => {}), new Promise((r) => setTimeout(r, 2000).unref())]);
}
