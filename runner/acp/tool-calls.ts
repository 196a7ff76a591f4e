/**
 * How a Ubiquity tool call looks to an ACP client: its kind (the client's icon), a title,
 * the files it touches (follow-along), and the plan a TodoWrite result carries.
 */
import { isAbsolute, relative, resolve } from "node:path";
import type { PlanEntry, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";

const KINDS: Record<string, ToolKind> = {
  Read: "read",
  Write: "edit",
  Edit: "edit",
  NotebookEdit: "edit",
  Bash: "execute",
  Glob: "search",
  Grep: "search",
  WebFetch: "fetch",
  WebSearch: "fetch",
  TodoWrite: "think",
  Agent: "think",
  Task: "think",
};

/** The ACP kind of a tool (MCP and plugin tools are "other"). */
export function toolKind(toolName: string): ToolKind {
  return KINDS[toolName] ?? "other";
}

type Input = Record<string, unknown>;
const str = (input: Input, key: string) => (typeof input[key] === "string" ? (input[key] as string) : undefined);

/** The file a file tool's input names, absolute. */
export function filePathOf(input: Input, cwd: string): string | undefined {
  const path = str(input, "file_path") ?? str(input, "notebook_path");
  return path === undefined ? undefined : resolve(cwd, path);
}

/** A short human title: `Read src/a.ts`, `` `npm test` ``, `Grep "TODO" in src`. */
export function toolTitle(toolName: string, input: Input, cwd: string): string {
  const file = filePathOf(input, cwd);
  const shown = (path: string) => {
    const rel = relative(cwd, path);
    return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
  };
  if (file) return `${toolName} ${shown(file)}`;
  const command = str(input, "command");
  if (toolName === "Bash" && command) return `\`${commandLine(command)}\``;
  const pattern = str(input, "pattern");
  if (pattern)
    return `${toolName} ${JSON.stringify(pattern)}${str(input, "path") ? ` in ${shown(resolve(cwd, str(input, "path")!))}` : ""}`;
  if (toolName === "TodoWrite") return "Update the plan";
  const description = str(input, "description");
  return description ? `${toolName}: ${description}` : toolName;
}

/**
 * A command on one line for a title: whitespace runs (newlines, padding) become one space, and a
 * long one keeps its beginning and its end, so nothing can push what it does out of sight.
 */
export function commandLine(command: string, max = 120): string {
  const line = command.replace(/\s+/g, " ").trim();
  if (line.length <= max) return line;
  const head = Math.ceil((max - 3) / 2);
  return `${line.slice(0, head)} … ${line.slice(line.length - (max - 3 - head))}`;
}

/** A command whole, as a fenced block no backtick run inside it can close. */
export function commandBlock(command: string): string {
  const longest = Math.max(0, ...(command.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}\n${command}\n${fence}`;
}

/** The files a call touches (Read's line too), for the client's follow-along. */
export function toolLocations(input: Input, cwd: string): ToolCallLocation[] {
  const file = filePathOf(input, cwd);
  if (file) return [{ path: file, ...(typeof input.offset === "number" ? { line: input.offset } : {}) }];
  const path = str(input, "path");
  return path ? [{ path: resolve(cwd, path) }] : [];
}

/** The plan a TodoWrite result's list makes (the whole list, as ACP wants it), or undefined. */
export function planOf(metadata: Record<string, unknown>): PlanEntry[] | undefined {
  const todos = metadata.todos;
  if (!Array.isArray(todos)) return undefined;
  const statuses = ["pending", "in_progress", "completed"] as const;
  return todos.flatMap((t: { content?: unknown; status?: unknown }) =>
    typeof t?.content === "string" && statuses.includes(t.status as (typeof statuses)[number])
      ? [{ content: t.content, priority: "medium" as const, status: t.status as PlanEntry["status"] }]
      : [],
  );
}
