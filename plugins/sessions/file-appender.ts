/**
 * The JSONL store's `SessionAppender`: one transcript file, appended a line at a time. Before each
 * append it reads the file's last record back (one `fstat` and a read of the tail) and refuses
 * when another writer appended since: cheap, and enough to stop a writer that lost its lock or a
 * second host's writer once it sees the other's record — but the read and the write are two
 * calls, so two writers racing within that window can still both append (measured in
 * test/sessions/concurrent-writers.test.ts). The lock (lock.ts) is what keeps a second writer out.
 */
import { statSync } from "node:fs";
import type { SessionAppender, TranscriptEntry } from "./backend";
import { StaleWriterError } from "./backend";
import { JsonlAppender } from "./jsonl";
import { isRecord } from "./records";

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
  /** After a failed write the writer stops; later appends are refused with the same error. */
  #broken: unknown;

  constructor(
    private readonly sessionId: string,
    readonly path: string,
  ) {
    this.#file = new JsonlAppender(path);
  }

  async last(): Promise<string | null> {
    if (!this.#file.isOpen && !statSync(this.path, { throwIfNoEntry: false })?.isFile()) return null;
    // Opening cuts a torn tail, as the first append would.
    this.#file.open();
    return lastRecordUuid(this.#file);
  }

  /** Synchronous underneath: the line is written (or refused) before this returns. */
  append(entry: TranscriptEntry, expectedLast: string | null): Promise<void> {
    try {
      if (this.#broken !== undefined) throw this.#broken;
      if (!this.#file.isOpen) this.#file.open();
      const actual = lastRecordUuid(this.#file);
      if (actual !== expectedLast) throw new StaleWriterError(this.sessionId, expectedLast, actual, this.path);
      try {
        this.#file.append(entry);
      } catch (error) {
        this.#broken = error;
        throw error;
      }
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async close(): Promise<void> {
    this.#file.close();
  }
}
