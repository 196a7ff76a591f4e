/** A task of a todo list, and the TodoWrite input that edits a list. */
import { z } from "zod";

/** Where a task stands. */
export const TODO_STATUSES = ["pending", "in_progress", "completed"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

/** One task, as stored (one file per task) and as TodoWrite reports it. */
export interface Todo {
  /** Short, unique within its list; also the task file's name. */
  id: string;
  content: string;
  status: TodoStatus;
  /** The present-continuous form shown while the task runs ("Running the tests"). */
  activeForm?: string;
  /** Orders the list; ties (two runs appending at once) break on `id`. */
  position: number;
  /**
   * Who set the task `in_progress` (a run's session id, or a subagent's id): the one-in-progress
   * rule holds per owner, so runs sharing a list never lock each other out. Unset otherwise.
   */
  owner?: string;
}

const Status = z.enum(TODO_STATUSES);
const Content = z.string().trim().min(1, "a task needs content");

/**
 * The TodoWrite input: `todos` replaces the list; `add` / `update` / `remove` edit single tasks.
 * What each key does is said once, in the tool's description; the schema only types them.
 */
export const TodoWriteInput = z.strictObject({
  todos: z
    .array(
      z.strictObject({
        content: Content,
        status: Status,
        activeForm: z.string().optional(),
        id: z.string().optional().describe("keep an existing task's id"),
      }),
    )
    .optional(),
  add: z
    .array(
      z.strictObject({
        content: Content,
        status: Status.optional().describe("[pending]"),
        activeForm: z.string().optional(),
      }),
    )
    .optional(),
  update: z
    .array(
      z.strictObject({
        task: z.string().min(1),
        status: Status.optional(),
        content: Content.optional(),
        activeForm: z.string().optional(),
      }),
    )
    .optional(),
  remove: z.array(z.string().min(1)).optional(),
});
export type TodoWriteInput = z.output<typeof TodoWriteInput>;

/** Sort tasks by position, ties by id (so every reader sees one stable order). */
export function sortTodos(todos: Todo[]): Todo[] {
  return todos.sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** True when a parsed task file has the task shape. */
export function isTodo(value: unknown): value is Omit<Todo, "id"> {
  const t = value as Partial<Todo> | null;
  return (
    typeof t === "object" &&
    t !== null &&
    typeof t.content === "string" &&
    (TODO_STATUSES as readonly string[]).includes(t.status as string) &&
    typeof t.position === "number" &&
    Number.isFinite(t.position) &&
    (t.activeForm === undefined || typeof t.activeForm === "string") &&
    (t.owner === undefined || typeof t.owner === "string")
  );
}
