/**
 * A rule of the run's own options (the runner's `--allowedTools`, `--disallowedTools`, `--askTools`,
 * `--tools`) whose tool part names no tool of the run but is near one — `bash`, `Wirte` — matches
 * nothing, silently: `--disallowedTools bash` left Bash offered and running, and an allow with a
 * typo only showed as refusals later. Said once, at start, with the tool meant (tool names are
 * case-sensitive, as in Claude Code). Settings files' rules are left alone: a Claude Code file
 * may name Claude Code's own tools. A command's or skill's `allowed-tools` is checked when it is
 * granted (api.ts): Copilot's lower-case names (`read`, `edit`) there matched nothing in silence.
 */
import { closest } from "../../src/index";
import { parseRules, ruleNamesTool, type Rule } from "./rules";

/** The options whose rules are checked, with the command-line flag that sets each. */
const SOURCES = {
  approvedTools: "--allowedTools",
  allowedTools: "allowedTools",
  disallowedTools: "--disallowedTools",
  askTools: "--askTools",
  availableTools: "--tools",
} as const;

/** Claude Code's tools with no namesake here: near a tool of ours by spelling only (`Task`, `LS`). */
const CLAUDE_CODE_TOOLS = new Set([
  "Task",
  "LS",
  "MultiEdit",
  "NotebookEdit",
  "NotebookRead",
  "TodoRead",
  "ExitPlanMode",
  "SlashCommand",
]);

/** The tool `rule` was meant for, when it names none of `toolNames` but is near one (`bash`, `read`, `Wirte`). */
export function meantTool(rule: Rule, toolNames: readonly string[]): string | undefined {
  if (rule.tool.startsWith("mcp__") || CLAUDE_CODE_TOOLS.has(rule.tool)) return undefined;
  if (toolNames.some((name) => ruleNamesTool(rule, name))) return undefined;
  return closest(rule.tool, toolNames);
}

/** One warning per rule that names no tool of the run but is near one (none when every rule names a tool or nothing near). */
export function ruleTypoWarnings(
  options: Partial<Record<keyof typeof SOURCES, readonly string[] | undefined>>,
  toolNames: readonly string[],
): string[] {
  const warnings: string[] = [];
  for (const [option, flag] of Object.entries(SOURCES) as [keyof typeof SOURCES, string][]) {
    for (const rule of parseRules(options[option], "allow", option)) {
      const meant = meantTool(rule, toolNames);
      if (!meant) continue;
      const where = flag === option ? option : `${flag}, ${option}`;
      warnings.push(
        `the rule ${JSON.stringify(rule.text)} (${where}) names no tool of this run, so it matches nothing: did you mean ${JSON.stringify(meant)}? (tool names are case-sensitive)`,
      );
    }
  }
  return warnings;
}
