/**
 * Shared machinery of the offline models (`scriptedModel()` and the `test` model): turn one
 * scripted step into a LanguageModelV4 stream or generate result.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";

/** One step an offline model answers with. */
export interface OfflineStep {
  text?: string | undefined;
  reasoning?: string | undefined;
  toolCalls?: { toolName: string; input: unknown; id?: string }[] | undefined;
  usage?: { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number };
  /** Characters per streamed text delta (default: the text is split into ~4 deltas). */
  chunkSize?: number | undefined;
  /** Wait this long before the response starts (honours the abort signal). */
  delayMs?: number | undefined;
  /** Why the response ended [tool-calls when there are calls, else stop]; `length` plays a response cut by maxTokens. */
  finishReason?: "stop" | "length" | "tool-calls" | "content-filter" | undefined;
}

/** Rough token estimate (characters / 4), deterministic. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return Math.ceil((text?.length ?? 0) / 4);
}

function usageOf(step: OfflineStep, options: LanguageModelV4CallOptions): LanguageModelV4Usage {
  const input = step.usage?.inputTokens ?? estimateTokens(options.prompt) + estimateTokens(options.tools ?? []);
  const output =
    step.usage?.outputTokens ??
    estimateTokens((step.text ?? "") + (step.reasoning ?? "")) + estimateTokens(step.toolCalls ?? []);
  const cacheRead = step.usage?.cacheReadTokens ?? 0;
  const cacheWrite = step.usage?.cacheWriteTokens ?? 0;
  return {
    inputTokens: { total: input, noCache: Math.max(0, input - cacheRead - cacheWrite), cacheRead, cacheWrite },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

function chunks(text: string, size: number | undefined): string[] {
  const n = size && size > 0 ? size : Math.max(1, Math.ceil(text.length / 4));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += n) out.push(text.slice(i, i + n));
  return out;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason ?? new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The content parts of a step. */
export function stepContent(step: OfflineStep, callIndex: number): LanguageModelV4Content[] {
  const content: LanguageModelV4Content[] = [];
  if (step.reasoning) content.push({ type: "reasoning", text: step.reasoning });
  if (step.text) content.push({ type: "text", text: step.text });
  (step.toolCalls ?? []).forEach((c, i) => {
    content.push({
      type: "tool-call",
      toolCallId: c.id ?? `call_${callIndex}_${i}`,
      toolName: c.toolName,
      input: JSON.stringify(c.input ?? {}),
    });
  });
  return content;
}

/** Build a LanguageModelV4 whose every call is answered by `answer`. */
export function offlineModel(
  provider: string,
  modelId: string,
  answer: (options: LanguageModelV4CallOptions, index: number) => OfflineStep | Promise<OfflineStep>,
): LanguageModelV4 {
  let calls = 0;
  const finishReason = (step: OfflineStep) =>
    step.finishReason
      ? ({ unified: step.finishReason, raw: step.finishReason } as const)
      : step.toolCalls?.length
        ? ({ unified: "tool-calls", raw: "tool_use" } as const)
        : ({ unified: "stop", raw: "stop" } as const);
  return {
    specificationVersion: "v4",
    provider,
    modelId,
    supportedUrls: {},
    async doGenerate(options): Promise<LanguageModelV4GenerateResult> {
      const index = calls++;
      const step = await answer(options, index);
      if (step.delayMs) await sleep(step.delayMs, options.abortSignal);
      return {
        content: stepContent(step, index),
        finishReason: finishReason(step),
        usage: usageOf(step, options),
        warnings: [],
      };
    },
    async doStream(options) {
      const index = calls++;
      const step = await answer(options, index);
      if (step.delayMs) await sleep(step.delayMs, options.abortSignal);
      const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
      parts.push({ type: "response-metadata", id: `resp_${index}`, modelId });
      if (step.reasoning) {
        parts.push({ type: "reasoning-start", id: "r0" });
        for (const delta of chunks(step.reasoning, step.chunkSize))
          parts.push({ type: "reasoning-delta", id: "r0", delta });
        parts.push({ type: "reasoning-end", id: "r0" });
      }
      if (step.text) {
        parts.push({ type: "text-start", id: "t0" });
        for (const delta of chunks(step.text, step.chunkSize)) parts.push({ type: "text-delta", id: "t0", delta });
        parts.push({ type: "text-end", id: "t0" });
      }
      (step.toolCalls ?? []).forEach((c, i) => {
        const id = c.id ?? `call_${index}_${i}`;
        const input = JSON.stringify(c.input ?? {});
        parts.push({ type: "tool-input-start", id, toolName: c.toolName });
        parts.push({ type: "tool-input-delta", id, delta: input });
        parts.push({ type: "tool-input-end", id });
        parts.push({ type: "tool-call", toolCallId: id, toolName: c.toolName, input });
      });
      parts.push({ type: "finish", usage: usageOf(step, options), finishReason: finishReason(step) });
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          for (const p of parts) controller.enqueue(p);
          controller.close();
        },
      });
      return { stream };
    },
  };
}
