/**
 * The tools that work on background shells: BashOutput reads what is new, BashInput writes to
 * stdin, KillShell stops one. The shells themselves are `ubiquity:tool-bash`'s; these reach them
 * through the run's task registry.
 */
import { z } from "zod";
import { Tool, type ToolContext, type ToolOutput, type ToolPermission } from "../../src/index";
import { NO_TASKS_MESSAGE, tasksOf, type TaskInfo, type TaskRegistry } from "../_kits/tasks/index";
import type { ShellBody } from "../tool-bash/index";
import { getPermissionsApi } from "../permissions/api";
import { lazyRequire } from "../_kits/lazy/index";

// The filter worker's module loads with the first filtered read, not at a cold start.
const workerThreads = lazyRequire<typeof import("node:worker_threads")>("node:worker_threads");

function fail(content: string): ToolOutput {
  return { content, isError: true, metadata: {} };
}

/** The registry and the task a call names, or the error result that says why not. */
function lookup(
  ctx: ToolContext,
  id: string,
  kind?: TaskInfo["kind"],
): { tasks: TaskRegistry; task: TaskInfo } | ToolOutput {
  const tasks = tasksOf(ctx.run);
  if (!tasks) return fail(NO_TASKS_MESSAGE);
  const task = tasks.get(id);
  const known = tasks
    .list()
    .filter((t) => !kind || t.kind === kind)
    .map((t) => `${t.id} (${t.state})`);
  if (!task || (kind && task.kind !== kind))
    return fail(
      `There is no background ${kind ?? "task"} "${id}". ${known.length ? `This session has: ${known.join(", ")}.` : "None was started since this session was opened."} ${ENDED_WITH_RUN}`,
    );
  return { tasks, task };
}

// A resumed session's earlier runs started tasks under the same ids ("shell-1"), which the model
// still sees in its history: "none was started in this session" read as if they never ran.
const ENDED_WITH_RUN =
  "A background task ends with the run (or live session) that started it, so one started before the session was resumed is gone, its output with it: start it again if it is still needed.";

/** One line on where a task is: "shell-1 is running (12 s): npm run dev", "shell-1 (npm test) ended: exit code 0". */
export function taskLine(task: TaskInfo): string {
  if (task.state === "running")
    return `${task.id} is running (${Math.round((Date.now() - Date.parse(task.startedAt)) / 1000)} s): ${task.description}`;
  const what = `${task.id} (${task.description})`;
  if (task.state === "killed") return `${what} ${task.outcome}`;
  return `${what} ${task.state === "completed" ? "ended" : "failed"}: ${task.outcome}`;
}

/** Longest a BashOutput filter may run over the output before it is given up. */
export const FILTER_TIME_MS = 2000;

// The filter is the model's regular expression, and JavaScript's engine backtracks: `^(a|a)*$` on a
// line of 60 a's runs for days. It runs in a worker thread, which is terminated at the time limit
// (a regular expression in this thread would freeze the event loop: every session, every timer).
const FILTER_WORKER = `const { parentPort, workerData } = require("node:worker_threads");
const re = new RegExp(workerData.source);
const lines = workerData.text.split("\\n");
const kept = lines.filter((line) => re.test(line));
parentPort.postMessage({ text: kept.join("\\n"), filteredOut: lines.length - kept.length });`;

/** The lines of `text` matching `source`, or undefined when that took longer than `ms`. */
function filterLines(
  text: string,
  source: string,
  ms = FILTER_TIME_MS,
): Promise<{ text: string; filteredOut: number } | undefined> {
  return new Promise((resolve) => {
    const worker = new (workerThreads().Worker)(FILTER_WORKER, { eval: true, workerData: { text, source } });
    const done = (value: { text: string; filteredOut: number } | undefined) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(value);
    };
    const timer = setTimeout(() => done(undefined), ms);
    worker.once("message", (value: { text: string; filteredOut: number }) => done(value));
    worker.once("error", () => done(undefined));
  });
}

export const BashOutputInput = z.object({
  bash_id: z.string().describe("shell-1"),
  filter: z.string().optional().describe("Regex: only matching lines"),
});

/** BashOutput: what a background shell wrote since the last read. */
export class BashOutputTool extends Tool<typeof BashOutputInput> {
  readonly name = "BashOutput";
  readonly description = "A background shell's new output since the last read, and whether it still runs.";
  readonly inputSchema = BashOutputInput;
  override maxResultChars = 30_000;
  override isReadOnly() {
    return true;
  }
  override isConcurrencySafe() {
    return true;
  }
  override validateInput(input: z.output<typeof BashOutputInput>) {
    if (input.filter === undefined) return undefined;
    try {
      new RegExp(input.filter);
      return undefined;
    } catch (error) {
      return `filter is not a valid regular expression: ${(error as Error).message}`;
    }
  }
  async call(input: z.output<typeof BashOutputInput>, ctx: ToolContext): Promise<ToolOutput> {
    const found = lookup(ctx, input.bash_id, "shell");
    if ("content" in found) return found;
    const body = found.tasks.body<ShellBody>(found.task.id);
    const read = body?.read() ?? { text: "", dropped: 0, filteredOut: 0 };
    let slow = false;
    if (input.filter !== undefined && read.text !== "") {
      const filtered = await filterLines(read.text, input.filter);
      if (filtered) Object.assign(read, filtered);
      else slow = true;
    }
    const task = found.tasks.get(found.task.id)!;
    found.tasks.markReported(task.id);
    const parts = [`[${taskLine(task)}]`];
    if (read.dropped > 0)
      parts.push(
        `[${read.dropped} characters written since the last read were dropped: only the newest ${found.tasks.limits.shellOutputChars} are kept]`,
      );
    parts.push(read.text === "" ? "(no new output)" : read.text.replace(/\n$/, ""));
    if (read.filteredOut > 0) parts.push(`[${read.filteredOut} lines did not match the filter]`);
    if (slow)
      parts.push(
        `[The filter ran for more than ${FILTER_TIME_MS / 1000} s over this output and was given up: the output is shown unfiltered. Use a simpler regular expression.]`,
      );
    return {
      content: parts.join("\n"),
      isError: false,
      metadata: { state: task.state, exitCode: task.exitCode, dropped: read.dropped },
    };
  }
}

export const BashInputInput = z.object({
  bash_id: z.string().describe("shell-1"),
  input: z.string(),
});

/** BashInput: text to a background shell's stdin. */
export class BashInputTool extends Tool<typeof BashInputInput> {
  readonly name = "BashInput";
  readonly description = "Writes text to a background shell's stdin (\\n ends a line).";
  readonly inputSchema = BashInputInput;
  /** Rules match the text sent (`BashInput(y*)`). */
  override permissionRuleContent(input: z.output<typeof BashInputInput>) {
    return [input.input];
  }
  /**
   * Text typed into a shell is a command nobody judged: bypassPermissions, which without the
   * sandbox still asks for a Bash command whose writes it cannot name, asks for BashInput to a
   * shell outside the sandbox too (typing into `bash` would otherwise get around that).
   */
  override checkPermissions(input: z.output<typeof BashInputInput>, ctx: ToolContext): ToolPermission {
    const run = ctx.run;
    if (!run) return undefined;
    const body = tasksOf(run)?.body<ShellBody>(input.bash_id);
    if (!body || body.sandboxed || getPermissionsApi(run.kernel).modeOf(run) !== "bypassPermissions") return undefined;
    return {
      behavior: "ask",
      message: `BashInput needs approval: ${input.bash_id} runs outside the sandbox, and what is typed into it is not judged like a Bash command, so bypassPermissions does not cover it.`,
    };
  }
  async call(input: z.output<typeof BashInputInput>, ctx: ToolContext): Promise<ToolOutput> {
    const found = lookup(ctx, input.bash_id, "shell");
    if ("content" in found) return found;
    if (found.task.state !== "running") return fail(`[${taskLine(found.task)}] It takes no more input.`);
    const body = found.tasks.body<ShellBody>(found.task.id);
    if (!body?.interactive || !body.write(input.input))
      return fail(`${found.task.id} has no open stdin (a command moved to the background at its timeout reads none).`);
    return { content: `Wrote ${input.input.length} characters to ${found.task.id}.`, isError: false, metadata: {} };
  }
}

export const KillShellInput = z.object({
  shell_id: z.string().describe("shell-1"),
});

/** KillShell: stop a background shell and everything it started. */
export class KillShellTool extends Tool<typeof KillShellInput> {
  readonly name = "KillShell";
  readonly description = "Stops a background shell and every process it started.";
  readonly inputSchema = KillShellInput;
  /** Stopping what the session itself started cannot harm anything else (deny rules still apply). */
  override checkPermissions(): ToolPermission {
    return { behavior: "allow" };
  }
  async call(input: z.output<typeof KillShellInput>, ctx: ToolContext): Promise<ToolOutput> {
    const found = lookup(ctx, input.shell_id, "shell");
    if ("content" in found) return found;
    if (found.task.state !== "running")
      return {
        content: `[${taskLine(found.task)}] Nothing to stop.`,
        isError: false,
        metadata: { state: found.task.state },
      };
    await found.tasks.stop(found.task.id, "by KillShell");
    found.tasks.markReported(found.task.id);
    const task = found.tasks.get(found.task.id)!;
    return { content: `[${taskLine(task)}]`, isError: false, metadata: { state: task.state } };
  }
}
