/**
 * Turning a command into the prompt it stands for, as Claude Code does: `$ARGUMENTS` and `$1…$9`
 * are replaced by what followed the name, each `!`shell`` line by its output, and each `@path` of
 * an existing file brings the file in. Shell lines and files are tool calls through the funnel
 * (`runToolCall`): judged by the permission rules, the mode, the hooks and the sandbox exactly as
 * the model's own Bash and Read calls are, and shown in the stream as tool calls. Fail closed: a
 * line that was not positively run (denied, blocked by a hook, no Bash tool) fails the command.
 */
import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { absolutePath, runToolCall, type RunContext } from "../../src/index";
import type { SlashCommand } from "./command";

/** Why a command could not be expanded: the prompt is refused with this message. */
export class CommandError extends Error {
  override name = "CommandError";
}

/** A command's arguments split as a shell would split words (quotes group, no expansion). */
export function splitArguments(args: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = pattern.exec(args); m; m = pattern.exec(args))
    words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]!));
  return words;
}

/** `$ARGUMENTS[N]` (the word at 0-based index N, Claude Code's indexed form), `$ARGUMENTS`, `$N`. */
const PLACEHOLDER = /\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS\b|\$(\d)(?!\d)/g;
/** `$0` (not an amount such as `$0.15`): a body whose prose has it counts its words from 0. */
const ZERO = /\$0(?![\w.])/;
/** `$1`…`$9`. */
const NUMBERED = /\$[1-9](?!\d)/;
/** A fenced code block, whole: split() keeps it as an odd-numbered piece. */
const FENCED = /(^```[^\n]*\n[\s\S]*?^```[^\n]*$|^~~~[^\n]*\n[\s\S]*?^~~~[^\n]*$)/m;
/** `${CLAUDE_SESSION_ID}`: the session's id, as Claude Code substitutes it in commands and skills. */
const SESSION_ID = /\$\{CLAUDE_SESSION_ID\}/g;

/**
 * `body` with its arguments in place; a body that uses none gets them appended (as Claude Code does).
 * `$ARGUMENTS` is all of them, `$ARGUMENTS[N]` the word at 0-based index N. `$1`…`$9` count from 1,
 * as Claude Code's slash-command docs and Anthropic's own plugins write them, unless the body's prose
 * uses `$0` (Claude Code 2.1's skills docs count `$N` from 0: `$0` the first word, `$1` the second).
 * A placeholder with no word is left as written, as Claude Code leaves it. `$N` inside fenced code
 * is the code's own (a shell script's `$1`, `$0`) unless the prose uses `$N` too.
 */
export function substituteArguments(body: string, args: string, sessionId?: string): string {
  const text = sessionId === undefined ? body : body.replace(SESSION_ID, () => sessionId);
  const pieces = text.split(FENCED);
  const prose = pieces.filter((_, i) => i % 2 === 0).join("\n");
  const first = ZERO.test(prose) ? 0 : 1;
  const numberedInCode = first === 0 || NUMBERED.test(prose);
  const words = splitArguments(args);
  let used = false;
  const substitute = (piece: string, numbered: boolean) =>
    piece.replace(PLACEHOLDER, (written, index: string | undefined, n: string | undefined) => {
      if (index !== undefined) return ((used = true), words[Number(index)] ?? written);
      if (n === undefined) return ((used = true), args);
      if (!numbered || Number(n) < first) return written;
      used = true;
      return words[Number(n) - first] ?? written;
    });
  // One pass a piece: a word that itself reads `$1` or `$ARGUMENTS` is never substituted again.
  const out = pieces.map((piece, i) => substitute(piece, i % 2 === 0 || numberedInCode)).join("");
  return used || !args ? out : `${out}\n\nARGUMENTS: ${args}`;
}

/** `!`command`` anywhere in the body (Claude Code's syntax). */
const SHELL_LINE = /!`([^`\n]+)`/g;
/** `@path` at the start or after whitespace; trailing punctuation is not part of the path. */
const FILE_MENTION = /(^|\s)@([^\s`'"<>]+)/g;

/** Run one tool call of the command through the funnel. */
async function call(run: RunContext, toolName: string, input: Record<string, unknown>) {
  const tools = new Map(run.tools.map((t) => [t.name, t]));
  if (!tools.has(toolName)) return undefined;
  return (await runToolCall(run, tools, { toolCallId: `command_${randomUUID()}`, toolName, input })).message.output;
}

/** Replace each shell line by its output; throws a CommandError for the first one that did not run. */
async function runShellLines(text: string, run: RunContext, name: string): Promise<string> {
  const lines = [...text.matchAll(SHELL_LINE)];
  if (lines.length === 0) return text;
  const outputs: string[] = [];
  for (const [, command] of lines) {
    const output = await call(run, "Bash", { command: command!, description: `/${name}: a shell line of the command` });
    if (!output)
      throw new CommandError(
        `/${name} runs the shell line \`${command}\`, but this run has no Bash tool, so it was not run`,
      );
    // The Bash tool reports an exit code whenever the command ran; anything else (a denial, a hook's block) did not run it.
    if (!("exitCode" in output.metadata))
      throw new CommandError(`/${name}: the shell line \`${command}\` was not run: ${output.content}`);
    outputs.push(output.content);
  }
  let i = 0;
  return text.replace(SHELL_LINE, () => outputs[i++]!);
}

/** The files the text mentions with `@path` that exist, each read through the Read tool. */
async function readMentions(text: string, run: RunContext, name: string): Promise<string[]> {
  const context: string[] = [];
  const seen = new Set<string>();
  for (const match of text.matchAll(FILE_MENTION)) {
    const written = match[2]!.replace(/[.,;:!?)\]]+$/, "");
    const path = absolutePath(run.cwd, written);
    if (seen.has(path) || !(await stat(path).catch(() => undefined))?.isFile()) continue;
    seen.add(path);
    const output = await call(run, "Read", { file_path: path });
    if (!output)
      throw new CommandError(`/${name} includes @${written}, but this run has no Read tool, so it was not read`);
    if (output.isError) throw new CommandError(`/${name}: @${written} was not read: ${output.content}`);
    context.push(`Contents of ${written} (included by /${name}):\n${output.content}`);
  }
  return context;
}

/** The prompt a command stands for, and the files it includes (context ahead of it). */
export async function expandCommand(
  command: SlashCommand,
  args: string,
  run: RunContext,
): Promise<{ text: string; context: string[] }> {
  const body =
    command.source === "skill" ? `Base directory for this skill: ${command.dir}\n\n${command.body}` : command.body;
  const substituted = substituteArguments(body, args, run.sessionId);
  // Files are the ones the command and its arguments name, never ones a shell line's output names.
  const context = await readMentions(substituted.replace(SHELL_LINE, ""), run, command.name);
  return { text: await runShellLines(substituted, run, command.name), context };
}
