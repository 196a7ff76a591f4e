/**
 * Telling sandbox refusals apart from ordinary failures, so the model learns that the boundary
 * (not a typo) stopped it: the errors a refused write, read or connection produces, matched
 * line by line in a command's output, plus the proxy's own record and the protected files a
 * command created (and that were removed).
 */
import { basename } from "node:path";
import type { NetworkPolicy } from "./config";

/** One refusal. */
export interface Violation {
  kind: "write" | "read" | "network";
  detail: string;
}

const WRITE = /Read-only file system|EROFS/;
/**
 * A protected file (`.git/config`, `.mcp.json`, …) is a read-only mount of its own: a tool that
 * replaces it by renaming a new copy over it (git writes `.git/config.lock`, then renames) fails
 * with "Device or resource busy", which said nothing of the sandbox (`git config user.name x`).
 */
const REPLACED = /Device or resource busy|EBUSY/;
const DENIED = /Permission denied|EACCES/;
const OFFLINE =
  /Could not resolve host|Temporary failure in name resolution|Network is unreachable|getaddrinfo (ENOTFOUND|EAI_AGAIN)|Failed to connect to|Couldn't connect to server|Connection refused|ECONNREFUSED|ENETUNREACH|Name or service not known/;

const MISSING = /No such file or directory|ENOENT/;

/** A connection to this machine: the sandbox's loopback is its own (trial zg: a dev server and curl). */
const LOOPBACK = /\b(localhost|127\.0\.0\.1|0\.0\.0\.0)\b|\[?::1\]?[: ]/;
const LOCAL_SERVER =
  'the sandbox has no network access: localhost in it is this command\'s own, so a server that another Bash call (a background shell) or anything outside the sandbox runs is out of reach; start the server and call it in the same command (`server & … curl …`), or have the user run it and allow "localhost:PORT" in sandbox.network.allowedDomains';

/** Does the line name a path of the home folder that the sandbox hides? */
function inHiddenHome(line: string, hidden: { home: string; readable: readonly string[] }): boolean {
  const paths =
    line.match(new RegExp(`(?:~|${hidden.home.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")})/[^\\s:'"]+`, "g")) ?? [];
  return paths.some((p) => {
    const rel = p.replace(/^~\//, "").replace(`${hidden.home}/`, "");
    return !hidden.readable.some((r) => rel === r || rel.startsWith(`${r}/`));
  });
}

/** Refusals visible in `output`, at most `max` of them. */
export function violationsInOutput(
  output: string,
  secrets: readonly string[],
  network: NetworkPolicy,
  max = 5,
  hiddenHome?: { home: string; readable: readonly string[] },
): Violation[] {
  const out: Violation[] = [];
  const secretNames = new Set(secrets.map((s) => basename(s)));
  for (const raw of output.split("\n")) {
    const line = raw.trim().slice(0, 300);
    if (!line) continue;
    if (WRITE.test(line))
      out.push({
        kind: "write",
        detail: `${line} (writes outside the permitted folders, and to protected files, are refused)`,
      });
    else if (REPLACED.test(line))
      out.push({
        kind: "write",
        detail: `${line} (a protected file — git config and hooks, .mcp.json, settings — is read-only in the sandbox, and replacing it fails this way)`,
      });
    else if (DENIED.test(line) && [...secretNames].some((n) => line.includes(n)))
      out.push({ kind: "read", detail: `${line} (this path is unreadable inside the sandbox)` });
    else if (hiddenHome && MISSING.test(line) && inHiddenHome(line, hiddenHome))
      out.push({
        kind: "read",
        detail: `${line} (the home folder is hidden inside the sandbox, except toolchains and caches; sandbox.filesystem.allowRead adds a path)`,
      });
    else if (network.mode === "none" && OFFLINE.test(line))
      out.push({
        kind: "network",
        detail: `${line} (${LOOPBACK.test(line) ? LOCAL_SERVER : "the sandbox has no network access; the user can let hosts through with sandbox.network.allowedDomains"})`,
      });
    if (out.length >= max) break;
  }
  return out;
}

/** The note appended to a tool result. */
export function violationNote(violations: readonly Violation[]): string {
  return violations.map((v) => `[blocked by the sandbox: ${v.detail}]`).join("\n");
}
