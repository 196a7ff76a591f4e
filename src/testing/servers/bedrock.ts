/** Amazon Bedrock Converse (`/model/{id}/converse`) and ConverseStream (`/converse-stream`, event-stream framing). */
import { json, type Encoded } from "./encoded";
import { eventStreamMessage } from "./event-stream";
import { split } from "./openai";
import type { Answer } from "./script";

// Bedrock's inputTokens excludes cache reads and writes, which it reports beside it.
function usage(a: Answer) {
  const input = Math.max(0, a.usage.inputTokens - a.usage.cacheReadTokens - a.usage.cacheWriteTokens);
  return {
    inputTokens: input,
    outputTokens: a.usage.outputTokens,
    totalTokens: a.usage.inputTokens + a.usage.outputTokens,
    cacheReadInputTokens: a.usage.cacheReadTokens,
    cacheWriteInputTokens: a.usage.cacheWriteTokens,
  };
}

/** An answer in the Converse format. */
export function encodeBedrock(a: Answer): Encoded {
  const stopReason = a.toolCalls.length ? "tool_use" : "end_turn";
  if (!a.stream) {
    const content = [
      ...(a.text ? [{ text: a.text }] : []),
      ...a.toolCalls.map((c) => ({ toolUse: { toolUseId: c.id, name: c.name, input: c.input } })),
    ];
    return json({
      output: { message: { role: "assistant", content } },
      stopReason,
      usage: usage(a),
      metrics: { latencyMs: 1 },
    });
  }
  const chunks: Uint8Array[] = [eventStreamMessage("messageStart", { role: "assistant" })];
  let index = 0;
  if (a.text) {
    for (const text of split(a.text))
      chunks.push(eventStreamMessage("contentBlockDelta", { contentBlockIndex: index, delta: { text } }));
    chunks.push(eventStreamMessage("contentBlockStop", { contentBlockIndex: index }));
    index++;
  }
  for (const c of a.toolCalls) {
    chunks.push(
      eventStreamMessage("contentBlockStart", {
        contentBlockIndex: index,
        start: { toolUse: { toolUseId: c.id, name: c.name } },
      }),
    );
    chunks.push(
      eventStreamMessage("contentBlockDelta", {
        contentBlockIndex: index,
        delta: { toolUse: { input: JSON.stringify(c.input) } },
      }),
    );
    chunks.push(eventStreamMessage("contentBlockStop", { contentBlockIndex: index }));
    index++;
  }
  chunks.push(eventStreamMessage("messageStop", { stopReason }));
  chunks.push(eventStreamMessage("metadata", { usage: usage(a), metrics: { latencyMs: 1 } }));
  return { contentType: "application/vnd.amazon.eventstream", chunks };
}
