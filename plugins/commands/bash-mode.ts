/**
 * Claude Code's `!` bash mode: a command the user typed runs at once, with no model turn, and what
 * it printed goes ahead of the user's next prompt, so the model reads it then (Claude Code's
 * `<bash-input>` and `<bash-stdout>` blocks). It runs as a Bash tool call through the funnel, judged
 * by the rules, the mode, the hooks and the sandbox exactly as the model's own calls are (typing it
 * proves no more than a rule does: a command no rule allows is asked about, and a deny stands).
 */
import type { RunContext } from "../../src/index";
import { runOwnToolCall } from "../_kits/sources/index";

/** What a `!` command did. */
export interface ShellOutcome {
  /** True when the command ran (whatever its exit code); false when it was refused or there is no Bash tool. */
  ran: boolean;
  /** What it printed (the Bash tool's result, secrets masked), or why it did not run. */
  output: string;
  /** Its exit code when it ran (null when a signal ended it). */
  exitCode?: number | null;
}

/** The blocks of the commands typed since the run's last prompt, for the next prompt's context. */
const typed = new WeakMap<RunContext, string[]>();

/** Run `command` for the user now; what it printed is kept for the run's next prompt. */
export async function runTypedCommand(run: RunContext, command: string): Promise<ShellOutcome> {
  const output = await runOwnToolCall(run, "Bash", { command, description: "typed by the user after !" });
  if (!output) return { ran: false, output: "this session has no Bash tool, so a `!` command cannot run" };
  // The Bash tool reports an exit code whenever the command ran; a denial or a hook's block did not run it.
  if (!("exitCode" in output.metadata)) return { ran: false, output: output.content };
  const blocks = typed.get(run) ?? [];
  blocks.push(`<bash-input>${command}</bash-input>\n<bash-stdout>${output.content}</bash-stdout>`);
  typed.set(run, blocks);
  return { ran: true, output: output.content, exitCode: output.metadata.exitCode as number | null };
}

/** The blocks of the commands typed since the last prompt (each once: taking them clears them). */
export function takeTypedCommands(run: RunContext): string[] {
  const blocks = typed.get(run) ?? [];
  typed.delete(run);
  return blocks;
}
