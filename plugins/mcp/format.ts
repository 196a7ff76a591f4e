/** The text `ubiquity mcp list` prints. */
import type { McpServerReport } from "./servers";

/** First line of a description, cut to `width` characters. */
function summary(text: string, width: number): string {
  const line =
    text
      .split("\n")
      .find((l) => l.trim())
      ?.trim() ?? "";
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** The tool's read-only column: the user's word, or the server's claim (which decides nothing). */
const readOnlyMark = (t: McpServerReport["tools"][number]) =>
  t.readOnly ? "read-only" : t.readOnlyHint ? "says r/o " : "         ";

/**
 * One block per server: name, status, where it runs; then its tools (read-only marked). `skipped`
 * is a project `.mcp.json` that was not read (its folder is not trusted, or it changed since).
 */
export function formatMcpReport(servers: McpServerReport[], skipped?: string): string {
  const unread = skipped
    ? `${skipped} was not read: the folder is not trusted (or the file changed since it was approved); trust it with \`ubiquity trust .\`, or pass --trust for one run.\n`
    : "";
  if (servers.length === 0)
    return `${skipped ? "No MCP servers started" : "No MCP servers configured (set mcpServers in the config)"}.\n${unread}`;
  const lines: string[] = [];
  for (const s of servers) {
    const state =
      s.status === "connected"
        ? `connected, ${s.tools.length} tool${s.tools.length === 1 ? "" : "s"}`
        : `${s.status}: ${s.error ?? ""}`;
    lines.push(`${s.name} (${s.transport}: ${s.target})`, `  ${state}`);
    const width = Math.max(0, ...s.tools.map((t) => t.name.length));
    for (const t of s.tools)
      lines.push(`  ${t.name.padEnd(width)}  ${readOnlyMark(t)}  ${summary(t.description, 72)}`.trimEnd());
    lines.push("");
  }
  return `${lines.join("\n")}${unread}`;
}
