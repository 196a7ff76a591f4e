/**
 * The rough token estimate used where no tokenizer is at hand: characters divided by four. The
 * kernel bounds a stream's output with it; the compaction kit's `estimateTokens` (the compaction
 * trigger, what compaction saves, the budget's pre-flight) counts messages with it.
 */

/** Characters per token in the estimate. */
export const CHARS_PER_TOKEN = 4;
