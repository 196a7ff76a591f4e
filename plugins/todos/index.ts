/**
 * `ubiquity:todos`: todo lists that outlive the run (the TodoWrite tool is `ubiquity:tool-todo`).
 * A run's first prompt describes a stored list with unfinished work; a subagent's own list is
 * dropped when it reports. Options: `persistTodos`, `todoDir`, `todoScope`.
 */
import { describeError, type Kernel, type PluginContext, type RunContext, type TurnPrompt } from "../../src/index";
import { definePlugin } from "../_kits/authoring/index";
import { createTodosApi } from "./api";
import { todosOptions } from "./options";

export { getTodosApi } from "./api";
export type { TodosApi } from "./api";
export { applyTodoInput, checkInputKind, TodoInputError } from "./edit";
export type { TodoChange } from "./edit";
export { FileTodoStore, MemoryTodoStore } from "./store";
export type { TodoStore, TodoListRef } from "./store";
export { TodoWriteInput, TODO_STATUSES, isTodo, sortTodos } from "./todo";
export type { Todo, TodoStatus } from "./todo";
export { formatResult, formatCarryOver, progress } from "./render";

/** The plugin's name. */
export const NAME = "ubiquity:todos";

/** The todos plugin. */
export const todosPlugin = definePlugin({
  name: NAME,
  options: todosOptions,
  // Per run: whether its stored list was already described to the model.
  runState: () => ({ carried: false }),
  apply(kernel: Kernel, context: PluginContext<undefined, { carried: boolean }>) {
    const api = createTodosApi(kernel, (run) => context.optionsOf(run));

    // A stored list the model is never told about is a list it duplicates.
    kernel.hooks.turn.prompt.tapPromise(NAME, async (prompt: TurnPrompt, run: RunContext) => {
      const state = context.run(run);
      if (run.agent || prompt.source !== "user" || state.carried) return prompt;
      state.carried = true;
      let note: string | undefined;
      try {
        note = await api.describeUnfinished(run);
      } catch (error) {
        run.logger.warn(`[${NAME}] could not read the stored todo list: ${describeError(error)}`);
      }
      return note ? { ...prompt, context: [...prompt.context, note] } : prompt;
    });

    // An agent id names one delegated task and never recurs: its list would only pile up.
    kernel.hooks.session.end.tapPromise(NAME, async (run) => {
      if (run.agent) await api.discard(run);
    });
  },
});

export default todosPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
