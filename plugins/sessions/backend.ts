/**
 * `SessionBackend`: what the sessions plugin and `ubiquity sessions` need of a place sessions are
 * kept — list, get, fork, delete, and appends that only follow the session's last record. The
 * JSONL files (`SessionStore`) are one; `ubiquity:sessions-postgres` is another. A plugin puts
 * its own in with `getSessionsApi(kernel).useBackend(...)`.
 */
import { UbiquityError } from "../../src/index";
import type { TranscriptNote, TranscriptRecord } from "./records";
import type { ForkOptions, SessionInfo, StoredSession } from "./store";

/** One line a writer appends: a record (moves the session's last record) or a note (does not). */
export type TranscriptEntry = TranscriptRecord | TranscriptNote;

/** What `forkRecords()` made: the new session and its copied records. */
export interface ForkedSession {
  sessionId: string;
  records: TranscriptRecord[];
  /** Where the fork is kept (a file; `<backend>:<id>` for a database). */
  path: string;
}

/** Options of `list()`. */
export interface ListOptions {
  /** Only the sessions of this working directory [every project's]. */
  cwd?: string;
  /** At most this many [all]. */
  limit?: number;
}

/**
 * A session store. Every method but `appender()` is async. Implementations keep the JSONL
 * store's behaviour: newest first in `list()`, `get()` undefined for an unknown id, `fork()`
 * remapping every uuid, `delete()` false when there was nothing.
 */
export interface SessionBackend {
  /** What kind of store (`jsonl`, `postgres`), for messages. */
  readonly kind: string;
  /** Where it keeps sessions, for messages: a folder, or a database without its password. */
  readonly location: string;
  /** Sessions, newest first: those of `cwd` only when given, at most `limit`. */
  list(options?: ListOptions): Promise<SessionInfo[]>;
  /** One session with its records, or undefined. `near` (a cwd) is where to look first. */
  get(sessionId: string, near?: string): Promise<StoredSession | undefined>;
  /** Copy a session (up to `upToUuid`, inclusive) into a new one; returns the new id. */
  fork(sessionId: string, options?: ForkOptions): Promise<string>;
  /** `fork()`, also returning the copied records. */
  forkRecords(sessionId: string, options?: ForkOptions): Promise<ForkedSession>;
  /** Delete a session; false when there was none. */
  delete(sessionId: string): Promise<boolean>;
  /** True when a session with this id is stored (a new session under a chosen id must not join it). */
  exists(sessionId: string, cwd: string): Promise<boolean>;
  /** Where a session of `cwd` is (or would be) kept: a file, or `<kind>:<id>`. */
  pathFor(sessionId: string, cwd: string): string;
  /** A writer's handle on one session (opened lazily: nothing is created before the first append). */
  appender(sessionId: string, cwd: string, path?: string): SessionAppender;
  /**
   * True when two runs may append to one session at once and the store refuses the stale one
   * (a database); false when the sessions plugin must keep a second writer out with a lock and
   * fork instead (files). [false]
   */
  readonly refusesStaleWriters?: boolean;
  /** Release connections (a CLI command calls this before it exits). */
  close?(): Promise<void>;
}

/** One writer's handle on one session. */
export interface SessionAppender {
  /** Where the session is kept, for messages. */
  readonly path: string;
  /** The uuid of the session's last record now; null for a new or empty session. */
  last(): Promise<string | null>;
  /**
   * Append `entry` only if the session's last record is still `expectedLast` (null: the session
   * has no record yet); otherwise write nothing and reject with a `StaleWriterError`. A note is
   * checked the same way but does not become the last record. Appends issued one after another
   * (without awaiting) are applied in that order; once one fails or is refused, every later one is
   * refused too (nothing is stored after a gap: a lost note would not move the last record the
   * next append is checked against).
   */
  append(entry: TranscriptEntry, expectedLast: string | null): Promise<void>;
  /** Close the handle (later appends reopen it). */
  close(): Promise<void>;
}

/**
 * Another writer appended to the session since this one last did: this writer's view of the
 * conversation is stale, and appending would fork the chain. The run stops (result subtype
 * `error_stale_writer`); nothing of it is written after the refusal.
 */
export class StaleWriterError extends UbiquityError {
  override name = "StaleWriterError";
  constructor(
    /** The session. */
    readonly sessionId: string,
    /** The last record this writer expected. */
    readonly expected: string | null,
    /** The session's actual last record (undefined when the store cannot tell). */
    readonly actual: string | null | undefined,
    /** Where the session is kept. */
    readonly path: string,
  ) {
    super(
      `session ${sessionId} (${path}) was written by another run: this run expected its last record to be ${expected ?? "none (a new session)"}` +
        `${actual !== undefined ? `, but it is ${actual ?? "none"}` : ""}, so this run stopped instead of forking the conversation. ` +
        `Only one run may write a session at a time: resume it again (ubiquity run --resume ${sessionId}) to continue from what was stored, or fork it (--fork-session)`,
    );
  }
}

/** True for a `StaleWriterError` (also one from another copy of the package). */
export function isStaleWriterError(error: unknown): error is StaleWriterError {
  return error instanceof StaleWriterError || (error instanceof Error && error.name === "StaleWriterError");
}
