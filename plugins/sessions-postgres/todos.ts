/** Todo lists in the session store's database (`ubiquity_todos`, one row per task), when the Postgres store is configured. */
import { isTodo, sortTodos, type Todo, type TodoListRef, type TodoStore } from "../todos/index";
import type { PostgresSessionStore } from "./store";

/** A `TodoStore` on the Postgres store's pool. */
export class PostgresTodoStore implements TodoStore {
  constructor(private readonly store: PostgresSessionStore) {}

  async read(list: TodoListRef): Promise<Todo[]> {
    const { rows } = await this.store.query<{ id: string; body: unknown }>(
      "select id, body from ubiquity_todos where project = $1 and list_key = $2",
      [list.project, list.key],
    );
    const todos: Todo[] = [];
    for (const { id, body } of rows) {
      if (!isTodo(body)) continue;
      todos.push({
        id,
        content: body.content,
        status: body.status,
        ...(body.activeForm !== undefined ? { activeForm: body.activeForm } : {}),
        position: body.position,
        ...(body.owner !== undefined ? { owner: body.owner } : {}),
      });
    }
    return sortTodos(todos);
  }

  async write(list: TodoListRef, upserts: readonly Todo[], removals: readonly string[]): Promise<void> {
    // One statement: the upserts and the removals land together.
    await this.store.query(
      `with gone as (delete from ubiquity_todos where project = $1 and list_key = $2 and id = any($4::text[]))
       insert into ubiquity_todos (project, list_key, id, body)
       select $1, $2, e.value->>'id', e.value from json_array_elements($3::json) as e(value)
       on conflict (project, list_key, id) do update set body = excluded.body, updated_at = now()`,
      [
        list.project,
        list.key,
        JSON.stringify(upserts.map((t) => ({ ...t, updatedAt: new Date().toISOString() }))),
        [...removals],
      ],
    );
  }

  async drop(list: TodoListRef): Promise<void> {
    await this.store.query("delete from ubiquity_todos where project = $1 and list_key = $2", [list.project, list.key]);
  }
}
