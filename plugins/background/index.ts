/**
 * `ubiquity:background`: the background tasks of a session — shells started with
 * `Bash run_in_background` (and agents with `Agent run_in_background`). Each run gets a task
 * registry (plugins/_kits/tasks) with the caps of `backgroundTasks`; the tools BashOutput,
 * BashInput and KillShell work on its shells; the model hears when a task ends (a note on the
 * next tool result) and which are running (with each prompt); the stream carries
 * `system/task_started`, `task_ended` (and `task_output` with `includePartialMessages`); and
 * every task still running is stopped when the session ends, its processes with it.
 */
import {
  secretsOfRun,
  streamMasker,
  type Kernel,
  type RunContext,
  type Tool,
  type ToolOutput,
  type TurnPrompt,
} from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { TaskRegistry, attachTasks, tasksOf, type TaskEvent, type TaskInfo } from "../_kits/tasks/index";
import { BashInputTool, BashOutputTool, KillShellTool, taskLine } from "./tools";
import { backgroundOptions } from "./options";
import { earlierTasksNote } from "./resumed";
import "./messages";

export { BashInputTool, BashOutputTool, KillShellTool } from "./tools";
export {
  tasksOf,
  TaskRegistry,
  TaskLimitError,
  type TaskInfo,
  type TaskState,
  type TaskKind,
  type TaskLimits,
} from "../_kits/tasks/index";
export type { SystemTaskStartedMessage, SystemTaskEndedMessage, SystemTaskOutputMessage, TaskEvent } from "./messages";
export * from "./options";

/** The plugin's name. */
export const NAME = "ubiquity:background";

/** What the model reads about tasks that ended since it was last told. */
function endedNote(ended: TaskInfo[]): string {
  const lines = ended.map(
    (t) =>
      `- ${taskLine(t)}${t.kind === "shell" ? ` (read the rest of its output with BashOutput bash_id "${t.id}")` : ""}`,
  );
  return `[Background ${ended.length === 1 ? "task" : "tasks"} ended:\n${lines.join("\n")}]`;
}

/**
 * What a run's task events become: kernel events, and the run's `system/task_*` messages. A task's
 * output arrives in pieces, each a message: a secret split across two (a process that wrote it in
 * two writes) was masked in neither, and whoever joins them (the terminal's `/tasks <id>`, a reader
 * of the stream) had it whole (red team zh, ZH3). Each task's pieces pass through one masker, which
 * holds back a tail that could begin a secret until the next piece, or the task's end, tells.
 */
function taskListener(
  kernel: Kernel,
  run: RunContext,
  partial: boolean,
  closing: WeakSet<RunContext>,
): (event: TaskEvent) => void {
  const maskers = new Map<string, ReturnType<typeof streamMasker>>();
  const tell = (event: TaskEvent) => {
    kernel.emit({
      type: "task",
      event: event.type,
      task: event.task,
      sessionId: run.sessionId,
      ...(event.type === "output" ? { text: event.text } : {}),
    });
    // Nothing follows the session's result in its stream: ends during the close are events only.
    if (closing.has(run)) return;
    if (event.type === "started") run.emit({ type: "system", subtype: "task_started", task: event.task });
    else if (event.type === "ended") run.emit({ type: "system", subtype: "task_ended", task: event.task });
    else if (partial) run.emit({ type: "system", subtype: "task_output", taskId: event.task.id, text: event.text });
  };
  return (event) => {
    const id = event.task.id;
    if (event.type === "output") {
      let masker = maskers.get(id);
      if (!masker) maskers.set(id, (masker = streamMasker(() => secretsOfRun(run))));
      const text = masker.push(event.text);
      if (text) tell({ ...event, text });
      return;
    }
    const held = maskers.get(id)?.flush();
    maskers.delete(id);
    if (held) tell({ type: "output", task: event.task, text: held });
    tell(event);
  };
}

/** The background plugin. */
export const backgroundPlugin = definePlugin({
  name: NAME,
  options: backgroundOptions,
  apply(kernel, context) {
    const closing = new WeakSet<RunContext>();

    kernel.hooks.kernel.configResolved.tap(NAME, (options) => {
      if (options.tools) return;
      for (const tool of [new BashOutputTool(), new BashInputTool(), new KillShellTool()]) {
        if (!kernel.registries.tools.has(tool.name)) kernel.registries.tools.register(tool.name, tool, NAME);
      }
    });

    // Without Bash (disallowed, not in the list) there is no background shell to read or stop.
    const SHELL_TOOLS = new Set(["BashOutput", "BashInput", "KillShell"]);
    kernel.hooks.tool.list.tap(NAME, (tools: Tool[]) =>
      tools.some((t) => t.name === "Bash") ? tools : tools.filter((t) => !SHELL_TOOLS.has(t.name)),
    );

    kernel.hooks.session.start.tap(NAME, (run: RunContext) => {
      const options = context.optionsOf(run).backgroundTasks ?? {};
      // A subagent's tasks count against the session's caps: its registry hangs off its parent's.
      const tasks = attachTasks(run, new TaskRegistry(options, run.parent ? tasksOf(run.parent) : undefined));
      const partial = run.options.includePartialMessages === true;
      tasks.on(taskListener(kernel, run, partial, closing));
    });

    // A task that ended is news for the model: the next tool result carries it.
    kernel.hooks.tool.afterCall.tap(NAME, (output: ToolOutput, call) => {
      const ended = tasksOf(call.run)?.takeUnreported() ?? [];
      return ended.length === 0 ? output : { ...output, content: `${output.content}\n\n${endedNote(ended)}` };
    });

    // Each prompt says what runs in the background, and what ended since the model last heard.
    const looked = new WeakSet<RunContext>();
    kernel.hooks.turn.prompt.tap(NAME, (prompt: TurnPrompt, run: RunContext) => {
      const tasks = tasksOf(run);
      if (!tasks) return prompt;
      // A resumed session's first prompt: the tasks its earlier runs left behind are gone.
      const earlier = run.agent || looked.has(run) ? undefined : earlierTasksNote(run.history, tasks);
      looked.add(run);
      const ended = tasks.takeUnreported();
      const running = tasks.list().filter((t) => t.state === "running");
      const notes = [
        ...(earlier ? [earlier] : []),
        ...(ended.length ? [endedNote(ended)] : []),
        ...(running.length
          ? [`[Running in the background:\n${running.map((t) => `- ${taskLine(t)}`).join("\n")}]`]
          : []),
      ];
      return notes.length ? { ...prompt, context: [...prompt.context, ...notes] } : prompt;
    });

    // Shells end with the session, and so does everything they started.
    kernel.hooks.session.end.tapPromise(NAME, async (run: RunContext) => {
      closing.add(run);
      await tasksOf(run)?.close("when the session ended");
    });
  },
});

export default backgroundPlugin;
