/**
 * The queue of a live session (`summon()` with an async iterable prompt): what the caller sends,
 * as the loop takes it (`RunInput`), and the controller of the stretch of work in progress.
 */
import { UserInterrupt, type RunInput, type UserContentParts, type UserTurn } from "../src/index";

/** A content block of a Claude Agent SDK user message: `{ type: "text", text }`, `{ type: "image", source }`. */
export interface AgentSdkContentBlock {
  type: string;
  [key: string]: unknown;
}

/** One message of a live session's input: a string, or a user message (with parts, or marked to interrupt). */
export type UserInput =
  | string
  | {
      type: "user";
      text?: string;
      content?: UserContentParts;
      interrupt?: boolean;
      /** The Claude Agent SDK's `SDKUserMessage.message` (and `--input-format stream-json`'s), read when `text` and `content` are absent. */
      message?: { role: "user"; content: string | AgentSdkContentBlock[] };
      /** The Claude Agent SDK's `SDKUserMessage.parent_tool_use_id` (its docs' prompts write `null`): taken and not read. */
      parent_tool_use_id?: string | null;
      /** The Claude Agent SDK's `SDKUserMessage.session_id`: taken and not read (the session is the one `summon()` runs). */
      session_id?: string;
    };

const SHAPE = 'a string or { type: "user", text?, content?, interrupt? }';

/** A user input as a turn: `text` defaults to the text parts of `content`; `content`, when given, is what the model receives. */
export function userTurn(input: UserInput): UserTurn {
  if (typeof input === "string") return { text: input };
  if (input?.type !== "user") throw new TypeError(`summon(prompt): each input message must be ${SHAPE}`);
  const { interrupt } = input;
  // A message ported from the Claude Agent SDK's streaming input carries its prompt in `message`.
  const { text, content } =
    input.text === undefined && input.content === undefined && input.message !== undefined
      ? agentSdkMessage(input.message)
      : input;
  // With both, the text goes first; parts alone reach the model unchanged (their text is the message's text).
  const given = content?.map(jsonSafe);
  const parts = given && text !== undefined ? [{ type: "text" as const, text }, ...given] : given;
  const shown = text ?? (content ?? []).map((p) => (p.type === "text" ? p.text : "")).join("");
  return { text: shown, ...(parts ? { content: parts } : {}), ...(interrupt ? { interrupt: true } : {}) };
}

/**
 * The Claude Agent SDK's `message: { role: "user", content }` as our fields: a string is the text;
 * text blocks and images (base64 or URL sources) become parts. Anything else is refused by name:
 * taken silently, such a message reached the model as an empty prompt.
 */
function agentSdkMessage(message: unknown): { text?: string; content?: UserContentParts } {
  const content = (message as { content?: unknown } | null)?.content;
  if (typeof content === "string") return { text: content };
  if (!Array.isArray(content))
    throw new TypeError(
      `summon(prompt): a user message's message.content must be a string or an array of content blocks; each input message is ${SHAPE}`,
    );
  const parts: UserContentParts = content.map((block: AgentSdkContentBlock) => {
    if (block?.type === "text" && typeof block.text === "string") return { type: "text", text: block.text };
    const source = block?.type === "image" ? (block.source as Record<string, unknown> | undefined) : undefined;
    if (source?.type === "base64" && typeof source.data === "string")
      return {
        type: "image",
        image: source.data,
        ...(typeof source.media_type === "string" ? { mediaType: source.media_type } : {}),
      };
    if (source?.type === "url" && typeof source.url === "string") return { type: "image", image: source.url };
    throw new TypeError(
      `summon(prompt): a user message's content block of type ${JSON.stringify(block?.type)} is not supported here (text and image blocks are); each input message is ${SHAPE}`,
    );
  });
  return parts.every((p) => p.type === "text") ? { text: textOf(parts) } : { content: parts };
}

/**
 * The text parts of a message, a blank line between two: each block is a paragraph of its own
 * (Claude Code sends them to the model as separate blocks); glued, `["block one", "block two"]`
 * reached the model as "block oneblock two".
 */
function textOf(parts: UserContentParts): string {
  return parts
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("\n\n");
}

/** Bytes as base64 (a `Buffer` is a `Uint8Array`); anything else as undefined. */
const b64 = (v: unknown) =>
  v instanceof Uint8Array || v instanceof ArrayBuffer ? Buffer.from(v as ArrayBuffer).toString("base64") : undefined;

/** A part with its bytes as base64, so the conversation is plain JSON and a transcript keeps the image. */
function jsonSafe(part: UserContentParts[number]): UserContentParts[number] {
  if (part.type === "image") return { ...part, image: b64(part.image) ?? part.image };
  if (part.type !== "file") return part;
  const inner = b64(
    (part.data as { type?: unknown; data?: unknown })?.type === "data"
      ? (part.data as { data: unknown }).data
      : undefined,
  );
  return { ...part, data: b64(part.data) ?? (inner === undefined ? part.data : { type: "data", data: inner }) };
}

/** The queue of a live session, and the controller of the stretch of work in progress. */
export class LiveInput implements RunInput {
  #items: UserTurn[] = [];
  #closed = false;
  #waiter?: () => void;
  #work = new AbortController();
  #waiting = false;
  #begun = false;
  /** Why the input ended early (its iterable threw, or yielded a non-message): the session ends with an error result naming it. */
  failure?: unknown;

  /** Queue a message; one marked `interrupt` aborts the work in progress. */
  push(input: UserInput): void {
    if (this.#closed) return;
    const turn = userTurn(input);
    this.#items.push(turn);
    if (turn.interrupt) this.interrupt();
    this.#waiter?.();
  }

  /** Stop the work in progress (its model stream and tool calls see the abort); before the first stretch, that one as it begins; idle between stretches, nothing. */
  interrupt(): void {
    if (this.#waiting && this.#begun) return;
    this.#work.abort(new UserInterrupt());
  }

  /** The input ended: what is queued is still taken. */
  close(): void {
    this.#closed = true;
    this.#waiter?.();
  }

  /** True once the input ended and nothing is left in the queue. */
  get ended(): boolean {
    return this.#closed && this.#items.length === 0;
  }

  /** Every queued message, without waiting. */
  take(): UserTurn[] {
    return this.#items.splice(0);
  }

  /** The next message and every one queued behind it, waiting for one; empty once the input ended. */
  async next(): Promise<UserTurn[]> {
    this.#waiting = true;
    while (this.#items.length === 0 && !this.#closed) await new Promise<void>((wake) => (this.#waiter = wake));
    this.#waiting = false;
    if (this.#begun) this.#work = new AbortController(); // an interrupt from now on is for the work these messages start
    return this.take();
  }

  /** Start a stretch of work: a signal aborted by `base` or by an interrupt (one that came before it began included). */
  begin(base: AbortSignal): AbortSignal {
    this.#begun = true;
    this.#unfollow();
    if (!this.#work.signal.aborted) this.#work = new AbortController();
    // The first abort's reason stands, base's when both came before the stretch (as AbortSignal.any([base, work]) has it).
    if (base.aborted) return AbortSignal.abort(base.reason);
    // The stretch's signal is the interrupt's own, which base reaches through a listener: a
    // composite signal (AbortSignal.any) walks its sources on every `aborted` read and on every
    // listener its calls add, several times per tool call.
    const work = this.#work;
    const follow = () => work.abort(base.reason);
    base.addEventListener("abort", follow, { once: true });
    this.#unfollow = () => base.removeEventListener("abort", follow);
    return work.signal;
  }

  /** Stop the last stretch following its base. */
  #unfollow = () => {};
}
