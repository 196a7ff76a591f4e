/**
 * Reading one memory file safely: only a regular file is opened (a FIFO would block the run
 * forever, a device never ends, a socket cannot be read), it is opened without following a
 * symlink swapped in since it was resolved, and at most `maxBytes` are read through the handle,
 * so a 50 MB file costs no more than a small one. Bytes with a NUL in them are not text, and
 * neither are bytes that are not valid UTF-8.
 */
import { constants } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import type { Stats } from "node:fs";

/** What reading gave: the text, or why the file was refused. */
export type ReadResult = { ok: true; text: string; size: number; truncated: boolean } | { ok: false; problem: string };

// O_NONBLOCK: should a FIFO be swapped in after the stat, opening it still returns at once.
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** What kind of file `info` is, in words, when it is not a regular file. */
function notRegular(info: Stats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isDirectory()) return "it is a folder";
  if (info.isFIFO()) return "it is a named pipe (FIFO)";
  if (info.isSocket()) return "it is a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "it is a device";
  return "it is not a regular file";
}

/** Read the first `maxBytes` of the regular text file at `realPath` (symlinks already resolved). */
export async function readMemoryText(realPath: string, maxBytes: number): Promise<ReadResult> {
  let before: Stats;
  try {
    before = await stat(realPath);
  } catch (error) {
    return { ok: false, problem: `it could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  const kind = notRegular(before);
  if (kind) return { ok: false, problem: `${kind}; only regular text files are read` };
  let handle: FileHandle;
  try {
    handle = await open(realPath, FLAGS);
  } catch (error) {
    return { ok: false, problem: `it could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  try {
    const info = await handle.stat();
    const swapped =
      notRegular(info) ??
      (info.ino !== before.ino || info.dev !== before.dev ? "it was replaced while being opened" : undefined);
    if (swapped) return { ok: false, problem: `${swapped}; only regular text files are read` };
    const buffer = Buffer.alloc(Math.min(maxBytes, info.size));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const bytes = buffer.subarray(0, filled);
    if (bytes.includes(0)) return { ok: false, problem: "it is not a text file (it contains NUL bytes)" };
    const truncated = filled < info.size;
    let text: string;
    try {
      // Fatal: bytes that are not UTF-8 would reach the prompt as U+FFFD. Streaming drops a
      // multi-byte character split at the cap instead of calling it invalid.
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: truncated });
    } catch {
      return { ok: false, problem: "it is not valid UTF-8 text; save it as UTF-8 to use it" };
    }
    return { ok: true, text, size: info.size, truncated };
  } catch (error) {
    return { ok: false, problem: `it could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  } finally {
    await handle.close();
  }
}
