/**
 * The rough token estimate used where no tokenizer is at hand (the compaction trigger, the
 * output bound of a stream, what compaction saves): characters divided by four.
 */

/** Characters per token in the estimate. */
export const CHARS_PER_TOKEN = 4;

/** Estimated tokens of `value`: a string's length, else its JSON's, divided by `CHARS_PER_TOKEN`, rounded up. */
export function estimateTokens(value: unknown): number {
  const chars = typeof value === "string" ? value.length : (JSON.stringify(value ?? "") ?? "").length;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
