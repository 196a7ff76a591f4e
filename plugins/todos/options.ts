/** The options the todos plugin reads. */
import { z } from "zod";
import { lazyOptions } from "../_kits/authoring/index";
import type { ResolvedOptions } from "../../src/index";

/** The todos plugin's slice of the config schema. */
export const todosOptions = lazyOptions(["persistTodos", "todoDir", "todoScope"], () => ({
  persistTodos: z.boolean().optional().describe("[true]"),
  todoDir: z.string().optional().describe("[~/.ubiquity/todos]"),
  todoScope: z.enum(["project", "session"]).optional(),
}));
export type TodosOptions = z.input<typeof todosOptions>;
export type TodosResolvedOptions = ResolvedOptions & Readonly<TodosOptions>;
