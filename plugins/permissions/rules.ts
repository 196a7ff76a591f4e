/**
 * Permission rules: `Tool` or `Tool(content)`, from `allowedTools`, `disallowedTools`,
 * `askTools` and settings files. MCP tools are `mcp__server__tool`, or `mcp__server__*` (and
 * `mcp__server`) for every tool of a server.
 */
import { ConfigError } from "../../src/index";

/** Which list a rule came from. */
export type RuleList = "allow" | "deny" | "ask";

/** One parsed rule. */
export interface Rule {
  /** The rule as written, e.g. `Bash(git:*)`. */
  text: string;
  list: RuleList;
  /** Where it came from, for messages: `allowedTools`, `settings (project)`, … */
  source: string;
  /** The tool part: a tool name, or an MCP server pattern. */
  tool: string;
  /** The part in parentheses; undefined for a bare rule. */
  content?: string;
}

const RULE = /^([A-Za-z0-9_.-]+(?:__\*)?)(?:\(([\s\S]*)\))?$/;

/** Parse one rule; a malformed rule throws a ConfigError that names it and the fix. */
export function parseRule(text: string, list: RuleList, source: string): Rule {
  const trimmed = typeof text === "string" ? text.trim() : "";
  const match = RULE.exec(trimmed);
  const content = match?.[2];
  if (!match || (content !== undefined && content.trim() === "")) {
    throw new ConfigError(
      `${source}: ${JSON.stringify(text)} is not a permission rule; write Tool or Tool(content), e.g. "Read", "Bash(git:*)", "Edit(src/**)" or "mcp__github__*"`,
    );
  }
  return {
    text: trimmed,
    list,
    source,
    tool: match[1]!,
    ...(content !== undefined ? { content: content.trim() } : {}),
  };
}

/** Parse a list of rules (undefined is an empty list). */
export function parseRules(texts: readonly string[] | undefined, list: RuleList, source: string): Rule[] {
  return (texts ?? []).map((t) => parseRule(t, list, source));
}

/**
 * Claude Code's former tool names that its rules still accept: `Task` is the Agent tool (renamed
 * in Claude Code 2.1.63; `--disallowedTools Task` removes it there). Unmapped, such a deny rule
 * matched nothing and the tool stayed: fail open.
 */
const RENAMED: ReadonlyMap<string, string> = new Map([["Task", "Agent"]]);

/** True when the rule's tool part names `toolName` (MCP server patterns and Claude Code's former names included). */
export function ruleNamesTool(rule: Pick<Rule, "tool">, toolName: string): boolean {
  if (rule.tool === toolName || RENAMED.get(rule.tool) === toolName) return true;
  if (!toolName.startsWith("mcp__") || !rule.tool.startsWith("mcp__")) return false;
  const server = /^(mcp__.+?)(?:__\*)?$/.exec(rule.tool);
  if (!server || !toolName.startsWith("mcp__")) return false;
  // `mcp__github__*` and `mcp__github` both mean every tool of the github server.
  const prefix = server[1]!;
  return rule.tool.endsWith("__*") || !prefix.slice(5).includes("__") ? toolName.startsWith(`${prefix}__`) : false;
}
