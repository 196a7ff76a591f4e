/**
 * `ubiquity:todos`: todo lists that outlive the run (the TodoWrite tool is `ubiquity:tool-todo`).
 * A run's first prompt describes a stored list with unfinished work; a subagent's own list is
 * dropped when it reports. Options: `persistTodos`, `todoDir`, `todoScope`.
 */
import { definePlugin, describeError, type Kernel, type RunContext, type TurnPrompt } from "../../src/index";
import { bindToolContext, createTodosApi } from "./api";
import { todosOptions } from "./options";

export { getTodosApi, runOfToolContext } from "./api";
export type { TodosApi } from "./api";
export { applyTodoInput, checkInputKind, TodoInputError } from "./edit";
export type { TodoChange } from "./edit";
export { FileTodoStore, MemoryTodoStore } from "./store";
export type { TodoStore, TodoListRef } from "./store";
export { TodoWriteInput, TODO_STATUSES } from "./todo";
export type { Todo, TodoStatus } from "./todo";
export { formatResult, formatCarryOver, progress } from "./render";

/** The plugin's name. */
export const NAME = "ubiquity:todos";

/** The todos plugin. */
export const todosPlugin = definePlugin(function todos() {
  return {
    name: NAME,
    options: todosOptions,
    apply(kernel: Kernel) {
      const api = createTodosApi(kernel);
      const carried = new WeakSet<RunContext>();

      kernel.hooks.tool.beforeCall.tap(NAME, (state, call) => {
        bindToolContext(call.context, call.run);
        return state;
      });

      // A stored list the model is never told about is a list it duplicates.
      kernel.hooks.turn.prompt.tapPromise(NAME, async (prompt: TurnPrompt, run: RunContext) => {
        if (run.agent || prompt.source !== "user" || carried.has(run)) return prompt;
        carried.add(run);
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
  };
});

export default todosPlugin;

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
