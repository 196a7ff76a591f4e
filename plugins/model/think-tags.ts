/**
 * Reasoning a local model writes in its answer. Qwen3, DeepSeek-R1 and QwQ served without a
 * reasoning parser (vLLM without `--reasoning-parser`, llama.cpp without `--reasoning-format`, LM
 * Studio and Ollama with some templates) put their thinking in the text, in `<think>` tags: it
 * became the run's result (`-p` printed it before the answer, as Claude Code never does) and went
 * back to the model as its own words. Read as reasoning instead, as a parser would have sent it.
 */
import type { LanguageModelV4, LanguageModelV4Middleware, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { extractReasoningMiddleware, wrapLanguageModel } from "ai";

/** The blank lines a model leaves between `</think>` and its answer, dropped with the tags. */
const answerTrimmed: LanguageModelV4Middleware = {
  specificationVersion: "v4",
  async wrapGenerate({ doGenerate }) {
    const result = await doGenerate();
    const at = result.content.findIndex((part) => part.type === "text");
    const text = result.content[at];
    if (at < 1 || text?.type !== "text" || !result.content.slice(0, at).some((p) => p.type === "reasoning"))
      return result;
    const content = [...result.content];
    content[at] = { ...text, text: text.text.trimStart() };
    return { ...result, content };
  },
  async wrapStream({ doStream }) {
    const { stream, ...rest } = await doStream();
    let thought = false;
    let answering = false;
    const trim = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
      transform(part, controller) {
        if (part.type === "reasoning-delta") thought = true;
        if (part.type !== "text-delta" || !thought || answering) return controller.enqueue(part);
        const delta = part.delta.trimStart();
        if (!delta) return;
        answering = true;
        controller.enqueue({ ...part, delta });
      },
    });
    return { ...rest, stream: stream.pipeThrough(trim) };
  },
};

/** `model` (an OpenAI-compatible server's) with `<think>…</think>` in its text read as reasoning. */
export function readThinkTags(model: LanguageModelV4): LanguageModelV4 {
  return wrapLanguageModel({ model, middleware: [answerTrimmed, extractReasoningMiddleware({ tagName: "think" })] });
}
