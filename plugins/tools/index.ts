/**
 * The built-in tool suite as plain instances, for `options.tools`:
 * `tools: [...builtinTools(), myTool]` adds a tool, a filtered list removes some.
 */
import type { Tool } from "../../src/index";
import { BashTool } from "../tool-bash/index";
import { EditTool } from "../tool-edit/index";
import { GlobTool } from "../tool-glob/index";
import { GrepTool } from "../tool-grep/index";
import { ReadTool } from "../tool-read/index";
import { WriteTool } from "../tool-write/index";
import { TodoWriteTool } from "../tool-todo/index";

/**
 * Fresh instances of the built-in tools, in order: Read, Write, Edit, Bash, Glob, Grep, TodoWrite
 * (TodoWrite needs the `ubiquity:todos` plugin in the run, which the default preset has).
 */
export function builtinTools(): Tool[] {
  return [
    new ReadTool(),
    new WriteTool(),
    new EditTool(),
    new BashTool(),
    new GlobTool(),
    new GrepTool(),
    new TodoWriteTool(),
  ];
}
