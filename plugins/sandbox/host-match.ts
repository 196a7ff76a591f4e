/** Matching a host against the network allow-list's patterns (no networking loaded). */

/** Host patterns: `example.com`, `*.example.com` (subdomains only), with an optional `:port`. */
export function hostMatches(pattern: string, host: string, port: number): { hit: boolean; exact: boolean } {
  let p = pattern.trim().toLowerCase();
  let wantPort: number | undefined;
  // `host:port` and `[v6]:port` carry a port; a bare IPv6 address does not.
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(p);
  if (m) {
    p = m[1]!;
    wantPort = Number(m[2]);
  }
  p = p.replace(/^\[(.*)\]$/, "$1");
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (wantPort !== undefined && wantPort !== port) return { hit: false, exact: false };
  if (p.startsWith("*.")) return { hit: h.endsWith(p.slice(1)), exact: false };
  return { hit: h === p, exact: h === p };
}
