/**
 * The macOS path: a Seatbelt profile for `sandbox-exec -p`. Deliberately small: allow by
 * default, then deny writes outside the writable folders, writes to the protected paths
 * (Seatbelt matches paths, so a file that does not exist yet is covered as it is), reads of
 * the secrets, and the network unless it is "all" (or only the proxy's port on 127.0.0.1).
 * It cannot be tested on the Linux machines this project is built on; keep it obviously right.
 */
import type { NetworkPolicy } from "./config";

/** What the profile needs. */
export interface SeatbeltInput {
  writable: string[];
  tmp: string;
  protectedPaths: string[];
  protectedFolders: string[];
  secrets: string[];
  network: NetworkPolicy;
  proxyPort?: number;
}

const quote = (path: string) => JSON.stringify(path);

/** The profile text. */
export function seatbeltProfile(input: SeatbeltInput): string {
  const writable = [...input.writable, input.tmp, "/dev"].map((p) => `(subpath ${quote(p)})`).join(" ");
  const lines = ["(version 1)", "(allow default)", `(deny file-write* (require-not (require-any ${writable})))`];
  for (const p of input.protectedFolders) lines.push(`(deny file-write* (subpath ${quote(p)}))`);
  for (const p of input.protectedPaths) lines.push(`(deny file-write* (literal ${quote(p)}))`);
  for (const p of input.secrets) lines.push(`(deny file-read* (subpath ${quote(p)}))`);
  if (input.network.mode !== "all") {
    lines.push("(deny network*)");
    if (input.network.mode === "proxy" && input.proxyPort)
      lines.push(`(allow network-outbound (remote ip "localhost:${input.proxyPort}"))`);
  }
  return `${lines.join("\n")}\n`;
}
