/**
 * The TodoWrite merge rules, as a pure function of the stored list and the input:
 * - `todos` replaces the list; `add` / `update` / `remove` edit it; both kinds at once is an
 *   error (a request that both replaces and patches has no single meaning);
 * - a task is named by id, else by exact content; a name that matches nothing is an error (a
 *   silent no-op would let the model believe it finished a task it never touched), and so is
 *   content shared by several tasks;
 * - `add` of content already on the list is a no-op;
 * - edits apply in the order add → update → remove, each against the list as it stands;
 * - at most one task is `in_progress` per owner (a run, or a subagent): runs sharing a list
 *   each have their own. Updates or a replacement leaving two of one owner's tasks in progress
 *   are an error; an `add` never is — the added task takes over and the owner's earlier one goes
 *   back to `pending`, which the change reports;
 * - only tasks that really changed are written.
 */
import { UbiquityError } from "../../src/index";
import { sortTodos, type Todo, type TodoWriteInput } from "./todo";

/** A TodoWrite input that cannot be applied; the message says what to send instead. */
export class TodoInputError extends UbiquityError {
  override name = "TodoInputError";
}

/** What applying an input gives: the new list and the writes it takes. */
export interface TodoChange {
  /** The resulting list, in order. */
  todos: Todo[];
  /** Tasks to write (new or changed). */
  upserts: Todo[];
  /** Ids of tasks to delete. */
  removals: string[];
  /** What the change did beyond the input, for the tool's answer (a task sent back to pending). */
  notes: string[];
}

/** True when two versions of a task are the same (nothing to write). */
export const sameTask = (a: Todo, b: Todo) =>
  a.content === b.content &&
  a.status === b.status &&
  a.activeForm === b.activeForm &&
  a.position === b.position &&
  a.owner === b.owner;

/** Refuse an input that mixes replace and edit, or says nothing. */
export function checkInputKind(input: TodoWriteInput): string | undefined {
  const edits = input.add !== undefined || input.update !== undefined || input.remove !== undefined;
  if (input.todos !== undefined && edits) {
    return "send either `todos` (the whole list, replacing it) or `add` / `update` / `remove` (edits to single tasks), not both in one call";
  }
  if (input.todos === undefined && !edits)
    return "nothing to do: send `todos` (the whole list) or any of `add`, `update`, `remove`";
  return undefined;
}

function describe(todo: Todo): string {
  return `"${todo.content}" (id ${todo.id})`;
}

/** Find the task `ref` names: by id, else by exact content. */
function resolve(list: readonly Todo[], ref: string): Todo {
  const byId = list.find((t) => t.id === ref);
  if (byId) return byId;
  const byContent = list.filter((t) => t.content === ref);
  if (byContent.length === 1) return byContent[0]!;
  if (byContent.length > 1) {
    throw new TodoInputError(
      `"${ref}" matches ${byContent.length} tasks (${byContent.map((t) => t.id).join(", ")}): name the task by its id`,
    );
  }
  const known = list.length ? list.map(describe).join(", ") : "the list is empty";
  throw new TodoInputError(`no task matches "${ref}": name a task by its id or its exact content (${known})`);
}

/**
 * Apply a TodoWrite input to the stored list on behalf of `owner` (the run or subagent making the
 * call; undefined counts every unowned task as its own). Throws `TodoInputError` when it cannot.
 */
export function applyTodoInput(
  stored: readonly Todo[],
  input: TodoWriteInput,
  newId: () => string,
  owner?: string,
): TodoChange {
  const problem = checkInputKind(input);
  if (problem) throw new TodoInputError(problem);
  const before = new Map(stored.map((t) => [t.id, t] as const));
  let next: Todo[];

  if (input.todos !== undefined) {
    const unmatched = [...stored];
    next = input.todos.map((item, position) => {
      let match: Todo | undefined;
      if (item.id !== undefined) {
        match = unmatched.find((t) => t.id === item.id);
        if (!match)
          throw new TodoInputError(
            `no task has id "${item.id}": leave id out for a new task, or use one of ${stored.map((t) => t.id).join(", ") || "(none yet)"}`,
          );
      } else {
        // Restating a task keeps its id (and its file untouched when nothing else changed).
        match = unmatched.find((t) => t.content === item.content);
      }
      if (match) unmatched.splice(unmatched.indexOf(match), 1);
      return {
        id: match?.id ?? newId(),
        content: item.content,
        status: item.status,
        ...(item.activeForm !== undefined ? { activeForm: item.activeForm } : {}),
        position,
        ...(match?.owner !== undefined ? { owner: match.owner } : {}),
      };
    });
  } else {
    next = stored.map((t) => ({ ...t }));
    let end = Math.max(-1, ...stored.map((t) => t.position));
    for (const item of input.add ?? []) {
      // Adding what is already on the list is a no-op (as in the original): a retried or
      // repeated add must not duplicate the task.
      if (next.some((t) => t.content === item.content)) continue;
      next.push({
        id: newId(),
        content: item.content,
        status: item.status ?? "pending",
        ...(item.activeForm !== undefined ? { activeForm: item.activeForm } : {}),
        position: Math.floor(end) + 1,
      });
      end = Math.floor(end) + 1;
    }
    for (const change of input.update ?? []) {
      if (change.status === undefined && change.content === undefined && change.activeForm === undefined) {
        throw new TodoInputError(`update of "${change.task}" changes nothing: give status, content or activeForm`);
      }
      const task = resolve(next, change.task);
      if (change.status !== undefined) task.status = change.status;
      if (change.content !== undefined) task.content = change.content;
      if (change.activeForm !== undefined) task.activeForm = change.activeForm;
    }
    for (const ref of input.remove ?? []) {
      const task = resolve(next, ref);
      next.splice(next.indexOf(task), 1);
    }
  }

  // Ownership follows the status: set when a task enters in_progress, dropped when it leaves.
  const added = new Set<string>();
  for (const t of next) {
    const was = before.get(t.id);
    if (!was) added.add(t.id);
    if (t.status !== "in_progress") delete t.owner;
    else if (was?.status !== "in_progress") {
      if (owner === undefined) delete t.owner;
      else t.owner = owner;
    }
  }
  const notes: string[] = [];
  const mine = next.filter((t) => t.status === "in_progress" && t.owner === owner);
  if (mine.length > 1) {
    const addedMine = mine.filter((t) => added.has(t.id) && input.todos === undefined);
    if (addedMine.length === 0) {
      throw new TodoInputError(
        `at most one task can be in_progress${owner !== undefined ? " per run" : ""}, and this change leaves ${mine.length}: ${mine.map(describe).join(", ")}. ` +
          "Mark the others pending or completed in the same call.",
      );
    }
    // An add is never refused: the newest added task is the one in progress now.
    const keep = addedMine.at(-1)!;
    for (const t of mine) {
      if (t === keep) continue;
      t.status = "pending";
      delete t.owner;
      notes.push(
        `${describe(t)} went back to pending: ${describe(keep)} is now this run's task in progress (one at a time)`,
      );
    }
  }
  const kept = new Set(next.map((t) => t.id));
  return {
    todos: sortTodos(next),
    upserts: next.filter((t) => !before.has(t.id) || !sameTask(before.get(t.id)!, t)),
    removals: stored.filter((t) => !kept.has(t.id)).map((t) => t.id),
    notes,
  };
}
