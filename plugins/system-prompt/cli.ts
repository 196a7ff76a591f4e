/**
 * What the system-prompt plugin adds to the `ubiquity` runner: `run --system-prompt`,
 * `--append-system-prompt`, and their `-file` forms (Claude Code's), which read the text from a file.
 */
import { readFileSync } from "node:fs";
import { describeError } from "../../src/index";
import { UsageError, type FlagValue, type RunFlag } from "../../loader/index";

/** The text of a `--system-prompt-file` / `--append-system-prompt-file`; an unreadable file is a usage error naming it. */
function fileText(flag: string, value: FlagValue): string {
  try {
    return readFileSync(String(value), "utf8");
  } catch (error) {
    throw new UsageError(`--${flag} ${String(value)}: cannot read the file (${describeError(error)})`);
  }
}

/** One of a text flag and its file form may be given, as in Claude Code. */
function onlyOne(flag: string, values: Record<string, FlagValue | undefined> | undefined): void {
  if (values?.[flag] !== undefined && values[`${flag}-file`] !== undefined)
    throw new UsageError(`--${flag} and --${flag}-file both give the text; pass one of them`);
}

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
  "system-prompt-file": {
    type: "string",
    value: "<file>",
    group: "Model",
    claude: "--system-prompt-file",
    description: "Replace the system prompt with the text of a file",
    apply: (o, v, values) => {
      onlyOne("system-prompt", values);
      o.systemPrompt = fileText("system-prompt-file", v);
    },
  },
  "append-system-prompt-file": {
    type: "string",
    value: "<file>",
    group: "Model",
    claude: "--append-system-prompt-file",
    description: "Add the text of a file at the end of the system prompt",
    apply: (o, v, values) => {
      onlyOne("append-system-prompt", values);
      o.appendSystemPrompt = fileText("append-system-prompt-file", v);
    },
  },
};
