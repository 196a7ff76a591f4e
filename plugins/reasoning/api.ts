/** The reasoning plugin's extension point: a live session's own level (`setReasoning()`). */
import type { Kernel, RunContext } from "../../src/index";
import { ReasoningLevel, type ReasoningSchedule } from "./options";

/** What other code may ask of the reasoning plugin. */
export interface ReasoningApi {
  /** From the next request on, `run` reasons at `level` (over its `reasoning` option); undefined goes back to the option. */
  set(run: RunContext, level: ReasoningLevel | ReasoningSchedule | undefined): void;
  /** The level set on `run` with `set`, if any. */
  get(run: RunContext): ReasoningLevel | ReasoningSchedule | undefined;
}

export { ReasoningLevel, REASONING_LEVELS, type ReasoningSchedule } from "./options";

const apis = new WeakMap<Kernel, ReasoningApi>();

/** The reasoning API of `kernel` (created on first use). */
export function getReasoningApi(kernel: Kernel): ReasoningApi {
  let api = apis.get(kernel);
  if (!api) {
    const levels = new WeakMap<RunContext, ReasoningLevel | ReasoningSchedule>();
    api = {
      set(run, level) {
        if (level === undefined) levels.delete(run);
        else levels.set(run, typeof level === "string" ? ReasoningLevel.parse(level) : level);
      },
      get: (run) => levels.get(run),
    };
    apis.set(kernel, api);
  }
  return api;
}
