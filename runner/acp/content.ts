/**
 * Content both ways: an ACP prompt (text, resource links, embedded resources, images) as a
 * Ubiquity user message, and streamed text with secrets masked even when a secret arrives split
 * over several deltas.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { UserContentParts } from "../../src/index";
import type { UserInput } from "../../sdk/live";
import { redactText } from "../../src/redact";

/** The user message a `session/prompt` carries (resources become text the model can read; images stay images). */
export function userInputOf(blocks: readonly ContentBlock[]): UserInput {
  const parts: UserContentParts = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "resource_link") parts.push({ type: "text", text: `[${block.name}](${block.uri})` });
    else if (block.type === "resource") {
      const r = block.resource;
      if ("text" in r) parts.push({ type: "text", text: `<context uri="${r.uri}">\n${r.text}\n</context>` });
      else
        parts.push({ type: "text", text: `[${r.uri}] (binary content, ${r.mimeType ?? "unknown type"}, not shown)` });
    } else if (block.type === "image") parts.push({ type: "image", image: block.data, mediaType: block.mimeType });
  }
  const text = parts.map((p) => (p.type === "text" ? p.text : "")).join("\n");
  return parts.some((p) => p.type !== "text") ? { type: "user", content: parts } : text;
}

/**
 * Streamed text with the known secrets masked: what could be the start of a secret is held back
 * until the next delta shows it is not (or `flush()` at the end of the response).
 */
export class MaskedStream {
  #held = "";
  constructor(private readonly secrets: readonly string[]) {}

  /** Take a delta; returns the text safe to send now. */
  push(delta: string): string {
    const text = redactText(this.#held + delta, this.secrets);
    let keep = 0;
    for (const secret of this.secrets) {
      for (let n = Math.min(secret.length - 1, text.length); n > keep; n--) {
        if (text.endsWith(secret.slice(0, n))) {
          keep = n;
          break;
        }
      }
    }
    this.#held = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  /** The end of the response: whatever is held. */
  flush(): string {
    const rest = redactText(this.#held, this.secrets);
    this.#held = "";
    return rest;
  }
}
