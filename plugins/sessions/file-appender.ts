/**
 * The JSONL store's `SessionAppender`: one transcript file, appended a line at a time. Each
 * append finds the file's last record and refuses when another writer appended since, holding a
 * per-append lock (append-lock.ts) so that the check and the write are one step for every process
 * on this host. The last record is read back from the tail unless the file still has the size
 * this appender's own last write left (one `fstat`): the file only grows, so an unchanged size
 * means nobody appended since, and the record is the one written then (three reads and a parse
 * fewer per append: ~4% of a long run's CPU). The run-long lock (lock.ts) is what
 * keeps a second run out in the first place (it forks instead); this catches a writer that got
 * past it. Writers on two hosts sharing a folder are not covered: use the Postgres store.
 */
import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { SessionAppender, TranscriptEntry } from "./backend";
import { StaleWriterError } from "./backend";
import { withAppendLock } from "./append-lock";
import { JsonlAppender } from "./jsonl";
import { isRecord, withRole } from "./records";

// Records are written `uuid` first (writer.ts), so a line's head names its record.
const RECORD_HEAD = /^\{"uuid":"((?:[^"\\]|\\.)*)"/;
const NOTE_HEAD = /^\{"type":"note"/;

/** The last record's uuid among the file's lines (notes skipped); null when there is none. */
function lastRecordUuid(file: JsonlAppender): string | null {
  for (const line of file.linesFromEnd()) {
    const head = RECORD_HEAD.exec(line.head);
    if (head) return JSON.parse(`"${head[1]}"`) as string;
    if (NOTE_HEAD.test(line.head)) continue;
    try {
      const value: unknown = JSON.parse(line.text());
      if (isRecord(value)) return value.uuid;
    } catch {
      // a corrupt line: readers skip it too
    }
  }
  return null;
}

/** Appends to one transcript file, refusing a writer whose expected last record is not the file's. */
export class FileAppender implements SessionAppender {
  #file: JsonlAppender;
  /**
   * The first append that failed or was refused: later appends are refused with the same error.
   * The writer issues its appends without waiting, so the next is on its way already; a note does
   * not move the last record the check compares, so without this a record would be stored after
   * a lost note (an append lock held too long, say).
   */
  #broken: unknown;
  /** The file's size after this appender's last write, and its last record then. */
  #known: { size: number; last: string | null } | undefined;

  constructor(
    private readonly sessionId: string,
    readonly path: string,
  ) {
    this.#file = new JsonlAppender(path);
  }

  async last(): Promise<string | null> {
    if (!this.#file.isOpen && !statSync(this.path, { throwIfNoEntry: false })?.isFile()) return null;
    // Opening cuts a torn tail, as the first append would: under the lock, or another writer's
    // line still being written (the size grows a page at a time) would look torn and be cut.
    return withAppendLock(this.path, () => {
      this.#file.open();
      return lastRecordUuid(this.#file);
    });
  }

  /** Synchronous underneath: the line is written (or refused) before this returns. */
  append(entry: TranscriptEntry, expectedLast: string | null): Promise<void> {
    try {
      if (this.#broken !== undefined) throw this.#broken;
      if (!this.#file.isOpen) mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      withAppendLock(this.path, () => {
        if (!this.#file.isOpen) this.#file.open();
        const size = this.#file.size();
        const actual = this.#known?.size === size ? this.#known.last : lastRecordUuid(this.#file);
        if (actual !== expectedLast) throw new StaleWriterError(this.sessionId, expectedLast, actual, this.path);
        const written = this.#file.append(withRole(entry));
        // A note does not move the last record (readers and the check skip notes).
        this.#known = { size: size + written, last: entry.type === "note" ? actual : entry.uuid };
      });
      return Promise.resolve();
    } catch (error) {
      this.#broken ??= error;
      return Promise.reject(error);
    }
  }

  async close(): Promise<void> {
    this.#known = undefined;
    this.#file.close();
  }
}
