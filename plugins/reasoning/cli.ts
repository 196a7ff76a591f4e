/** What the reasoning plugin adds to the `ubiquity` runner: `run --effort` (claude's flag; codex's `-c model_reasoning_effort`). */
import { UsageError, type RunFlag } from "../../loader/index";
import { REASONING_LEVELS, type ReasoningLevel } from "./options";

/** `run --effort <level>`. */
export const reasoningFlags: Record<string, RunFlag> = {
  effort: {
    type: "string",
    value: "<level>",
    group: "Model",
    claude: "--effort",
    description: `How much the model reasons (the reasoning option): ${REASONING_LEVELS.join(", ")}`,
    apply: (o, v) => {
      const level = String(v);
      if (!(REASONING_LEVELS as readonly string[]).includes(level))
        throw new UsageError(`--effort must be one of ${REASONING_LEVELS.join(", ")}, not ${JSON.stringify(level)}`);
      o.reasoning = level as ReasoningLevel;
    },
  },
};
