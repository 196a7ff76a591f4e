/** Anthropic Messages (`/messages`): typed SSE events, usage with cache reads and writes. */
import { json, sse, type Encoded } from "./encoded";
import { split } from "./openai";
import type { Answer } from "./script";

// Anthropic's input_tokens excludes cached tokens; the script's count includes them.
function usage(a: Answer) {
  return {
    input_tokens: Math.max(0, a.usage.inputTokens - a.usage.cacheReadTokens - a.usage.cacheWriteTokens),
    cache_read_input_tokens: a.usage.cacheReadTokens,
    cache_creation_input_tokens: a.usage.cacheWriteTokens,
    output_tokens: a.usage.outputTokens,
  };
}

/** An answer in the Messages format. */
export function encodeAnthropic(a: Answer, id: string): Encoded {
  const stopReason = a.truncated ? "max_tokens" : a.toolCalls.length ? "tool_use" : "end_turn";
  const content = [
    ...(a.text ? [{ type: "text", text: a.text }] : []),
    ...a.toolCalls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.input })),
  ];
  const message = { id, type: "message", role: "assistant", model: a.model, stop_sequence: null };
  if (!a.stream) return json({ ...message, content, stop_reason: stopReason, usage: usage(a) });
  const events: { event: string; data: Record<string, unknown> }[] = [];
  const add = (type: string, data: Record<string, unknown> = {}) =>
    events.push({ event: type, data: { type, ...data } });
  add("message_start", {
    message: { ...message, content: [], stop_reason: null, usage: { ...usage(a), output_tokens: 1 } },
  });
  let index = 0;
  if (a.text) {
    add("content_block_start", { index, content_block: { type: "text", text: "" } });
    for (const text of split(a.text)) add("content_block_delta", { index, delta: { type: "text_delta", text } });
    add("content_block_stop", { index });
    index++;
  }
  for (const c of a.toolCalls) {
    add("content_block_start", { index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } });
    add("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(c.input) } });
    add("content_block_stop", { index });
    index++;
  }
  add("message_delta", {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: a.usage.outputTokens },
  });
  add("message_stop");
  return sse(events);
}
