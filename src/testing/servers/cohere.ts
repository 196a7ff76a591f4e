/** Cohere v2 chat (`/v2/chat`): typed SSE events; Cohere reports no cached tokens. */
import { json, sse, type Encoded } from "./encoded";
import { split } from "./openai";
import type { Answer } from "./script";

function usage(a: Answer) {
  const tokens = { input_tokens: a.usage.inputTokens, output_tokens: a.usage.outputTokens };
  return { billed_units: tokens, tokens };
}

/** An answer in Cohere's chat format. */
export function encodeCohere(a: Answer, id: string): Encoded {
  const finish = a.toolCalls.length ? "TOOL_CALL" : "COMPLETE";
  const toolCalls = a.toolCalls.map((c) => ({
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.input) },
  }));
  if (!a.stream) {
    const content = a.text ? [{ type: "text", text: a.text }] : [];
    return json({
      id,
      finish_reason: finish,
      message: { role: "assistant", content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
      usage: usage(a),
    });
  }
  const events: { event: string; data: Record<string, unknown> }[] = [];
  const add = (type: string, data: Record<string, unknown> = {}) =>
    events.push({ event: type, data: { type, ...data } });
  add("message-start", { id, delta: { message: { role: "assistant" } } });
  if (a.text) {
    add("content-start", { index: 0, delta: { message: { content: { type: "text", text: "" } } } });
    for (const text of split(a.text)) add("content-delta", { index: 0, delta: { message: { content: { text } } } });
    add("content-end", { index: 0 });
  }
  toolCalls.forEach((call, index) => {
    add("tool-call-start", {
      index,
      delta: { message: { tool_calls: { ...call, function: { name: call.function.name, arguments: "" } } } },
    });
    add("tool-call-delta", {
      index,
      delta: { message: { tool_calls: { function: { arguments: call.function.arguments } } } },
    });
    add("tool-call-end", { index });
  });
  add("message-end", { delta: { finish_reason: finish, usage: usage(a) } });
  return sse(events);
}
