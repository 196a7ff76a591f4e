/** Todo lists as the model reads them: in TodoWrite's result and in the carried-over prompt. */
import type { Todo } from "./todo";

const MARK: Record<Todo["status"], string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };

/** `2/5 completed, 1 in progress`. */
export function progress(todos: readonly Todo[]): string {
  const done = todos.filter((t) => t.status === "completed").length;
  const active = todos.filter((t) => t.status === "in_progress").length;
  return `${done}/${todos.length} completed${active ? `, ${active} in progress` : ""}`;
}

/** One line per task, with its mark and id (the model names tasks by id or exact content). */
export function formatTodos(todos: readonly Todo[]): string {
  if (todos.length === 0) return "(no tasks)";
  return todos
    .map(
      (t, i) =>
        `${i + 1}. ${MARK[t.status]} ${t.content}  (id ${t.id})${t.status === "in_progress" && t.activeForm ? ` — ${t.activeForm}` : ""}`,
    )
    .join("\n");
}

/** TodoWrite's result: the list after the change, with its progress. */
export function formatResult(todos: readonly Todo[]): string {
  return `Todo list (${progress(todos)}):\n${formatTodos(todos)}`;
}

/** The carry-over note for a run's first prompt; undefined when nothing is left to do. */
export function formatCarryOver(todos: readonly Todo[]): string | undefined {
  if (!todos.some((t) => t.status !== "completed")) return undefined;
  return (
    `A todo list from earlier work has unfinished tasks (${progress(todos)}):\n${formatTodos(todos)}\n` +
    "Continue it if it still fits the request, and keep it current with TodoWrite (remove tasks that no longer apply)."
  );
}
