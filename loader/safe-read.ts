/**
 * Reading a file that someone else may have planted: only regular files are opened for their
 * content (a FIFO would block the run forever, a device never ends), and the size is checked on
 * the open handle before a byte is read. Used for config, settings and the trust store.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { createRequire } from "node:module";
import { extname } from "node:path";

/** What reading one file gave. */
export type RegularFileRead =
  | { ok: true; text: string }
  | { ok: false; missing: true }
  | { ok: false; missing: false; problem: string };

/** What kind of thing `stats` describes, for messages ("a FIFO", "a folder"). */
export function describeFileKind(stats: Stats): string {
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a regular file";
}

/** What a failed open means: absent, or a problem to report. */
function openFailure(error: unknown): RegularFileRead {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, missing: true };
  if (code === "ENXIO") return { ok: false, missing: false, problem: "it is a socket, not a regular file" };
  return { ok: false, missing: false, problem: `it could not be opened (${code ?? String(error)})` };
}

/** Why an opened file is not read (not regular, too large), or undefined when it may be. */
function refusal(stats: Stats, maxBytes: number): RegularFileRead | undefined {
  if (!stats.isFile())
    return { ok: false, missing: false, problem: `it is ${describeFileKind(stats)}, not a regular file` };
  if (stats.size > maxBytes)
    return { ok: false, missing: false, problem: `it is ${stats.size} bytes, over the ${maxBytes}-byte limit` };
  return undefined;
}

const readFailure = (error: unknown): RegularFileRead => ({
  ok: false,
  missing: false,
  problem: `it could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
});

/** The flags every open uses. O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * Read `path` as UTF-8 (a BOM is dropped) when it is a regular file of at most `maxBytes`.
 * Symlinks are followed; the check is made on the opened file, so swapping the file between a
 * check and the read cannot slip a FIFO past it.
 */
export function readRegularFileSync(path: string, maxBytes: number): RegularFileRead {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    return openFailure(error);
  }
  try {
    const refused = refusal(fstatSync(fd), maxBytes);
    if (refused) return refused;
    return { ok: true, text: readFileSync(fd, "utf8").replace(/^\uFEFF/, "") };
  } catch (error) {
    return readFailure(error);
  } finally {
    closeSync(fd);
  }
}

/**
 * The bytes of `path` when it is a regular file of at most `maxBytes`, else undefined (absent, a
 * FIFO, a device, a folder, too large, unreadable): never blocks on what a sandboxed command
 * planted in the workspace (a FIFO named `.git/index` froze the host's sweep; red team y, Y5).
 */
export function readRegularBytesSync(path: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    return refusal(fstatSync(fd), maxBytes) ? undefined : readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A JSON parse error with the line and column of `text` where it happened, when Node says where. */
export function describeJsonError(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/line \d+ column \d+/.test(message)) return message;
  const at = /position (\d+)/.exec(message);
  if (!at) return message;
  const before = text.slice(0, Number(at[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `${message} (line ${line} column ${column})`;
}

/** `readRegularFileSync` without blocking the event loop while a large file (a transcript) is read. */
export async function readRegularFile(path: string, maxBytes: number): Promise<RegularFileRead> {
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    return openFailure(error);
  }
  try {
    const refused = refusal(await handle.stat(), maxBytes);
    if (refused) return refused;
    return { ok: true, text: (await handle.readFile("utf8")).replace(/^\uFEFF/, "") };
  } catch (error) {
    return readFailure(error);
  } finally {
    await handle.close();
  }
}

const MAX_PEEK_BYTES = 1024 * 1024;

/** A regular JSON or YAML file's data (1 MiB at most), or undefined when it cannot be read or parsed. */
export function peekJsonOrYaml(file: string): unknown {
  const read = readRegularFileSync(file, MAX_PEEK_BYTES);
  if (!read.ok) return undefined;
  try {
    // yaml loads only when there is a YAML file to read (cold start).
    return extname(file) === ".json" || file.endsWith("package.json")
      ? JSON.parse(read.text)
      : (createRequire(import.meta.url)("yaml") as typeof import("yaml")).parse(read.text);
  } catch {
    return undefined;
  }
}
