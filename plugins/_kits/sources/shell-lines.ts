/**
 * Claude Code's `!`command`` lines in a command's or a skill's body: each is run and replaced by
 * its output before the text reaches the model. Each runs as a Bash tool call through the funnel
 * (`runToolCall`): judged by the permission rules, the mode, the hooks and the sandbox exactly as
 * the model's own Bash calls are, and shown in the stream as a tool call. Fail closed: a line that
 * was not positively run (denied, blocked by a hook, no Bash tool) is an error naming it.
 */
import { randomUUID } from "node:crypto";
import { runToolCall, type RunContext } from "../../../src/index";

/** `!`command`` anywhere in the text. */
export const SHELL_LINE = /!`([^`\n]+)`/g;

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

/**
 * `text` with each shell line replaced by its output; `label` names where the text came from
 * (`/deploy`, `the skill deploy`). Throws a ShellLineError for the first line that did not run.
 */
export async function runShellLines(text: string, run: RunContext, label: string): Promise<string> {
  const lines = [...text.matchAll(SHELL_LINE)];
  if (lines.length === 0) return text;
  const outputs: string[] = [];
  for (const [, command] of lines) {
    const output = await runOwnToolCall(run, "Bash", { command: command!, description: `${label}: a shell line` });
    if (!output)
      throw new ShellLineError(
        `${label} runs the shell line \`${command}\`, but this run has no Bash tool, so it was not run`,
      );
    // The Bash tool reports an exit code whenever the command ran; anything else (a denial, a hook's block) did not run it.
    if (!("exitCode" in output.metadata))
      throw new ShellLineError(`${label}: the shell line \`${command}\` was not run: ${output.content}`);
    outputs.push(output.content);
  }
  let i = 0;
  return text.replace(SHELL_LINE, () => outputs[i++]!);
}
