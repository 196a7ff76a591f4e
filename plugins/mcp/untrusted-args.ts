/**
 * A stdio server of the user's own config whose arguments name relative paths, started outside an
 * untrusted folder (`spawnFolder`): `server-filesystem .` from `claude -p --mcp-config` served the
 * home folder instead of the project, and nothing said so.
 */
import { isAbsolute } from "node:path";
import { untrustedSpawnFolder } from "../_kits/process/index";
import type { McpServerConfig } from "./options";

/** A path relative to the folder a program starts in: `.`, `..`, `./x`, `../x`. */
const RELATIVE = /^\.\.?(\/|$)/;

/** The warning for each such server (none when the folder is trusted). */
export function relativeArgsWarnings(
  servers: Readonly<Record<string, McpServerConfig>>,
  cwd: string,
  trusted: boolean,
): string[] {
  if (trusted) return [];
  const home = untrustedSpawnFolder(cwd);
  const out: string[] = [];
  for (const [name, config] of Object.entries(servers)) {
    if (!("command" in config) || (config.cwd && isAbsolute(config.cwd))) continue;
    const relative = (config.args ?? []).filter((arg) => RELATIVE.test(arg));
    if (relative.length === 0) continue;
    out.push(
      `MCP server "${name}" starts in ${home}, not in ${cwd}: the folder is not trusted, so no program the config starts runs from it, ` +
        `and its argument${relative.length > 1 ? "s" : ""} ${relative.map((a) => JSON.stringify(a)).join(", ")} name${relative.length > 1 ? "" : "s"} a path there. ` +
        `Trust the folder (\`ubiquity trust .\`, or --trust for one run), or write the path${relative.length > 1 ? "s" : ""} in full`,
    );
  }
  return out;
}
