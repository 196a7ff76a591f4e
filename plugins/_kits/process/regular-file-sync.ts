/**
 * A file read by name where the name may change under the reader: opened once, without following
 * a link in its last part and without blocking on a FIFO (or a terminal), judged on what was
 * opened (a regular file, within a size), then read from that descriptor. A check by name and a
 * read by name could meet two different files: a FIFO swapped in between hangs the reader.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";

/** The text read, or why nothing was: `ENOENT`, `ELOOP` (a link), another open error's code, `not a regular file`, `too large`. */
export type RegularFileRead = { text: string; bytes: number } | { skipped: string };

/** Read `path` as one regular file of at most `maxBytes` bytes (see the module's note). */
export function readRegularFileSync(path: string, maxBytes: number): RegularFileRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    return { skipped: (error as NodeJS.ErrnoException).code ?? "unreadable" };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { skipped: "not a regular file" };
    if (stat.size > maxBytes) return { skipped: "too large" };
    const text = readFileSync(fd, "utf8");
    return { text, bytes: Buffer.byteLength(text) };
  } finally {
    closeSync(fd);
  }
}
