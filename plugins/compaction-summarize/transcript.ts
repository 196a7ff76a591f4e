/**
 * The part of the history being summarized, rendered as plain text for the summarizer. Text
 * rather than the messages themselves, so any `compactModel` can read it: some providers reject
 * tool calls in a request that defines no tools, and a small summarizer would choke on the full
 * tool output. Long tool results and inputs are shortened (their start and end are kept).
 */
import type { ModelMessage } from "ai";

/** Characters kept of one tool result. */
export const RESULT_CHARS = 2_000;
/** Characters kept of one tool call's input. */
export const INPUT_CHARS = 1_000;

/** `text` cut to `max` characters, keeping its start and end. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters omitted …]\n${text.slice(-half)}`;
}

const stringify = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

function outputText(output: { type: string; value?: unknown; reason?: string }): string {
  if (output.type === "execution-denied") return `(denied${output.reason ? `: ${output.reason}` : ""})`;
  if (output.type === "content" && Array.isArray(output.value)) {
    return output.value
      .map((p: { type: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : `[${p.type}]`))
      .join("\n");
  }
  return stringify(output.value);
}

function renderMessage(message: ModelMessage): string {
  switch (message.role) {
    case "system":
      return `System:\n${message.content}`;
    case "user": {
      const text =
        typeof message.content === "string"
          ? message.content
          : message.content.map((p) => (p.type === "text" ? p.text : `[${p.type}]`)).join("\n");
      return `User:\n${text}`;
    }
    case "assistant": {
      if (typeof message.content === "string") return `Assistant:\n${message.content}`;
      const lines: string[] = [];
      for (const part of message.content) {
        if (part.type === "text") lines.push(part.text);
        else if (part.type === "tool-call")
          lines.push(`[tool call ${part.toolName} ${shorten(stringify(part.input), INPUT_CHARS)}]`);
      }
      return `Assistant:\n${lines.join("\n")}`;
    }
    case "tool":
      return message.content
        .map((part) =>
          part.type === "tool-result"
            ? `Tool result (${part.toolName}${part.output.type.startsWith("error") ? ", error" : ""}):\n${shorten(outputText(part.output), RESULT_CHARS)}`
            : "",
        )
        .filter(Boolean)
        .join("\n\n");
  }
}

/** The messages as one plain-text transcript. */
export function renderTranscript(messages: readonly ModelMessage[]): string {
  return messages.map(renderMessage).filter(Boolean).join("\n\n");
}
