/**
 * A request its server refused as larger than the model's context window. Local servers word it
 * each their own way, and most name the window: vLLM "This model's maximum context length is 8192
 * tokens. However, you requested 9000 tokens", llama.cpp "request (9000 tokens) exceeds the
 * available context size (8192 tokens)" (`exceed_context_size_error`, with `n_ctx`), LM Studio
 * "… the model is loaded with context length of only 8192 tokens", OpenAI `context_length_exceeded`,
 * Anthropic "prompt is too long: 210000 tokens > 200000 maximum".
 */

/** What the refusal says: the window and the request's size in tokens, when it names them. */
export interface ContextOverflow {
  window?: number;
  requested?: number;
}

const OVERFLOW =
  /context[_ ]length[_ ]exceeded|maximum context length|exceeds? the available context size|exceed_context_size|context length of only|greater than the context length|exceeds? the (?:maximum )?context length|prompt is too long|input is too long for/i;
const WINDOW = [
  /maximum context length is (\d+)/i,
  /available context size \((\d+)/i,
  /"n_ctx"\s*:\s*(\d+)/,
  /context length of only (\d+)/i,
  /tokens? > (\d+) maximum/i,
];
const REQUESTED = [
  /you requested (\d+) tokens/i,
  /your request has (\d+) input tokens/i,
  /request \((\d+) tokens\)/i,
  /"n_prompt_tokens"\s*:\s*(\d+)/,
  /prompt is too long: (\d+) tokens/i,
];

const first = (patterns: RegExp[], text: string): number | undefined => {
  for (const pattern of patterns) {
    const n = Number(pattern.exec(text)?.[1]);
    if (Number.isInteger(n) && n > 0) return n;
  }
  return undefined;
};

/** The overflow `error` (a failed model call) reports, or undefined when it is another failure. */
export function contextOverflow(error: unknown): ContextOverflow | undefined {
  if (!(error instanceof Error)) return undefined;
  const e = error as Error & { statusCode?: number; responseBody?: string };
  if (e.statusCode !== 400 && e.statusCode !== 413) return undefined;
  const text = `${e.message}\n${typeof e.responseBody === "string" ? e.responseBody : ""}`;
  if (!OVERFLOW.test(text)) return undefined;
  return { window: first(WINDOW, text), requested: first(REQUESTED, text) };
}

// The windows servers reported, per run: they win over every declared or assumed one.
const learned = new WeakMap<object, number>();

/** Note that `run`'s server holds `tokens` at most (the smallest report wins). */
export function learnWindow(run: object, tokens: number): void {
  const known = learned.get(run);
  if (known === undefined || tokens < known) learned.set(run, tokens);
}

/** The window `run`'s server reported, if it refused a request as too long. */
export function learnedWindow(run: object): number | undefined {
  return learned.get(run);
}
