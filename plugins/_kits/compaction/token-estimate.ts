/**
 * The pressure on the window the next request puts: the provider's count for the last request
 * (`CompactState.reported`) plus an estimate of what was added since — the tool results that just
 * landed are never in that count. Without a usable count (first turn, a provider that never
 * reports, history replaced) the whole history is estimated. Owned by the compaction tiers.
 *
 * `estimateTokens` is the one estimate of a message's tokens (characters over the kernel's
 * `CHARS_PER_TOKEN`), for the compaction trigger, what compaction saves and the budget's
 * pre-flight; an image part counts as `IMAGE_TOKENS` whatever its size:
 * its base64 is not text the model reads, and counting it as text would make one screenshot look
 * like a full context window.
 */
import { CHARS_PER_TOKEN, type CompactState } from "../../../src/index";

/**
 * Tokens one image part counts as: about what the providers charge for an image at their
 * default size (Anthropic ~1,600 for a 1.15-megapixel image; OpenAI ~1,100 at high detail).
 */
export const IMAGE_TOKENS = 1600;

/** An image in a message, as the AI SDK writes it: an image part (or a deprecated `image-*` one), or a file part of an image type. */
const isImagePart = (v: { type?: unknown; mediaType?: unknown }) =>
  /^image($|-)/.test(String(v.type)) || (String(v.type).startsWith("file") && String(v.mediaType).startsWith("image"));

/** Estimated tokens of `value`: a string's length, else its JSON's (images at `IMAGE_TOKENS` each), divided by `CHARS_PER_TOKEN`, rounded up. */
export function estimateTokens(value: unknown): number {
  const { chars, images } = Array.isArray(value) ? measureList(value) : measure(value);
  return Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
}

interface Size {
  chars: number;
  images: number;
}

function measure(value: unknown): Size {
  if (typeof value === "string") return { chars: value.length, images: 0 };
  // Without a replacer first (a replacer function makes stringify call back for every key): an
  // image part's type or media type starts with "image", so a JSON without that word holds none
  // and is the answer; one with it is measured again, skipping the images.
  const plain = JSON.stringify(value ?? "") ?? "";
  if (!plain.includes("image")) return { chars: plain.length, images: 0 };
  let images = 0;
  const skip = (_key: string, v: unknown) =>
    typeof v === "object" && v !== null && isImagePart(v) ? void images++ : v;
  const chars = (JSON.stringify(value ?? "", skip) ?? "").length;
  return { chars, images };
}

// A message's size, remembered: a history is estimated on every turn, and its messages (objects
// never changed once written; a tier that clears one writes a new object) were measured before.
const measured = new WeakMap<object, Size>();

/** A list's JSON size from its elements' (brackets and commas added): the same figure as stringifying it whole. */
function measureList(list: readonly unknown[]): Size {
  let chars = 2 + Math.max(0, list.length - 1);
  let images = 0;
  for (const item of list) {
    const object = typeof item === "object" && item !== null;
    let size = object ? measured.get(item) : undefined;
    if (!size) {
      // An image part in a list is "null" in its JSON (and one image); anything else is its own JSON.
      size =
        object && isImagePart(item)
          ? { chars: 4, images: 1 }
          : object
            ? measure(item)
            : { chars: (JSON.stringify(item) ?? "null").length, images: 0 };
      if (object) measured.set(item, size);
    }
    chars += size.chars;
    images += size.images;
  }
  return { chars, images };
}

/** Tokens the next request will carry: the state's estimate when a tier already made one. */
export function pressureOf(state: CompactState): number {
  if (state.estimatedTokens !== undefined) return state.estimatedTokens;
  const { messages, reported } = state;
  if (!reported || reported.inputTokens <= 0 || messages.length < reported.messages) return estimateTokens(messages);
  return reported.inputTokens + estimateTokens(messages.slice(reported.messages));
}
