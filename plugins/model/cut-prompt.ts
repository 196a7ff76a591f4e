/**
 * A prompt its server cut without a word. Ollama, past its context window (`OLLAMA_CONTEXT_LENGTH`,
 * 4,096 tokens by default on a small GPU; its `/v1` endpoint ignores a request's `num_ctx`), drops
 * the prompt's start — the system prompt, the tools, the task — and answers 200: the model answers
 * a conversation it never saw, and nothing said why. The only trace is the input count it reports,
 * far under what was sent.
 */
import type { ModelResponse } from "../../src/index";
import { estimateTokens } from "../_kits/compaction/index";

/** Providers that serve local models over the OpenAI chat wire. */
const LOCAL = /^(ollama|openai-compatible)[:.]/;

/** The warning for `response` when its server reports far fewer input tokens than were sent, else undefined. */
export function cutPromptWarning(response: ModelResponse): string | undefined {
  const { request, usage } = response;
  const reported = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  if (reported <= 0 || !LOCAL.test(response.modelLabel)) return undefined;
  // Tokenizers count a text as more tokens than the estimate (characters / 4), never as 60% of it.
  const sent = estimateTokens(request.messages) + estimateTokens(request.instructions);
  if (sent < 2_000 || reported > sent * 0.6) return undefined;
  return (
    `${response.modelLabel}'s server reported ${reported} input tokens for a request of about ${sent}: it cut the prompt to its ` +
    "context window without an error (as Ollama does), so the model did not see all of it (its start first: the instructions and tools). " +
    "Start the server with a longer context (Ollama: OLLAMA_CONTEXT_LENGTH) and set maxContextTokens to it"
  );
}
