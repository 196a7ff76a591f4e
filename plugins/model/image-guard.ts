/**
 * Images on their way to a model (`model.request`, TRANSFORM stage: before compaction spends a call
 * and before cache markers are placed on the final shape):
 * - a model that takes no images (`supportsImages`) never receives one. A prompt with an image
 *   ends the run before anything is sent, naming the model and the fix (a provider would answer
 *   with a 400, or worse, read the base64 as text); an image in a tool result or an earlier user
 *   message — sent while another model was in charge, refused before, or handed to a summary —
 *   becomes a short note in its place, so the session goes on.
 * - a provider speaking the OpenAI chat format (`*.chat`) cannot carry images inside a tool
 *   message (its package would send the base64 as JSON text), so the images of a tool result
 *   move to a user message right after the tool messages, which that format does carry.
 */
import type { ModelMessage, ToolModelMessage, UserModelMessage } from "ai";
import { RunEnd, type ModelRequest, type ToolContentPart } from "../../src/index";
import { supportsImages } from "./capabilities";
import type { ModelResolvedOptions } from "./options";

type Part = { type: string; mediaType?: unknown };
type ResultPart = Extract<ToolModelMessage["content"][number], { type: "tool-result" }>;
type UserPart = Exclude<UserModelMessage["content"], string>[number];

/** An image as the AI SDK writes one in a message: an image part (or a deprecated `image-*` one), or a file part of an image type. */
export const isImage = (part: Part) =>
  /^image($|-)/.test(part.type) || (part.type.startsWith("file") && String(part.mediaType).startsWith("image"));

const imagesIn = (part: ResultPart) => (part.output.type === "content" ? part.output.value.filter(isImage) : []);

// Tool messages already seen to hold no image. Every request carries the whole history, so without
// this each turn scanned every earlier result again (quadratic in a long run); a message object is
// never given images after it was written, so the answer holds for its lifetime.
const imageFree = new WeakSet<ModelMessage>();
const holdsImages = (message: ModelMessage): boolean => {
  if (message.role !== "tool" || imageFree.has(message)) return false;
  if (message.content.some((p) => p.type === "tool-result" && imagesIn(p).length > 0)) return true;
  imageFree.add(message);
  return false;
};

/** Rewrite every tool result holding images with `replace` (undefined when no result holds one). */
function mapResults(messages: ModelMessage[], replace: (part: ResultPart) => ResultPart): ModelMessage[] | undefined {
  // Most requests hold no image: find that out without copying the history.
  if (!messages.some(holdsImages)) return undefined;
  return messages.map((message) => {
    if (!holdsImages(message) || message.role !== "tool") return message;
    return {
      ...message,
      content: message.content.map((p) => (p.type === "tool-result" && imagesIn(p).length > 0 ? replace(p) : p)),
    };
  });
}

/** The same result without its images, each replaced by `note`. */
function withoutImages(part: ResultPart, note: string): ResultPart {
  if (part.output.type !== "content") return part;
  const value = part.output.value.map((p): ToolContentPart => (isImage(p) ? { type: "text", text: note } : p));
  return { ...part, output: { ...part.output, value } };
}

/** Move the images of tool results into a user message after each run of tool messages (the chat format's only place for them). */
function hoistImages(messages: ModelMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  let held: UserPart[] = [];
  const flush = () => {
    if (held.length > 0) out.push({ role: "user", content: held });
    held = [];
  };
  for (const message of messages) {
    if (message.role === "user" && held.length > 0) {
      // The next prompt follows the tool messages: one user message carries both (some chat servers want turns to alternate).
      const own =
        typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
      out.push({ ...message, content: [...held, ...own] });
      held = [];
      continue;
    }
    if (message.role !== "tool") {
      flush();
      out.push(message);
      continue;
    }
    const moved = mapResults([message], (part) => {
      for (const image of imagesIn(part)) {
        if (image.type !== "file") continue; // the deprecated image-* parts are not written by Ubiquity's tools
        held.push(
          { type: "text", text: `The image from the ${part.toolName} result ${part.toolCallId}:` },
          { type: "file", mediaType: image.mediaType, data: image.data },
        );
      }
      return withoutImages(part, "(the image follows in the next user message)");
    });
    out.push(moved?.[0] ?? message);
  }
  flush();
  return out;
}

// User messages already seen to hold no image (as imageFree, for the prompts of a long run).
const userImageFree = new WeakSet<ModelMessage>();

/** The images of one message when it is a user message. */
function imagesOfUser(m: ModelMessage | undefined): number {
  if (m?.role !== "user" || typeof m.content === "string" || userImageFree.has(m)) return 0;
  const count = m.content.filter(isImage).length;
  if (count === 0) userImageFree.add(m);
  return count;
}

/** The user messages' images of `messages`, counted. */
function userImages(messages: ModelMessage[]): number {
  let count = 0;
  for (const m of messages) count += imagesOfUser(m);
  return count;
}

/** The `model.request` tap (see the file comment). */
export function guardImages(request: ModelRequest, options: ModelResolvedOptions): ModelRequest {
  const label = request.modelLabel;
  if (!supportsImages(label, options.modelCapabilities)) {
    const turn = (request.purpose ?? "turn") === "turn";
    // Only the prompt being answered (the last user message) ends the run: an image of an earlier
    // one, sent while a model that sees images was in charge or refused before (a live session
    // kept it), becomes a note as a tool result's does, so the session goes on.
    const images = turn ? imagesOfUser(request.messages.findLast((m) => m.role === "user")) : 0;
    if (images > 0) {
      throw new RunEnd(
        `${label} does not accept images, and the prompt carries ${images === 1 ? "an image" : `${images} images`}; nothing was sent. ` +
          `Use a model that sees images (e.g. openai:gpt-4o, anthropic:claude-sonnet-4-5, google:gemini-2.5-flash), or, if ${label} does, say so with modelCapabilities: { "${label}": { images: true } }.`,
      );
    }
    const note = `[image not sent: ${label} does not accept images]`;
    const results = mapResults(request.messages, (part) => withoutImages(part, note)) ?? request.messages;
    const messages = stripUserImages(results, note);
    return messages === request.messages ? request : { ...request, messages };
  }
  const provider = String((request.model as { provider?: unknown }).provider ?? "");
  const messages = userImagesAsFiles(request.messages);
  if (!provider.endsWith(".chat") || !mapResults(messages, (p) => p))
    return messages === request.messages ? request : { ...request, messages };
  return { ...request, messages: hoistImages(messages) };
}

// User messages already written with file parts only (or none with an image part): every request
// carries the whole history, and a message object never changes once written.
const fileOnly = new WeakSet<ModelMessage>();
const holdsImageParts = (m: ModelMessage): boolean => {
  if (m.role !== "user" || typeof m.content === "string" || fileOnly.has(m)) return false;
  if (m.content.some((p) => p.type === "image")) return true;
  fileOnly.add(m);
  return false;
};

/**
 * The user messages' `image` parts as the `file` parts the AI SDK turns them into anyway (the same
 * fields): sent as they were, the SDK printed a DeprecationWarning on stderr for each request that
 * carried one (an image from `--input-format stream-json`, a live session, ACP).
 */
function userImagesAsFiles(messages: ModelMessage[]): ModelMessage[] {
  if (!messages.some(holdsImageParts)) return messages;
  return messages.map((m) =>
    holdsImageParts(m) && m.role === "user" && typeof m.content !== "string"
      ? {
          ...m,
          content: m.content.map(
            (p): UserPart =>
              p.type === "image"
                ? {
                    type: "file",
                    data: p.image,
                    mediaType: p.mediaType ?? "image",
                    ...(p.providerOptions ? { providerOptions: p.providerOptions } : {}),
                  }
                : p,
          ),
        }
      : m,
  );
}

/** User images replaced by `note` (a summary or a plugin's own call to a text-only model: its caller gave no images on purpose). */
function stripUserImages(messages: ModelMessage[], note: string): ModelMessage[] {
  if (userImages(messages) === 0) return messages;
  return messages.map((m) =>
    m.role === "user" && typeof m.content !== "string" && m.content.some(isImage)
      ? { ...m, content: m.content.map((p) => (isImage(p) ? { type: "text" as const, text: note } : p)) }
      : m,
  );
}
