import { stat } from "node:fs/promises";
import { z } from "zod";
import { Tool, type ToolContext, type ToolOutput } from "../../src/index";
import { buildSubprocessEnv, describeKilled, sessionScriptOf, utf8ShellEnv } from "../_kits/process/index";
import { ToolFailure, guard } from "../_kits/file-tools/index";
import type { SandboxApi, SpawnSpec } from "../sandbox/api";
import type { CommandResult } from "./run-command";
import { NO_TASKS_MESSAGE, TaskLimitError, tasksOf } from "../_kits/tasks/index";
import { lazyImport } from "../_kits/lazy/index";

// What runs a command (the shell process, its output buffer, its process group, background
// shells) loads with the first call: a run that runs no command never loads it.
const shellCode = lazyImport(() => import("./shell-code"));

/** The limits Bash enforces (its description states the same numbers). */
export const BASH_LIMITS = Object.freeze({
  defaultTimeoutMs: 120_000,
  maxTimeoutMs: 600_000,
  /** Longer output keeps its head and tail with a marker between. */
  maxOutputChars: 30_000,
});

/** Input of the Bash tool. */
export const BashInput = z.object({
  command: z.string().min(1),
  timeout: z
    .number()
    .int()
    .positive()
    .max(BASH_LIMITS.maxTimeoutMs)
    .optional()
    .describe("Milliseconds (default 120000)"),
  description: z.string().optional().describe("A few words for the user"),
  run_in_background: z.boolean().optional().describe("Return at once with a shell id"),
  pty: z.boolean().optional().describe("Pseudo-terminal (with run_in_background)"),
});

// Over 1 KB with its parameters (1.1 KB; `npm run bench request-bytes`): each clause is a behaviour
// a model gets wrong without being told (a fresh shell per call, processes stopped at return, the
// output cut, background commands), and five parameters. The timeout's numbers are in its
// parameter only; that everything a command started is stopped when it returns or times out is one
// clause (the reason run_in_background exists, which the last line says).
const DESCRIPTION = `Runs a command with bash (sh if missing) in the working directory, in a fresh shell each call (cd and variables do not carry over).
- stdout and stderr come combined, in order; stdin is empty (prompts cannot be answered). A non-zero exit is an error result.
- On timeout or return, everything it started is stopped (cmd &, setsid too).
- Output over 30,000 characters keeps its start and end: redirect large output to a file and read the part you need.
- run_in_background runs on (stdin open) until it ends, is stopped or the session ends: for servers, watchers, long builds, not commands you wait on.`;

/** Bash: one shell command per call, with a deadline and no orphans when it is cut short. */
export class BashTool extends Tool<typeof BashInput> {
  readonly name = "Bash";
  override readonly kind = "execute" as const;
  readonly description = DESCRIPTION;
  readonly inputSchema = BashInput;
  /** The funnel's bound stays above the command's own timeout and the kill that follows it. */
  override timeoutMs = BASH_LIMITS.maxTimeoutMs + 60_000;

  /** With a sandbox, every command runs inside it (ubiquity:sandbox decides how, or not at all). */
  constructor(private readonly sandbox?: SandboxApi) {
    super();
  }

  /**
   * The whole command, for engines that match it as one string. ubiquity:permissions does not
   * use this: it parses the command and judges every simple command in it.
   */
  override permissionRuleContent(input: z.output<typeof BashInput>) {
    return [input.command];
  }

  async call(input: z.output<typeof BashInput>, ctx: ToolContext): Promise<ToolOutput> {
    return guard(async () => {
      const { adoptShell, runCommand, ShellProcess } = await shellCode();
      const cwd = await stat(ctx.cwd).catch(() => undefined);
      if (!cwd?.isDirectory())
        throw new ToolFailure(`The working directory ${ctx.cwd} does not exist; commands cannot run until it does.`);
      // The last wait before the spawn: a warm-up begun meanwhile is waited for, not done again.
      await this.sandbox?.ready();
      const timeoutMs = input.timeout ?? BASH_LIMITS.defaultTimeoutMs;
      // The shell reads the command in UTF-8, as the permission engine did (red team zg, ZG1).
      const env = utf8ShellEnv(buildSubprocessEnv({ env: ctx.env, subprocessEnv: ctx.subprocessEnv }));
      const wrap =
        this.sandbox &&
        ((spec: SpawnSpec) =>
          this.sandbox!.wrap(spec, { kind: "bash", subject: input.command, toolUseId: ctx.toolUseId, passFds: true }));
      const tasks = tasksOf(ctx.run);
      // What SessionStart hooks wrote to CLAUDE_ENV_FILE runs first, in the same shell (the rules judged the command alone).
      // Red-team fix: with the sandbox on, the hooks that wrote it ran sandboxed; a command that runs
      // outside the sandbox (excludedCommands) does not get their script, which would run out of it too.
      const script =
        this.sandbox?.active && !this.sandbox.sandboxes(input.command) ? undefined : sessionScriptOf(ctx.run);
      const command = script ? `${script}${input.command}` : input.command;
      if (input.run_in_background) {
        if (!tasks) throw new ToolFailure(NO_TASKS_MESSAGE);
        const start = () => new ShellProcess(command, { cwd: ctx.cwd, env, wrap, stdin: "pipe", pty: input.pty });
        let id: string;
        try {
          id = adoptShell(tasks, input.command, start, { interactive: true });
        } catch (error) {
          if (error instanceof TaskLimitError) throw new ToolFailure(error.message);
          throw error;
        }
        return {
          content: `Started in the background as ${id}. Read its output with BashOutput (bash_id "${id}"), write to its stdin with BashInput, stop it with KillShell (shell_id "${id}"). It is stopped when the session ends.`,
          isError: false,
          metadata: { backgroundTaskId: id },
        };
      } else if (input.pty) {
        throw new ToolFailure(
          "pty: true needs run_in_background: true (a foreground command has no input to answer on a terminal).",
        );
      }
      const result = await runCommand(command, {
        cwd: ctx.cwd,
        env,
        timeoutMs,
        signal: ctx.abortSignal,
        maxOutputChars: BASH_LIMITS.maxOutputChars,
        wrap,
        // Past its timeout a command may move to the background instead of being killed (backgroundOnTimeout).
        onTimeout:
          tasks?.limits.backgroundOnTimeout === true
            ? (proc, initial) => {
                try {
                  return adoptShell(tasks, input.command, proc, { interactive: false, initial });
                } catch {
                  return undefined; // a cap is reached: it is killed as without the option
                }
              }
            : undefined,
      });
      if (!result.reaped)
        ctx.logger.warn(`Bash: processes of a killed command were still running after the wait: ${input.command}`);
      return present(result, timeoutMs);
    });
  }
}

/** The output as the model reads it, with the reason when the command did not succeed. */
function present(result: CommandResult, timeoutMs: number): ToolOutput {
  const notes: string[] = [];
  if (result.movedToBackground) {
    const id = result.movedToBackground;
    const body = result.output === "" ? "" : `${result.output.replace(/\n$/, "")}\n\n`;
    return {
      content: `${body}[Still running after ${timeoutMs} ms: moved to the background as ${id} (backgroundOnTimeout). Read its further output with BashOutput (bash_id "${id}"), stop it with KillShell.]`,
      isError: false,
      metadata: { backgroundTaskId: id, durationMs: result.durationMs },
    };
  }
  // Only claim that every process is gone when the wait confirmed it.
  const killedAll = !result.reaped
    ? "the command was killed, but some process it started was still running after the wait"
    : result.contained
      ? "the command and every process it started were killed"
      : "the command's process group was killed (a process that left the group, as setsid does, is not tracked without the sandbox or Perl)";
  if (result.timedOut) {
    notes.push(
      `[Timed out after ${timeoutMs} ms: ${killedAll}. Give a larger timeout (at most ${BASH_LIMITS.maxTimeoutMs} ms) or make the command finish sooner.]`,
    );
  } else if (result.aborted) {
    notes.push(`[Aborted: the run was cancelled, and ${killedAll}.]`);
  } else if (result.signal) {
    notes.push(`[Killed by ${result.signal}]`);
  } else if (result.exitCode !== 0 && result.exitCode !== null) {
    notes.push(`[Exit code ${result.exitCode}]`);
  }
  const body =
    result.output === "" && notes.length === 0 && result.leftBehind === 0
      ? "(no output)"
      : result.output.replace(/\n$/, "");
  const info =
    result.leftBehind > 0
      ? `[${result.leftBehind === 1 ? "1 background process" : `${result.leftBehind} background processes`} the command left running ${result.reaped ? (result.leftBehind === 1 ? "was stopped" : "were stopped") : "got SIGKILL but could not be confirmed gone"} when it returned${result.leftBehindNames ? ` (${describeKilled(result.leftBehindNames)})` : ""}: a Bash call's processes end with it.]`
      : "";
  const lost = result.reaperLost
    ? `[The command ended the process that tracks what it starts: a process it started outside its process group (setsid) may still be running.]${result.exitCode === null && result.signal === null && !result.timedOut && !result.aborted ? " [Its exit status is unknown.]" : ""}`
    : "";
  return {
    content: [body, ...notes, info, lost].filter((s) => s !== "").join("\n\n"),
    isError: notes.length > 0,
    metadata: {
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      aborted: result.aborted,
      outputChars: result.outputChars,
      cutChars: result.cutChars,
      durationMs: result.durationMs,
      shell: result.shell,
      contained: result.contained,
      ...(result.leftBehindNames ? { stopped: result.leftBehindNames } : {}),
    },
  };
}
