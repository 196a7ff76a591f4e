/**
 * Claude Code's `!`command`` lines and ```` ```! ```` blocks in a command's or a skill's body: each
 * is run and replaced by its output before the text reaches the model. Each runs as a Bash tool call through the funnel
 * (`runToolCall`): judged by the permission rules, the mode, the hooks and the sandbox exactly as
 * the model's own Bash calls are, and shown in the stream as a tool call. Fail closed: a line that
 * was not positively run (denied, blocked by a hook, no Bash tool) is an error naming it.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { runToolCall, type RunContext } from "../../../src/index";

/** The `disableSkillShellExecution` option as the commands' and skills' slices declare it (one instance, so they agree). */
export const DisableShellLinesOption = z
  .boolean()
  .optional()
  .describe(
    "Run no shell line of a command or skill (!`cmd`, ```! blocks): each stands replaced by [shell command execution disabled by policy], as in Claude Code; a settings file's disableSkillShellExecution: true sets it [false]",
  );

/** What a shell line stands replaced by when they are off (Claude Code's words). */
export const SHELL_LINES_DISABLED = "[shell command execution disabled by policy]";

/**
 * What Claude Code runs, as its skills docs write it: a fenced block opened with ```` ```! ````
 * (its lines are one command: group 1; Anthropic's ralph-loop starts its loop with one), or
 * `!`command`` at the start of a line or after whitespace (group 3, after the whitespace in group
 * 2, kept); `KEY=!`cmd`` is text there, and here.
 */
export const SHELL_LINE = /^```![ \t]*\r?\n([\s\S]*?)^```[ \t]*$|(^|\s)!`([^`\n]+)`/gm;

/** The command a SHELL_LINE match runs. */
const commandOf = (match: RegExpMatchArray): string => (match[1] ?? match[3]!).replace(/\r?\n$/, "");

/** Why a shell line did not run (the message says which and why). */
export class ShellLineError extends Error {
  override name = "ShellLineError";
}

/** Run one tool call through the funnel, or undefined when the run has no such tool. */
export async function runOwnToolCall(run: RunContext, toolName: string, input: Record<string, unknown>) {
  const tools = new Map(run.tools.map((t) => [t.name, t]));
  if (!tools.has(toolName)) return undefined;
  return (await runToolCall(run, tools, { toolCallId: `inline_${randomUUID()}`, toolName, input })).message.output;
}

/** `word` in single quotes, as a shell reads it back unchanged. */
const shellQuoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * When a line waited for an approval nobody could give (`-p`): every line of the text as the exact
 * rules that let them all run, so one retry does it (Anthropic's `/commit` runs `git diff HEAD`,
 * `git branch --show-current` and `git log` besides the `git status` its allowed-tools names; Claude
 * Code runs such read-only commands without asking, and the user met them one refusal at a time).
 */
function approvalHint(reason: string, lines: readonly RegExpMatchArray[]): string {
  if (!reason.includes("needs approval")) return "";
  const commands = lines.flatMap((line) => commandOf(line).split("\n")).map((c) => c.trim());
  const rules = [...new Set(commands.filter(Boolean))].map((c) => `Bash(${c.replaceAll("*", "\\*")})`);
  return ` Claude Code runs read-only commands (git diff, git log, ls) without asking; here a command no rule allows needs approval, and with -p (or no canUseTool) nothing can give it. To let this text's shell lines run, allow them: --allowedTools ${rules.map(shellQuoted).join(" ")} (allowedTools in code).`;
}

/**
 * `text` with each shell line replaced by its output; `label` names where the text came from
 * (`/deploy`, `the skill deploy`). Throws a ShellLineError for the first line that did not run.
 * `disabled`: Claude Code's `disableSkillShellExecution` (the caller reads its plugin's option).
 */
export async function runShellLines(text: string, run: RunContext, label: string, disabled = false): Promise<string> {
  const lines = [...text.matchAll(SHELL_LINE)];
  if (lines.length === 0) return text;
  // The text loads, its commands do not run.
  if (disabled) return text.replace(SHELL_LINE, (...match: string[]) => `${match[2] ?? ""}${SHELL_LINES_DISABLED}`);
  const outputs: string[] = [];
  for (const line of lines) {
    const command = commandOf(line);
    const output = await runOwnToolCall(run, "Bash", { command, description: `${label}: a shell line` });
    if (!output)
      throw new ShellLineError(
        `${label} runs the shell line \`${command}\`, but this run has no Bash tool, so it was not run`,
      );
    // The Bash tool reports an exit code whenever the command ran; anything else (a denial, a hook's block) did not run it.
    if (!("exitCode" in output.metadata))
      throw new ShellLineError(
        `${label}: the shell line \`${command}\` was not run: ${output.content}${approvalHint(output.content, lines)}`,
      );
    outputs.push(output.content);
  }
  let i = 0;
  return text.replace(SHELL_LINE, (...match: string[]) => `${match[2] ?? ""}${outputs[i++]!}`);
}
