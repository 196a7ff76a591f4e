/**
 * A tool call as the terminal UI shows it: one line with the tool's key argument
 * (`Bash(npm test)`, `Edit(src/a.ts)`), and a few lines of its output under it.
 */
import { isAbsolute, relative } from "node:path";
import { visibleExactly } from "../render";
import type { Theme } from "./theme";

/** Input fields that say what a call is about, in the order they are looked for. */
const KEY_FIELDS = [
  "command",
  "file_path",
  "notebook_path",
  "pattern",
  "path",
  "url",
  "query",
  "description",
  "prompt",
  "skill",
  "question",
];
const PATH_FIELDS = new Set(["file_path", "notebook_path", "path"]);
const MAX_KEY = 80;
/** Lines of a tool's output shown under its line. */
export const OUTPUT_LINES = 3;

/** `src/a.ts` for a path inside `cwd`, the path as given otherwise. */
export function shortPath(path: string, cwd: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/** The one argument that says what a call does, shortened to fit a line. */
export function keyArgument(toolName: string, input: unknown, cwd: string): string {
  if (!input || typeof input !== "object" || Array.isArray(input)) return "";
  const fields = input as Record<string, unknown>;
  if (toolName === "TodoWrite" && Array.isArray(fields.todos))
    return `${fields.todos.length} todo${fields.todos.length === 1 ? "" : "s"}`;
  let key = KEY_FIELDS.find((k) => typeof fields[k] === "string" && fields[k] !== "");
  key ??= Object.keys(fields).find((k) => typeof fields[k] === "string");
  if (!key) return "";
  let value = fields[key] as string;
  if (PATH_FIELDS.has(key)) value = shortPath(value, cwd);
  // Grep and Glob: the pattern, and where when it is not here.
  if (key === "pattern" && typeof fields.path === "string" && fields.path !== "." && fields.path !== cwd)
    value = `${value} in ${shortPath(fields.path, cwd)}`;
  value = value.replace(/\s*\n\s*/g, " ⏎ ").trim();
  return value.length > MAX_KEY ? `${value.slice(0, MAX_KEY - 1)}…` : value;
}

/** `Bash(npm test)`: the call on one line. */
export function toolCallLine(toolName: string, input: unknown, cwd: string): string {
  return visibleExactly(`${toolName}(${keyArgument(toolName, input, cwd)})`);
}

/** The first lines of a tool's output, indented under its line; an error in the error colour. */
export function toolOutputLines(content: string, isError: boolean, theme: Theme, columns: number): string[] {
  const lines = content.replace(/\s+$/, "").split("\n");
  if (lines.length === 1 && lines[0] === "") return [theme.dim("  ⎿ (no output)")];
  const shown = lines.slice(0, OUTPUT_LINES);
  const width = Math.max(20, columns - 6);
  const out = shown.map((l, i) => {
    const text = l.length > width ? `${l.slice(0, width - 1)}…` : l;
    return `  ${i === 0 ? "⎿" : " "} ${isError ? theme.error(text) : theme.dim(text)}`;
  });
  if (lines.length > shown.length) out.push(theme.dim(`    … +${lines.length - shown.length} lines`));
  return out;
}
