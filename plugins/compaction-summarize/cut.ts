/**
 * Where full compaction cuts the history. The cut lands before a model response, never before a
 * request: a request carries the tool results answering the calls of the response above it, so
 * cutting between them would leave results with no matching call — which most providers reject
 * outright. Cutting before an assistant message keeps every call and its results (all of them,
 * with parallel calls) on the same side.
 */
import type { ModelMessage } from "ai";

/** Tool-call ids of the assistant messages in `messages`. */
function callIds(messages: readonly ModelMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) {
    if (m.role !== "assistant" || typeof m.content === "string") continue;
    for (const part of m.content) if (part.type === "tool-call") ids.add(part.toolCallId);
  }
  return ids;
}

/** True when every tool result in `tail` answers a call made in `tail`. */
function selfContained(tail: readonly ModelMessage[]): boolean {
  const calls = callIds(tail);
  for (const m of tail) {
    if (m.role !== "tool") continue;
    for (const part of m.content) if (part.type === "tool-result" && !calls.has(part.toolCallId)) return false;
  }
  return true;
}

/**
 * The index where the kept tail starts, keeping at least the newest `keepRecent` messages: the
 * latest position before an assistant message (or the very end, before the response about to
 * be requested) whose tail is self-contained. Undefined when nothing older can be summarized —
 * also when the head would be the prompt alone: a summary of the task in place of the task's
 * own words frees nothing worth having and loses what the user wrote.
 */
export function findCut(history: readonly ModelMessage[], keepRecent: number): number | undefined {
  const firstResponse = history.findIndex((m) => m.role !== "user");
  if (firstResponse === -1) return undefined;
  for (let i = Math.min(history.length, history.length - keepRecent); i > firstResponse; i--) {
    const atBoundary = i === history.length || history[i]!.role === "assistant";
    if (atBoundary && selfContained(history.slice(i))) return i;
  }
  return undefined;
}
