/** The TodoWrite tool: edits the run's todo list through the todos plugin's API. */
import { Tool, describeError, type ToolContext, type ToolOutput, type ToolPermission } from "../../src/index";
import { checkInputKind, getTodosApi, TodoInputError, TodoWriteInput, formatResult } from "../todos/index";

// Over 1 KB with its parameters (1.3 KB; `npm run bench request-bytes`): four input shapes (the
// whole list, or add / update / remove of single tasks, as the seed specifies) each need their
// item schema, and the statuses are an enum in each. The description says when to use the tool,
// how a task is named (update's task and remove's items, said once here) and the rules a list
// follows across runs, which no parameter can say. That a name matching nothing is an error is
// left to the error, which says so when it happens.
const DESCRIPTION = `A todo list for work of three or more steps or several tasks; it outlives the run (a later run in this project sees it).
todos replaces the whole list (a new plan); add, update and remove edit single tasks; never both in one call.
Name a task by its id (shown in each result) or exact content.
Keep exactly one task in_progress while you work (other runs sharing the list have their own); mark each completed once done.`;

/** The TodoWrite tool. Needs the `ubiquity:todos` plugin in the run (the default preset has it). */
export class TodoWriteTool extends Tool<typeof TodoWriteInput> {
  readonly name = "TodoWrite";
  readonly description = DESCRIPTION;
  readonly inputSchema = TodoWriteInput;

  // It edits the plan, never the workspace: nothing to ask the user about.
  override checkPermissions(): ToolPermission {
    return { behavior: "allow" };
  }

  // Read-only as far as the workspace goes, so plan mode lets the agent write down its plan
  // (as Claude Code does); the list is the agent's own state.
  override isReadOnly(): boolean {
    return true;
  }

  override validateInput(input: TodoWriteInput): string | undefined {
    return checkInputKind(input);
  }

  async call(input: TodoWriteInput, ctx: ToolContext): Promise<ToolOutput> {
    const run = ctx.run;
    const api = run && getTodosApi(run.kernel);
    if (!run || !api) {
      return {
        content:
          "TodoWrite needs the ubiquity:todos plugin, which is not in this run's plugin list (the default preset has it).",
        isError: true,
      };
    }
    try {
      const change = await api.write(run, input);
      const done = change.todos.filter((t) => t.status === "completed").length;
      return {
        content: [formatResult(change.todos), ...change.notes.map((n) => `Note: ${n}.`)].join("\n"),
        metadata: {
          todos: change.todos,
          completed: done,
          total: change.todos.length,
          written: change.upserts.length,
          removed: change.removals.length,
        },
      };
    } catch (error) {
      if (error instanceof TodoInputError) return { content: `TodoWrite: ${error.message}`, isError: true };
      return { content: `TodoWrite could not save the list: ${describeError(error)}`, isError: true };
    }
  }
}
