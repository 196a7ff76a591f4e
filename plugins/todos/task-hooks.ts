/**
 * Claude Code's TaskCreated and TaskCompleted hooks, on the todo list: a TodoWrite call's change
 * is held to them before it is written. A task new to the list fires TaskCreated; a task whose
 * status becomes `completed` fires TaskCompleted (both, in that order, for one added as
 * completed). The input has `task_id` and `task_subject` (the task's content; a todo has no
 * description). A hook that blocks (exit 2, `decision: "block"`, `continue: false`) keeps the task
 * from being created, or from being marked completed (it keeps its status), and its reason goes
 * back to the model in the tool's answer. No matcher: they fire for every task. Fired through the
 * hooks plugin's API (`getHooksApi`); without it, or without such hooks, the change goes as it is.
 */
import type { RunContext } from "../../src/index";
import { getHooksApi } from "../hooks/index";
import { sameTask, type TodoChange } from "./edit";
import type { Todo } from "./todo";

const describe = (todo: Todo) => `"${todo.content}" (id ${todo.id})`;

/** `change` with what the TaskCreated and TaskCompleted hooks refused taken out of it. */
export async function withTaskHooks(run: RunContext, stored: readonly Todo[], change: TodoChange): Promise<TodoChange> {
  const hooks = getHooksApi(run.kernel);
  const created = hooks?.has("TaskCreated", run) === true;
  const completed = hooks?.has("TaskCompleted", run) === true;
  if (!hooks || !(created || completed)) return change;
  const before = new Map(stored.map((t) => [t.id, t] as const));
  const refused = new Set<string>();
  const reverted = new Map<string, Todo>();
  const notes: string[] = [];
  for (const task of change.upserts) {
    const was = before.get(task.id);
    const fields = { extra: { taskId: task.id, taskSubject: task.content } };
    if (!was && created) {
      const outcome = await hooks.fire("TaskCreated", run, fields);
      if (outcome.blocked) {
        refused.add(task.id);
        notes.push(`${describe(task)} was not created: ${outcome.blocked}`);
        continue;
      }
    }
    if (completed && task.status === "completed" && was?.status !== "completed") {
      const outcome = await hooks.fire("TaskCompleted", run, fields);
      if (outcome.blocked) {
        reverted.set(task.id, keptOpen(task, was, change.todos));
        notes.push(`${describe(task)} was not marked completed: ${outcome.blocked}`);
      }
    }
  }
  if (refused.size === 0 && reverted.size === 0) return change;
  const now = (t: Todo) => reverted.get(t.id) ?? t;
  return {
    todos: change.todos.filter((t) => !refused.has(t.id)).map(now),
    upserts: change.upserts
      .filter((t) => !refused.has(t.id))
      .map(now)
      .filter((t) => !before.has(t.id) || !sameTask(before.get(t.id)!, t)),
    removals: change.removals,
    notes: [...change.notes, ...notes],
  };
}

/**
 * The task as it stays when its completion is refused: its status before the call (pending for a
 * new one); back in progress only when its owner has no other task in progress by now.
 */
function keptOpen(task: Todo, was: Todo | undefined, todos: readonly Todo[]): Todo {
  const { owner: _dropped, ...rest } = task;
  if (was?.status !== "in_progress") return { ...rest, status: was?.status ?? "pending" };
  const busy = todos.some((t) => t.id !== task.id && t.status === "in_progress" && t.owner === was.owner);
  return busy
    ? { ...rest, status: "pending" }
    : { ...rest, status: "in_progress", ...(was.owner ? { owner: was.owner } : {}) };
}
