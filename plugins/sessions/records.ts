/** The shape of one transcript line, and how a line read back is recognised. */
import type { ModelMessage } from "ai";
import type { Message, StreamEventMessage, SystemInitMessage } from "../../src/index";

/** The messages a transcript keeps: everything but `system/init` and `stream_event`. */
export type PersistedMessage = Exclude<Message, SystemInitMessage | StreamEventMessage>;

/** One line of a transcript. `uuid` is the message's uuid; `parentUuid` chains the records. */
export interface TranscriptRecord {
  uuid: string;
  /** The record before this one in its chain (the main conversation, or one subagent's); null first. */
  parentUuid: string | null;
  sessionId: string;
  type: PersistedMessage["type"];
  /** ISO 8601, when the record was written. */
  timestamp: string;
  cwd: string;
  message: PersistedMessage;
  /** On a user record: the text placed ahead of the prompt (`turn.prompt` context), as the model saw it. */
  context?: string[];
  /** On a user record: why the prompt never reached the model (refused, or the run ended first). */
  blocked?: string;
  /**
   * On a summary's record (`system/compact_boundary`): the conversation as the model saw it
   * right after the compaction (a `system/microcompact` record names the cleared results instead;
   * transcripts written before that may carry a history on it too, and replay reads either). Replay starts from the last one, so a resumed
   * session does not pay for the same summary again.
   */
  history?: ModelMessage[];
}

/**
 * A line a plugin keeps in a transcript beside the records (a checkpoint, say): not a message,
 * so replay, fork and `sessions show` pass over it; `StoredSession.notes` lists them.
 */
export interface TranscriptNote {
  type: "note";
  /** What the note is, named by its plugin (`checkpoint`). */
  kind: string;
  sessionId: string;
  /** ISO 8601, when it was written. */
  timestamp: string;
  data: Record<string, unknown>;
}

/** True when a parsed line is a note. */
export function isNote(value: unknown): value is TranscriptNote {
  const n = value as Partial<TranscriptNote> | null;
  return (
    typeof n === "object" &&
    n !== null &&
    n.type === "note" &&
    typeof n.kind === "string" &&
    typeof n.data === "object" &&
    n.data !== null &&
    !("message" in n)
  );
}

/** True for messages a transcript keeps. */
export function isPersisted(message: Message): message is PersistedMessage {
  if (message.type === "stream_event") return false;
  // A background task's output as it comes is a partial message too (only with
  // includePartialMessages): it is as long as the task's output, which nothing bounds.
  if (message.type === "system" && (message as { subtype?: string }).subtype === "task_output") return false;
  return !(message.type === "system" && message.subtype === "init");
}

/**
 * A record as a transcript file holds it: a user or assistant message also carries Claude Code's
 * `role`, and a user message without parts of its own carries its text as Claude Code's string
 * `content`, so hook scripts that read `transcript_path` as Claude Code writes it
 * (`"role":"assistant"` lines, `.message.content[]` text blocks, a prompt in `.message.content`)
 * find the conversation. Reading drops both again.
 */
export function withRole(entry: TranscriptRecord | TranscriptNote): TranscriptRecord | TranscriptNote {
  if (entry.type !== "user" && entry.type !== "assistant") return entry;
  const record = entry as TranscriptRecord;
  const message = { ...record.message, role: record.type } as PersistedMessage & { role: string };
  const user = message.type === "user" && message.content === undefined;
  return {
    ...record,
    message: user ? ({ ...message, content: message.text } as unknown as PersistedMessage) : message,
  };
}

/** A record read from a transcript file, without the `role` and string `content` that `withRole` added. */
export function withoutRole(record: TranscriptRecord): TranscriptRecord {
  if (!("role" in record.message)) return record;
  const { role: _role, ...message } = record.message as PersistedMessage & { role: unknown; content?: unknown };
  if (message.type === "user" && typeof message.content === "string") delete message.content;
  return { ...record, message: message as PersistedMessage };
}

/** True when a parsed line has the record shape (anything else in a file is ignored). */
export function isRecord(value: unknown): value is TranscriptRecord {
  const r = value as Partial<TranscriptRecord> | null;
  return (
    typeof r === "object" &&
    r !== null &&
    typeof r.uuid === "string" &&
    typeof r.sessionId === "string" &&
    typeof r.type === "string" &&
    typeof r.message === "object" &&
    r.message !== null &&
    (r.message as { type?: unknown }).type === r.type
  );
}

/** The model a session's main run last answered with (its last assistant record outside subagents), if any. */
export function lastModelOf(records: readonly TranscriptRecord[]): string | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const m = records[i]!.message;
    if (m.type === "assistant" && m.agentId === undefined && typeof m.model === "string" && m.model) return m.model;
  }
  return undefined;
}
