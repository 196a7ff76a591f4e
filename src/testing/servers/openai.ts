/**
 * OpenAI wire formats: the Responses API (`/responses`) and Chat Completions
 * (`/chat/completions`), the latter also spoken by Mistral and the OpenAI-compatible family
 * (Groq, DeepSeek, Together, Fireworks, Cerebras, DeepInfra, OpenRouter, Ollama, ...).
 */
import { json, sse, type Encoded } from "./encoded";
import type { Answer } from "./script";

const created = () => Math.floor(Date.now() / 1000);

function responsesUsage(a: Answer) {
  return {
    input_tokens: a.usage.inputTokens,
    input_tokens_details: {
      cached_tokens: a.usage.cacheReadTokens,
      ...(a.usage.cacheWriteTokens ? { cache_write_tokens: a.usage.cacheWriteTokens } : {}),
    },
    output_tokens: a.usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: a.usage.inputTokens + a.usage.outputTokens,
  };
}

function responsesOutput(a: Answer) {
  const output: Record<string, unknown>[] = [];
  if (a.text)
    output.push({
      type: "message",
      id: "msg_0",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: a.text, annotations: [] }],
    });
  a.toolCalls.forEach((c, i) => {
    output.push({
      type: "function_call",
      id: `fc_${i}`,
      call_id: c.id,
      name: c.name,
      arguments: JSON.stringify(c.input),
      status: "completed",
    });
  });
  return output;
}

/** An answer in the Responses API format (stream of typed events, or one response object). */
export function encodeResponses(a: Answer, id: string): Encoded {
  const response = {
    id,
    object: "response",
    created_at: created(),
    model: a.model,
    status: a.truncated ? "incomplete" : "completed",
  };
  const incomplete = a.truncated ? { reason: "max_output_tokens" } : null;
  if (!a.stream)
    return json({ ...response, output: responsesOutput(a), usage: responsesUsage(a), incomplete_details: incomplete });
  const events: { event: string; data: Record<string, unknown> }[] = [];
  const add = (type: string, data: Record<string, unknown>) =>
    events.push({ event: type, data: { type, sequence_number: events.length, ...data } });
  add("response.created", { response: { ...response, status: "in_progress", output: [] } });
  let index = 0;
  if (a.text) {
    add("response.output_item.added", {
      output_index: index,
      item: { type: "message", id: "msg_0", role: "assistant", status: "in_progress", content: [] },
    });
    for (const delta of split(a.text))
      add("response.output_text.delta", { item_id: "msg_0", output_index: index, content_index: 0, delta });
    add("response.output_item.done", { output_index: index, item: responsesOutput({ ...a, toolCalls: [] })[0]! });
    index++;
  }
  a.toolCalls.forEach((c, i) => {
    const item = { type: "function_call", id: `fc_${i}`, call_id: c.id, name: c.name, arguments: "" };
    add("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress" } });
    add("response.function_call_arguments.delta", {
      item_id: item.id,
      output_index: index,
      delta: JSON.stringify(c.input),
    });
    add("response.output_item.done", {
      output_index: index,
      item: { ...item, arguments: JSON.stringify(c.input), status: "completed" },
    });
    index++;
  });
  add(a.truncated ? "response.incomplete" : "response.completed", {
    response: { ...response, output: responsesOutput(a), usage: responsesUsage(a), incomplete_details: incomplete },
  });
  return sse(events);
}

function chatUsage(a: Answer) {
  return {
    prompt_tokens: a.usage.inputTokens,
    completion_tokens: a.usage.outputTokens,
    total_tokens: a.usage.inputTokens + a.usage.outputTokens,
    prompt_tokens_details: { cached_tokens: a.usage.cacheReadTokens },
    // DeepSeek's names for the same split.
    prompt_cache_hit_tokens: a.usage.cacheReadTokens,
    prompt_cache_miss_tokens: a.usage.inputTokens - a.usage.cacheReadTokens,
  };
}

/** An answer in the Chat Completions format (chunks ending in `[DONE]`, or one completion). */
export function encodeChat(a: Answer, id: string): Encoded {
  const base = { id, created: created(), model: a.model };
  const finish = a.truncated ? "length" : a.toolCalls.length ? "tool_calls" : "stop";
  const toolCalls = a.toolCalls.map((c, i) => ({
    index: i,
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.input) },
  }));
  if (!a.stream) {
    const message = {
      role: "assistant",
      content: a.text || null,
      ...(toolCalls.length ? { tool_calls: toolCalls.map(({ index: _i, ...c }) => c) } : {}),
    };
    return json({
      ...base,
      object: "chat.completion",
      choices: [{ index: 0, message, finish_reason: finish }],
      usage: chatUsage(a),
    });
  }
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    data: { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: null, ...extra }] },
  });
  const events = [chunk({ role: "assistant", content: "" })];
  for (const delta of split(a.text)) events.push(chunk({ content: delta }));
  if (toolCalls.length) events.push(chunk({ tool_calls: toolCalls }));
  // Usage rides on the finishing chunk (Mistral's client expects a choice in every chunk), and
  // again under `x_groq`, where Groq reports it.
  const last = chunk({}, { finish_reason: finish });
  Object.assign(last.data, { usage: chatUsage(a), x_groq: { id: id, usage: chatUsage(a) } });
  events.push(last);
  return sse(events, "[DONE]");
}

/** Split text into a few deltas, so clients see a real stream. */
export function split(text: string): string[] {
  if (!text) return [];
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
