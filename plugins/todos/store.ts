/**
 * Where todo lists live. On disk, one file per task (`<root>/<project-slug>/<key>/<taskId>.json`):
 * a list stored as one document must be rewritten whole on every change, so two runs editing
 * different tasks from stale copies would overwrite each other; separate task files never
 * contend. Each file is written through a temp file and an atomic rename; the store is re-read
 * on every call; an unreadable task file is skipped; temp files left by a crash are removed.
 */
import { readdir, rm, unlink } from "node:fs/promises";
import { join } from "node:path";
import { readRegularFileSync } from "../../loader/index";
import { privateFolder, writeFileAtomic, removeStaleTemps } from "../_kits/storage/index";
import { isTodo, sortTodos, type Todo } from "./todo";

/** Names one list: the project folder and the key within it. */
export interface TodoListRef {
  /** `projectSlug(cwd)`. */
  project: string;
  /** `project`, `session-<id>` or `agent-<id>`. */
  key: string;
}

/** A place todo lists are kept. */
export interface TodoStore {
  /** The list, ordered by position then id. */
  read(list: TodoListRef): Promise<Todo[]>;
  /** Write the given tasks and delete the given ids; nothing else is touched. */
  write(list: TodoListRef, upserts: readonly Todo[], removals: readonly string[]): Promise<void>;
  /** Delete the whole list. */
  drop(list: TodoListRef): Promise<void>;
}

const TASK_FILE = /^([A-Za-z0-9_-]+)\.json$/;
/** A task file is a few hundred bytes; anything past this is not one (and is not read). */
const MAX_TASK_BYTES = 1024 * 1024;

/** Task files under a root folder. */
export class FileTodoStore implements TodoStore {
  constructor(
    readonly root: string,
    private readonly onSkip: (file: string, why: string) => void = () => {},
  ) {}

  /** The folder of one list. */
  dir(list: TodoListRef): string {
    return join(this.root, list.project, list.key);
  }

  async read(list: TodoListRef): Promise<Todo[]> {
    const dir = this.dir(list);
    await removeStaleTemps(dir);
    const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [] as string[];
      throw error;
    });
    const todos: Todo[] = [];
    for (const name of names) {
      const id = TASK_FILE.exec(name)?.[1];
      if (!id) continue;
      let value: unknown;
      // Only a regular file of at most 1 MiB (a task is a few hundred bytes): a FIFO must not hang the list.
      // Read synchronously: a task file is a few hundred bytes, and the promise API's five thread-pool
      // round trips per file (open, stat, stat, read, close) cost more than the model turn once a
      // shared list holds a few dozen tasks (8 runs on one list: 2.4 CPU-s a run against 1.1).
      const read = readRegularFileSync(join(dir, name), MAX_TASK_BYTES);
      if (!read.ok) {
        // Deleted between readdir and read (another run removed it): skip quietly.
        if (!read.missing) this.onSkip(join(dir, name), read.problem);
        continue;
      }
      try {
        value = JSON.parse(read.text);
      } catch (error) {
        this.onSkip(join(dir, name), String(error));
        continue;
      }
      if (!isTodo(value)) {
        this.onSkip(join(dir, name), "not a task");
        continue;
      }
      todos.push({
        id,
        content: value.content,
        status: value.status,
        ...(value.activeForm !== undefined ? { activeForm: value.activeForm } : {}),
        position: value.position,
        ...(value.owner !== undefined ? { owner: value.owner } : {}),
      });
    }
    return sortTodos(todos);
  }

  async write(list: TodoListRef, upserts: readonly Todo[], removals: readonly string[]): Promise<void> {
    const dir = this.dir(list);
    // A project's plans, for its owner alone (red team zc, ZC4).
    if (upserts.length) privateFolder(dir);
    for (const todo of upserts) {
      if (!TASK_FILE.test(`${todo.id}.json`)) throw new TypeError(`invalid task id ${JSON.stringify(todo.id)}`);
      await writeFileAtomic(
        join(dir, `${todo.id}.json`),
        `${JSON.stringify({ ...todo, updatedAt: new Date().toISOString() }, null, 2)}\n`,
        { private: true },
      );
    }
    for (const id of removals) {
      await unlink(join(dir, `${id}.json`)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
    }
  }

  async drop(list: TodoListRef): Promise<void> {
    await rm(this.dir(list), { recursive: true, force: true });
  }
}

/** Lists kept in memory (`persistTodos: false`): same behaviour, nothing on disk. */
export class MemoryTodoStore implements TodoStore {
  #lists = new Map<string, Map<string, Todo>>();

  #list(list: TodoListRef): Map<string, Todo> {
    const key = `${list.project}/${list.key}`;
    let tasks = this.#lists.get(key);
    if (!tasks) this.#lists.set(key, (tasks = new Map()));
    return tasks;
  }

  async read(list: TodoListRef): Promise<Todo[]> {
    return sortTodos([...this.#list(list).values()].map((t) => ({ ...t })));
  }

  async write(list: TodoListRef, upserts: readonly Todo[], removals: readonly string[]): Promise<void> {
    const tasks = this.#list(list);
    for (const todo of upserts) tasks.set(todo.id, { ...todo });
    for (const id of removals) tasks.delete(id);
  }

  async drop(list: TodoListRef): Promise<void> {
    this.#lists.delete(`${list.project}/${list.key}`);
  }
}
