import type { RunContext } from "../../src/index";

/** A slash command: a command file (`.ubiquity/commands/review.md` → `/review`) or a skill invoked by name. */
export interface SlashCommand {
  /** What follows the `/`: the file's path under its folder without `.md`, subfolders joined by `:` (`frontend:component`). */
  name: string;
  /** The frontmatter's `description`, else the body's first line. */
  description: string;
  /** The frontmatter's `argument-hint`, shown after the name (`[pr-number] [priority]`). */
  argumentHint?: string;
  /** The frontmatter's `model`: the model the command's prompt is sent to (a model string or an alias). */
  model?: string;
  /** The frontmatter's `allowed-tools`, as permission rules (`Bash(git status:*)`). */
  allowedTools?: readonly string[];
  /** The prompt: the file after its frontmatter (a skill: its SKILL.md body). */
  body: string;
  /** The file it came from (a skill: its SKILL.md). */
  file: string;
  /** `user`, `project`, `local`, `commands` (the option), `plugin` (a Claude Code plugin's command), `skill`, or `mcp` (an MCP server's prompt). */
  source: "user" | "project" | "local" | "commands" | "plugin" | "skill" | "mcp";
  /** A skill's folder (its bundled files are relative to it). */
  dir?: string;
  /** Read from Claude Code's folders (`.claude/commands`, a plugin's `commands/`): a skill of its name wins it, as in Claude Code. */
  claude?: boolean;
  /** Builds the prompt itself (an MCP server's prompt, fetched with the arguments) instead of `body`; throws a CommandError to refuse. */
  expand?(args: string, run: RunContext): Promise<{ text: string; context: string[] }>;
}

/** What a client lists of a command (the Claude Agent SDK's `SlashCommand` shape). */
export interface CommandInfo {
  name: string;
  description: string;
  argumentHint: string;
}

/** A command as a client lists it. */
export function commandInfo(command: SlashCommand): CommandInfo {
  return { name: command.name, description: command.description, argumentHint: command.argumentHint ?? "" };
}
