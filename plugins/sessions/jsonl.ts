/**
 * Crash-safe JSONL: each record and its newline go out in ONE write call, so a crash (even
 * SIGKILL in the middle of a large write) leaves at most one torn last line. The appender cuts
 * a torn tail before its first append — otherwise the next record would be glued onto the torn
 * one and both lost — and the parser skips any line that does not parse.
 */
import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";

const CHUNK = 64 * 1024;
const FIRST_CHUNK = 4 * 1024;
const NEWLINE = 0x0a;
/** How much of a line `linesFromEnd()` reads up front. */
const HEAD = 256;

/** What `parseJsonl` found. */
export interface ParsedJsonl {
  /** Every line that parses, in order. */
  values: unknown[];
  /** The 1-based line number of each value. */
  lines: number[];
  /** Lines that did not parse. */
  skipped: number;
  /** 1-based numbers of the skipped lines that ended with a newline (corruption, not a torn tail). */
  corrupt: number[];
}

/** Parse JSONL text: every line that parses, in order, and which lines were skipped. */
export function parseJsonl(text: string): ParsedJsonl {
  const values: unknown[] = [];
  const lines: number[] = [];
  const corrupt: number[] = [];
  let skipped = 0;
  const split = text.split("\n");
  split.forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      values.push(JSON.parse(line));
      lines.push(i + 1);
    } catch {
      skipped++;
      // The last piece has no newline after it: a write torn by a crash, expected and cut on append.
      if (i < split.length - 1) corrupt.push(i + 1);
    }
  });
  return { values, lines, skipped, corrupt };
}

// One buffer for every backwards scan (they are synchronous): a fresh 64 KiB one per call was
// two or three per append, outside the heap, and each read filled all of it for a short line.
let scanBuffer: Buffer | undefined;

/**
 * Index of the last newline in bytes `[0, end)` of the file, or -1; scans backwards in chunks,
 * the first one small (a record's line is usually a few hundred bytes), then `CHUNK`s.
 */
function lastNewlineBefore(fd: number, end: number): number {
  const buffer = (scanBuffer ??= Buffer.allocUnsafe(CHUNK));
  for (let stop = end, size = FIRST_CHUNK; stop > 0; size = CHUNK) {
    const start = Math.max(0, stop - size);
    const read = readSync(fd, buffer, 0, stop - start, start);
    const at = buffer.subarray(0, read).lastIndexOf(NEWLINE);
    if (at >= 0) return start + at;
    stop = start;
  }
  return -1;
}

function readRange(fd: number, start: number, end: number): string {
  const buffer = Buffer.alloc(end - start);
  let done = 0;
  while (done < buffer.length) {
    const n = readSync(fd, buffer, done, buffer.length - done, start + done);
    if (n === 0) break;
    done += n;
  }
  return buffer.subarray(0, done).toString("utf8");
}

/** An append-only JSONL file, opened lazily and kept open until `close()`. */
export class JsonlAppender {
  #fd: number | undefined;
  /** Set after a failed write: the tail may be torn and must be cut before the next append. */
  #dirty = false;

  constructor(readonly path: string) {}

  /**
   * Open (creating folders and the file), cut a torn tail, and return the last complete
   * record that parses (so a resumed transcript can chain onto it), or undefined.
   */
  open(): unknown {
    if (this.#fd === undefined) {
      // A transcript holds what the run read and ran (a file's text, a server's answer): the
      // user's alone, as their keys are (a folder made for it 0700, the file 0600).
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      this.#fd = openSync(this.path, "a+", 0o600);
    }
    return this.#repair();
  }

  /** Append one value as one line, with a single write of record + newline; returns the bytes written. */
  append(value: unknown): number {
    if (this.#fd === undefined) this.open();
    else if (this.#dirty) this.#repair();
    const bytes = Buffer.from(`${JSON.stringify(value)}\n`, "utf8");
    try {
      // One call; the loop only continues after a short write (a full disk), which leaves
      // the file dirty so the next append repairs the tail first.
      let done = writeSync(this.#fd!, bytes);
      while (done < bytes.length) {
        this.#dirty = true;
        done += writeSync(this.#fd!, bytes, done);
      }
      this.#dirty = false;
      return bytes.length;
    } catch (error) {
      this.#dirty = true;
      // Cut the torn line now (shrinking works on a full disk): the writer may never append again,
      // and the file should end on its last whole record.
      try {
        this.#repair();
      } catch {
        // left dirty: the next append (or open) repairs it
      }
      throw error;
    }
  }

  /** The open file's size in bytes. */
  size(): number {
    return fstatSync(this.#fd!).size;
  }

  /** True while the file is open. */
  get isOpen(): boolean {
    return this.#fd !== undefined;
  }

  /**
   * The complete lines of the open file from the last backwards, at most `max`: each as its first
   * `HEAD` characters and a way to read it whole (a checkpoint line can be megabytes; most
   * callers need its start only). A torn last line is not yielded.
   */
  *linesFromEnd(max = 64): Generator<{ head: string; text: () => string }> {
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    const size = fstatSync(fd).size;
    let end = size > 0 && readRange(fd, size - 1, size) === "\n" ? size - 1 : lastNewlineBefore(fd, size);
    for (let n = 0; end > 0 && n < max; n++) {
      const start = lastNewlineBefore(fd, end) + 1;
      const stop = end;
      if (stop > start)
        yield { head: readRange(fd, start, Math.min(stop, start + HEAD)), text: () => readRange(fd, start, stop) };
      end = start - 1;
    }
  }

  /** Close the file (later appends reopen it). */
  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  #repair(): unknown {
    const fd = this.#fd!;
    let size = fstatSync(fd).size;
    if (size > 0 && readRange(fd, size - 1, size) !== "\n") {
      size = lastNewlineBefore(fd, size) + 1;
      ftruncateSync(fd, size);
    }
    this.#dirty = false;
    // The last complete line that parses (a corrupt line in the middle is skipped by readers too).
    for (let end = size - 1, tries = 0; end > 0 && tries < 8; tries++) {
      const start = lastNewlineBefore(fd, end) + 1;
      try {
        return JSON.parse(readRange(fd, start, end));
      } catch {
        end = start - 1;
      }
    }
    return undefined;
  }
}
