/**
 * Read-before-write: an existing file may be overwritten only when this run has read all of
 * it and it has not changed since. What Read saw is kept per run (a subagent's run has its own)
 * in the run's state slots, keyed by the fully resolved path; the kernel knows nothing of it.
 */
import { createHash } from "node:crypto";
import type { ToolContext } from "../../../src/index";
import { splitLines } from "./text-file";
import { ToolFailure } from "./tool-failure";

/** What Read recorded about a file, for read-before-write. */
export interface FileReadRecord {
  /** True when the whole file was seen (no offset, nothing cut by the line limit). */
  full: boolean;
  mtimeMs: number;
  size: number;
  /** sha256 of the content that was seen in full (undefined for a partial read). */
  hash?: string;
}

/** The file tools' slot in `RunContext.state`. */
const READ_STATE = Symbol("ubiquity:file-tools read state");

// A context built by hand, outside a run (a unit test calling a tool), keeps its own state.
const detached = new WeakMap<ToolContext, Map<string, FileReadRecord>>();

/** What the file tools of `ctx`'s run have seen, keyed by fully resolved path (created on first use). */
export function readStateOf(ctx: ToolContext): Map<string, FileReadRecord> {
  const slots = ctx.run?.state;
  let state = (slots ? slots.get(READ_STATE) : detached.get(ctx)) as Map<string, FileReadRecord> | undefined;
  if (!state) {
    state = new Map();
    if (slots) slots.set(READ_STATE, state);
    else detached.set(ctx, state);
  }
  return state;
}

/** The facts about a file on disk that a read record is compared with. */
export interface FileSnapshot {
  size: number;
  mtimeMs: number;
  /** The file's bytes, when already in memory (enables the content comparison). */
  bytes?: Buffer;
}

/** sha256 of a file's bytes, as kept in `FileReadRecord.hash`. */
export function contentHash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** True when the file still is what the record describes (by size, then content, else mtime). */
function unchanged(record: FileReadRecord, now: FileSnapshot): boolean {
  if (record.size !== now.size) return false;
  // A touch changes the mtime but not the content; compare content whenever both hashes exist.
  if (record.hash && now.bytes) return record.hash === contentHash(now.bytes);
  return record.mtimeMs === now.mtimeMs;
}

/**
 * Record a Read. A partial read never downgrades an earlier full read of the same, unchanged
 * file: the model has seen all of it already.
 */
export function recordRead(state: Map<string, FileReadRecord>, path: string, full: boolean, now: FileSnapshot): void {
  const previous = state.get(path);
  if (!full && previous?.full && unchanged(previous, now)) return;
  state.set(path, {
    full,
    size: now.size,
    mtimeMs: now.mtimeMs,
    hash: full && now.bytes ? contentHash(now.bytes) : undefined,
  });
}

/** Record a successful Write or Edit: the model knows the whole new content. */
export function recordWrite(state: Map<string, FileReadRecord>, path: string, bytes: Buffer, mtimeMs: number): void {
  state.set(path, { full: true, size: bytes.length, mtimeMs, hash: contentHash(bytes) });
}

/**
 * Refuse to overwrite an existing file unless it was read in full in this run and is unchanged
 * since. `shown` is the path as the model should see it in the message.
 */
export function assertReadInFull(
  state: Map<string, FileReadRecord>,
  path: string,
  shown: string,
  now: FileSnapshot,
): void {
  const record = state.get(path);
  if (!record) {
    throw new ToolFailure(
      `${shown} already exists and has not been read in this run. Read it in full first, then write it, so no content you have not seen is lost.`,
    );
  }
  if (!record.full) {
    const lines = now.bytes ? splitLines(now.bytes.toString("utf8")).length : undefined;
    const limit = lines === undefined ? "past its last line" : `of at least ${lines} (the file has ${lines} lines)`;
    throw new ToolFailure(
      `${shown} was only partly read (with offset/limit, or cut at the default line limit), so writing it could discard lines you have not seen. ` +
        `Read it again in full — no offset, and a limit ${limit} — then retry.`,
    );
  }
  if (!unchanged(record, now)) {
    throw new ToolFailure(
      `${shown} has changed since it was last read (by a command, another tool or another program). Read it again and base your change on its current content.`,
    );
  }
}
