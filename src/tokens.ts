/**
 * The rough token estimate used where no tokenizer is at hand (the compaction trigger, the
 * output bound of a stream, what compaction saves): characters divided by four. An image part
 * counts as `IMAGE_TOKENS` whatever its size: its base64 is not text the model reads, and
 * counting it as text would make one screenshot look like a full context window.
 */

/** Characters per token in the estimate. */
export const CHARS_PER_TOKEN = 4;

/**
 * Tokens one image part counts as: about what the providers charge for an image at their
 * default size (Anthropic ~1,600 for a 1.15-megapixel image; OpenAI ~1,100 at high detail).
 */
export const IMAGE_TOKENS = 1600;

/** An image in a message, as the AI SDK writes it: an image part (or a deprecated `image-*` one), or a file part of an image type. */
const isImagePart = (v: { type?: unknown; mediaType?: unknown }) => /^image($|-)/.test(String(v.type)) || (String(v.type).startsWith("file") && String(v.mediaType).startsWith("image"));

/** Estimated tokens of `value`: a string's length, else its JSON's (images at `IMAGE_TOKENS` each), divided by `CHARS_PER_TOKEN`, rounded up. */
export function estimateTokens(value: unknown): number {
  let images = 0;
  const skip = (_key: string, v: unknown) => (typeof v === "object" && v !== null && isImagePart(v) ? void images++ : v);
  const chars = typeof value === "string" ? value.length : (JSON.stringify(value ?? "", skip) ?? "").length;
  return Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
}
