/** What the summarizer is told, and how its summary re-enters the conversation. */
import type { UserModelMessage } from "ai";

/** The summarizer's instructions (`compactInstructions` is appended to them). */
export const SUMMARIZER_INSTRUCTIONS = `You summarize the earlier part of a coding agent's conversation. The agent will continue the work with only your summary and the most recent messages, so the summary must carry everything it still needs.

Write these sections:
1. Requests and intent: every request the user made, in detail; quote exact wording where it matters.
2. Key technical context: concepts, decisions, constraints and conventions established so far.
3. Files and code: each file read, created or changed, with why it matters and the important details (paths, functions, signatures, snippets the agent will need).
4. Errors and fixes: what went wrong and how it was resolved, including any user feedback.
5. Progress: what is done and what remains, including pending tasks.
6. Current work: what was being done right before this summary, and the next step if one was already decided.

Be specific: paths, names, numbers, commands. Do not invent anything. Reply with the summary only.`;

/** The instructions with the user's `compactInstructions` appended. */
export function summarizerInstructions(extra: string | undefined): string {
  const trimmed = extra?.trim();
  return trimmed ? `${SUMMARIZER_INSTRUCTIONS}\n\nAdditional instructions:\n${trimmed}` : SUMMARIZER_INSTRUCTIONS;
}

/** The request sent to the summarizer. */
export function summaryRequest(transcript: string): UserModelMessage {
  return {
    role: "user",
    content: `<conversation>\n${transcript}\n</conversation>\n\nSummarize the conversation above as instructed.`,
  };
}

/** The user message that replaces the summarized history (with unfinished todos re-stated). */
export function summaryMessage(summary: string, todos: string | undefined): UserModelMessage {
  const text =
    "This session continues an earlier conversation that outgrew the context window. Its older messages were replaced by this summary:\n\n" +
    `<summary>\n${summary.trim()}\n</summary>\n\nContinue the work from where it stopped; do not ask the user to repeat anything.`;
  if (!todos) return { role: "user", content: text };
  return {
    role: "user",
    content: [
      { type: "text", text },
      { type: "text", text: todos },
    ],
  };
}
