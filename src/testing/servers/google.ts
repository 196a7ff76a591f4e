/** Google Gemini (`/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`). */
import { json, sse, type Encoded } from "./encoded";
import { split } from "./openai";
import type { Answer } from "./script";

function usageMetadata(a: Answer) {
  return {
    promptTokenCount: a.usage.inputTokens,
    candidatesTokenCount: a.usage.outputTokens,
    totalTokenCount: a.usage.inputTokens + a.usage.outputTokens,
    ...(a.usage.cacheReadTokens ? { cachedContentTokenCount: a.usage.cacheReadTokens } : {}),
  };
}

/** An answer as GenerateContentResponse objects (one, or a stream of partial ones). */
export function encodeGoogle(a: Answer, id: string): Encoded {
  const calls = a.toolCalls.map((c) => ({ functionCall: { name: c.name, args: c.input } }));
  const candidate = (parts: unknown[], finishReason?: string) => ({
    content: { role: "model", parts },
    index: 0,
    ...(finishReason ? { finishReason } : {}),
  });
  const meta = { modelVersion: a.model, responseId: id };
  if (!a.stream) {
    const parts = [...(a.text ? [{ text: a.text }] : []), ...calls];
    return json({ candidates: [candidate(parts, "STOP")], usageMetadata: usageMetadata(a), ...meta });
  }
  const events: { data: unknown }[] = split(a.text).map((text) => ({
    data: { candidates: [candidate([{ text }])], ...meta },
  }));
  events.push({
    data: {
      candidates: [candidate(calls.length ? calls : [{ text: "" }], "STOP")],
      usageMetadata: usageMetadata(a),
      ...meta,
    },
  });
  return sse(events);
}
