/**
 * Turning a command into the prompt it stands for, as Claude Code does: `$ARGUMENTS` and `$1…$9`
 * are replaced by what followed the name, each `!`shell`` line by its output, and each `@path` of
 * an existing file brings the file in. Shell lines and files are tool calls through the funnel
 * (`runToolCall`): judged by the permission rules, the mode, the hooks and the sandbox exactly as
 * the model's own Bash and Read calls are, and shown in the stream as tool calls. Fail closed: a
 * line that was not positively run (denied, blocked by a hook, no Bash tool) fails the command.
 */
import { stat } from "node:fs/promises";
import { absolutePath, type RunContext } from "../../src/index";
import { runOwnToolCall, runShellLines, SHELL_LINE, ShellLineError, substituteArguments } from "../_kits/sources/index";
import type { SlashCommand } from "./command";

export { splitArguments, substituteArguments } from "../_kits/sources/index";

/** Why a command could not be expanded: the prompt is refused with this message. */
export class CommandError extends Error {
  override name = "CommandError";
}

/** `@path` at the start or after whitespace; trailing punctuation is not part of the path. */
const FILE_MENTION = /(^|\s)@([^\s`'"<>]+)/g;

/**
 * The files the text mentions with `@path` that exist, each read through the Read tool. `label` is
 * who included them (`/review`, or `the prompt`); with `strict`, a file that could not be read fails
 * (a command's inclusion), else the context says it was not read and why (a typed prompt goes on,
 * as Claude Code sends a prompt whose mention it could not read).
 */
export async function readMentions(text: string, run: RunContext, label: string, strict = true): Promise<string[]> {
  const context: string[] = [];
  const seen = new Set<string>();
  for (const match of text.matchAll(FILE_MENTION)) {
    const written = match[2]!.replace(/[.,;:!?)\]]+$/, "");
    const path = absolutePath(run.cwd, written);
    if (seen.has(path) || !(await stat(path).catch(() => undefined))?.isFile()) continue;
    seen.add(path);
    const output = await runOwnToolCall(run, "Read", { file_path: path });
    const failure = !output
      ? `${label} includes @${written}, but this run has no Read tool, so it was not read`
      : output.isError
        ? `${label}: @${written} was not read: ${output.content}`
        : undefined;
    if (failure && strict) throw new CommandError(failure);
    context.push(failure ?? `Contents of ${written} (included by ${label}):\n${output!.content}`);
  }
  return context;
}

/** The prompt a command stands for, and the files it includes (context ahead of it). */
export async function expandCommand(
  command: SlashCommand,
  args: string,
  run: RunContext,
  /** `disableSkillShellExecution`: the shell lines stand replaced, unrun. */
  shellLinesOff = false,
): Promise<{ text: string; context: string[] }> {
  const body =
    command.source === "skill" ? `Base directory for this skill: ${command.dir}\n\n${command.body}` : command.body;
  const substituted = substituteArguments(body, args, run.sessionId);
  // Files are the ones the command and its arguments name, never ones a shell line's output names.
  const context = await readMentions(substituted.replace(SHELL_LINE, "$2"), run, `/${command.name}`);
  try {
    return { text: await runShellLines(substituted, run, `/${command.name}`, shellLinesOff), context };
  } catch (error) {
    throw error instanceof ShellLineError ? new CommandError(error.message) : error;
  }
}
