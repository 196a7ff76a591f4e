/**
 * `getTodosApi(kernel)`: what other plugins use of the todo lists — the TodoWrite tool, the
 * agents feature (a list per subagent, dropped when it reports) and compaction (re-stating
 * unfinished work after a summary).
 */
import { randomBytes } from "node:crypto";
import type { Kernel, RunContext } from "../../src/index";
import { projectSlug, storageRoot } from "../_kits/storage/index";
import { applyTodoInput, type TodoChange } from "./edit";
import { formatCarryOver } from "./render";
import { withTaskHooks } from "./task-hooks";
import { FileTodoStore, MemoryTodoStore, type TodoListRef, type TodoStore } from "./store";
import type { Todo, TodoWriteInput } from "./todo";
import type { TodosResolvedOptions } from "./options";

/** The todo lists of one kernel. */
export interface TodosApi {
  /** The list a run edits: its agent's own list inside a subagent, else by `todoScope`. */
  listFor(run: RunContext): TodoListRef;
  /** The store a run's options point at (`todoDir`, or memory with `persistTodos: false`). */
  storeFor(run: RunContext): TodoStore;
  /** The run's list, freshly read. */
  read(run: RunContext): Promise<Todo[]>;
  /**
   * Apply a TodoWrite input to the run's list (re-read first; writes only changed tasks), less what
   * TaskCreated and TaskCompleted hooks refused (said in the change's notes).
   */
  write(run: RunContext, input: TodoWriteInput): Promise<TodoChange>;
  /** The unfinished work of the run's list, described for a prompt; undefined when none. */
  describeUnfinished(run: RunContext): Promise<string | undefined>;
  /** Delete the run's list (a subagent's, when it reports). */
  discard(run: RunContext): Promise<void>;
  /**
   * Keep persisted lists somewhere else (a database): the latest registered factory that answers
   * for a run wins; none answering leaves the task files under `todoDir`. `persistTodos: false` stays in memory.
   */
  useStore(name: string, factory: (run: RunContext) => TodoStore | undefined): void;
}

const apis = new WeakMap<Kernel, TodosApi>();

/** The todos API of a kernel, or undefined when the `ubiquity:todos` plugin is not in it. */
export function getTodosApi(kernel: Kernel): TodosApi | undefined {
  return apis.get(kernel);
}

/** A key safe as a folder name. */
function safeKey(prefix: string, id: string): string {
  return `${prefix}-${id.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

/** Create and register the API of a kernel (the todos plugin does this in `apply`). */
export function createTodosApi(kernel: Kernel, optionsOf: (run: RunContext) => TodosResolvedOptions): TodosApi {
  const memory = new MemoryTodoStore();
  const newId = () => randomBytes(4).toString("hex");
  const factories: { name: string; factory: (run: RunContext) => TodoStore | undefined }[] = [];
  const api: TodosApi = {
    listFor(run) {
      const project = projectSlug(run.cwd);
      if (run.agent) return { project, key: safeKey("agent", run.agent.agentId) };
      if (optionsOf(run).todoScope === "session") return { project, key: safeKey("session", run.sessionId) };
      return { project, key: "project" };
    },
    storeFor(run) {
      if (optionsOf(run).persistTodos === false) return memory;
      for (let i = factories.length - 1; i >= 0; i--) {
        const store = factories[i]!.factory(run);
        if (store) return store;
      }
      return new FileTodoStore(storageRoot(optionsOf(run).todoDir, run.cwd, "todos"), (file, why) =>
        run.logger.warn(`[ubiquity:todos] skipped unreadable task file ${file}: ${why}`),
      );
    },
    read(run) {
      return api.storeFor(run).read(api.listFor(run));
    },
    async write(run, input) {
      const store = api.storeFor(run);
      const list = api.listFor(run);
      // The one-in-progress rule holds per run (a subagent has its own list anyway).
      const stored = await store.read(list);
      const applied = applyTodoInput(stored, input, newId, run.agent?.agentId ?? run.sessionId);
      // TaskCreated and TaskCompleted hooks may refuse a new task or a completion (task-hooks.ts).
      const change = await withTaskHooks(run, stored, applied);
      await store.write(list, change.upserts, change.removals);
      return change;
    },
    async describeUnfinished(run) {
      return formatCarryOver(await api.read(run));
    },
    discard(run) {
      return api.storeFor(run).drop(api.listFor(run));
    },
    useStore(name, factory) {
      factories.push({ name, factory });
    },
  };
  apis.set(kernel, api);
  return api;
}

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
