/**
 * What a resumed session's model is told about the background tasks of its earlier runs. Its
 * history says "Started agent-1 … You will be told when it finishes, with its reply … do not redo
 * its work": after a crash (SIGKILL, a laptop that never woke the process) that reply never comes,
 * and a model waiting for it, told not to redo the work, waited on nothing. Tasks end with the
 * process that ran them, so every task an earlier run started and the history never saw end is
 * named as gone, with what to do.
 */
import type { ModelMessage } from "ai";
import type { TaskRegistry } from "../_kits/tasks/index";

// The first line of the answer to a background Bash or Agent call (tool-bash, agents): its task id.
const STARTED = /^Started (?:in the background as )?((?:shell|agent)-\d+)\b/;

function texts(message: ModelMessage): string[] {
  if (typeof message.content === "string") return [message.content];
  const out: string[] = [];
  for (const part of message.content) {
    if (part.type === "text") out.push(part.text);
    else if (part.type === "tool-result" && part.output.type === "text") out.push(part.output.value);
  }
  return out;
}

/** The note for a resumed run's first prompt, or undefined when no earlier task was left unreported. */
export function earlierTasksNote(history: readonly ModelMessage[], tasks: TaskRegistry): string | undefined {
  const started: string[] = [];
  const all: string[] = [];
  for (const message of history)
    for (const text of texts(message)) {
      all.push(text);
      const id = STARTED.exec(text)?.[1];
      if (id && !tasks.get(id) && !started.includes(id)) started.push(id);
    }
  // One whose end the model heard (a tool result's note, the prompt after a run's agents ended) is not news.
  const unreported = started.filter((id) => !all.some((text) => text.includes(`- ${id} (`)));
  if (unreported.length === 0) return undefined;
  // Listed as the ended-task notes are ("- id (…"), so the next resume finds them told.
  const lines = unreported.map(
    (id) =>
      `- ${id} (started by an earlier run of this session) ended with that run: its process is gone, and its output${id.startsWith("agent-") ? " and its reply (none will come)" : ""} with it`,
  );
  return `[Background tasks ended before you were told:\n${lines.join("\n")}\nStart again what is still needed (the ids are used afresh).]`;
}
