/** What the system-prompt plugin adds to the `ubiquity` runner: `run --system-prompt`, `--append-system-prompt`. */
import type { RunFlag } from "../../loader/index";

/** The `run` flags of the system prompt's options. */
export const systemPromptFlags: Record<string, RunFlag> = {
  "system-prompt": {
    type: "string",
    value: "<text>",
    group: "Model",
    claude: "--system-prompt",
    description: "Replace the system prompt",
    apply: (o, v) => void (o.systemPrompt = String(v)),
  },
  "append-system-prompt": {
    type: "string",
    value: "<text>",
    group: "Model",
    claude: "--append-system-prompt",
    description: "Add text at the end of the system prompt",
    apply: (o, v) => void (o.appendSystemPrompt = String(v)),
  },
};
