/**
 * `~/.claude.json`: where `claude mcp add` keeps the servers of its user scope (`mcpServers`) and of
 * its default local scope (`projects[<folder>].mcpServers`). It is Claude Code's state file, not a
 * settings file, and is not read here; a run that reads Claude Code's files says which of its
 * servers do not start, and how to bring each along, so that they are not missed in silence.
 */
import { dirname, join } from "node:path";
import { readRegularFileSync } from "../../loader/index";

// The state file grows with Claude Code's history: past this, it is not opened for the note.
const MAX_BYTES = 16 * 1024 * 1024;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const serverNames = (v: unknown): string[] => (isRecord(v) && isRecord(v.mcpServers) ? Object.keys(v.mcpServers) : []);

/** The servers of `~/.claude.json` a run in `cwd` would have had in Claude Code: its user scope's, and the local scope's of `cwd` or a folder above it. */
export function claudeJsonServers(
  home: string,
  cwd: string,
): { file: string; user: string[]; local: string[] } | undefined {
  const file = join(home, ".claude.json");
  // Only a regular file, judged on the opened descriptor: a FIFO there hung the run, and a link to
  // /dev/zero (size 0 by its stat) was read until memory ran out (red team zv, ZV1).
  const read = readRegularFileSync(file, MAX_BYTES);
  if (!read.ok) return undefined; // absent, not a file, too large: no server of it starts either way
  let data: unknown;
  try {
    data = JSON.parse(read.text);
  } catch {
    return undefined; // not JSON: Claude Code's to fix
  }
  if (!isRecord(data)) return undefined;
  const user = serverNames(data);
  const projects = isRecord(data.projects) ? data.projects : {};
  let local: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    local = serverNames(projects[dir]);
    if (local.length || dirname(dir) === dir) break;
  }
  return user.length || local.length ? { file, user, local } : undefined;
}

/** The warning for the servers `claudeJsonServers` found, or undefined. */
export function claudeJsonNote(home: string, cwd: string): string | undefined {
  const found = claudeJsonServers(home, cwd);
  if (!found) return undefined;
  const scopes = [
    found.user.length ? `user scope: ${found.user.join(", ")}` : "",
    found.local.length ? `local scope, for this folder: ${found.local.join(", ")}` : "",
  ].filter(Boolean);
  return `${found.file} has MCP servers \`claude mcp add\` recorded (${scopes.join("; ")}), which do not start here: that file is Claude Code's state, not read. Bring each along as a project's server (\`ubiquity mcp add --scope project <name> …\` takes claude mcp add's command line and writes .mcp.json), in the config's mcpServers, or in a file of servers passed with --mcp-config`;
}
