import type { Stats } from "node:fs";
import { type FileHandle, stat } from "node:fs/promises";
import { z } from "zod";
import type { ToolContext, ToolOutput } from "../../src/index";
import {
  PathTool,
  hostBytes,
  binaryKind,
  imageInfo,
  looksBinary,
  resolvePermitted,
  assertAsJudged,
  openJudged,
  readStateOf,
  recordRead,
  MAX_LINE_CHARS,
  decodeText,
  numberLines,
  splitLines,
  ToolFailure,
  guard,
} from "../_kits/file-tools/index";
import { formatSize, missingFileMessage } from "./describe";
import { readLineWindow } from "./line-window";
import { imageOutput, READ_IMAGE_LIMIT_BYTES } from "./image-read";

/** The limits Read enforces (its description states the same numbers). */
export const READ_LIMITS = Object.freeze({
  /** Lines returned when no `limit` is given. */
  defaultLines: 2000,
  /** Longer lines are cut with a marker. */
  lineChars: MAX_LINE_CHARS,
  /** Bigger files can only be read in parts (offset/limit), streamed. */
  wholeFileBytes: 10 * 1024 * 1024,
});

/** Input of the Read tool. */
export const ReadInput = z.object({
  file_path: z.string().min(1),
  offset: z.number().int().nonnegative().optional().describe("First line, 1-based"),
  limit: z.number().int().positive().optional().describe("Line count"),
});

// Under 1 KB with its parameters (`npm run bench request-bytes`). It says the seed's `cat -n`
// format, the limits a model must know to read a long file whole (read-before-write depends on
// it; the file tools that write state the rule itself), and what becomes of images and binaries.
// What `cat -n` looks like (number, tab, text) is left out: models know it, and Edit's description
// says to leave the prefix out of old_string. The parameters say only what this does not (offset
// is 1-based); that a path may be relative is the system prompt's, once for every tool. Which
// folders are permitted is left to the refusal, which names them.
const DESCRIPTION = `Reads a file in \`cat -n\` format.
- At most 2,000 lines unless limit says more (a partial read says how to go on); lines over 2,000 characters are cut.
- Editing needs a full read: past 2,000 lines, set limit beyond the last line (no offset). Over 10 MB, read in parts.
- Images (PNG, JPEG, GIF, WebP; up to 5 MB) are shown if you see images, else described, as are other binaries.`;

/** Read: a text file in `cat -n` format, recording what was seen for read-before-write. */
export class ReadTool extends PathTool<typeof ReadInput> {
  readonly name = "Read";
  override readonly kind = "read" as const;
  readonly description = DESCRIPTION;
  readonly inputSchema = ReadInput;
  // Read bounds its own output by lines and reports exactly what was shown; a cut by the
  // loop would make a "full" read a lie, and read-before-write trusts it.
  override maxResultChars = Number.POSITIVE_INFINITY;

  override isReadOnly() {
    return true;
  }
  override isConcurrencySafe() {
    return true;
  }
  protected pathOf(input: z.output<typeof ReadInput>) {
    return input.file_path;
  }

  async call(input: z.output<typeof ReadInput>, ctx: ToolContext): Promise<ToolOutput> {
    return guard(() => this.#read(input, ctx));
  }

  async #read(input: z.output<typeof ReadInput>, ctx: ToolContext): Promise<ToolOutput> {
    const { absolute, real } = await resolvePermitted(ctx, input.file_path);
    const shown = input.file_path;
    const info = await stat(real).catch(async () => {
      throw new ToolFailure(await missingFileMessage(absolute, ctx.cwd));
    });
    if (info.isDirectory())
      throw new ToolFailure(`${shown} is a directory; Read opens files only. Give the path of a file inside it.`);
    if (!info.isFile())
      throw new ToolFailure(
        `${shown} is not a regular file (a device, socket or pipe); Read opens regular files only.`,
      );

    // The file opened is the file judged: where the engine found the path to lead, reached with
    // no link followed and read through one descriptor (a path opened again may lead elsewhere).
    assertAsJudged(ctx, absolute, real, shown, "read");
    const opened = await openJudged(real, shown);
    if (!opened) throw new ToolFailure(await missingFileMessage(absolute, ctx.cwd));
    try {
      return await readOpened(input, ctx, shown, real, opened.handle, opened.info);
    } finally {
      await opened.handle.close();
    }
  }
}

/** The Read of the judged file open as `handle` (its stat `info`). */
async function readOpened(
  input: z.output<typeof ReadInput>,
  ctx: ToolContext,
  shown: string,
  real: string,
  handle: FileHandle,
  info: Stats,
): Promise<ToolOutput> {
  const start = Math.max(1, input.offset ?? 1);
  const count = input.limit ?? READ_LIMITS.defaultLines;
  const windowed = input.offset !== undefined || input.limit !== undefined;
  if (info.size > READ_LIMITS.wholeFileBytes) {
    const image = imageOf(await readHead(handle, IMAGE_HEADER_BYTES));
    if (image) return imageOutput(shown, real, Buffer.alloc(0), info.size, image, ctx);
    if (!windowed) {
      throw new ToolFailure(
        `${shown} is ${formatSize(info.size)}, over the 10 MB limit for reading a whole file. Read it in parts: give offset and limit (e.g. offset=1, limit=2000).`,
      );
    }
    const head = await readHead(handle);
    if (looksBinary(head)) throw new ToolFailure(binaryMessage(shown, head, info.size));
    const window = await readLineWindow(handle, start, count);
    const total = window.total;
    if (total !== undefined && total > 0 && start > total) throw new ToolFailure(pastEnd(shown, start, total));
    const full = start === 1 && !window.more;
    recordRead(readStateOf(ctx), real, full, { size: info.size, mtimeMs: info.mtimeMs });
    return render(shown, real, window.lines, start, total, full);
  }

  const disk = await handle.readFile();
  const image = imageOf(disk);
  if (image)
    return imageOutput(
      shown,
      real,
      disk.length <= READ_IMAGE_LIMIT_BYTES ? disk : Buffer.alloc(0),
      disk.length,
      image,
      ctx,
    );
  if (looksBinary(disk)) throw new ToolFailure(binaryMessage(shown, disk, disk.length));
  const bytes = await hostBytes(ctx, real, disk);
  const lines = splitLines(decodeText(bytes).text);
  const total = lines.length;
  if (total > 0 && start > total) {
    throw new ToolFailure(pastEnd(shown, start, total));
  }
  const shownLines = lines.slice(start - 1, start - 1 + count);
  const full = start === 1 && start - 1 + shownLines.length === total;
  recordRead(readStateOf(ctx), real, full, { size: bytes.length, mtimeMs: info.mtimeMs, bytes });
  return render(shown, real, shownLines, start, total, full);
}

/** Enough of a big file to find an image's size (a JPEG's frame header may follow 64 KB of EXIF). */
const IMAGE_HEADER_BYTES = 256 * 1024;

/** The file's image format and size, when it is an image whose header gives its size (a cut or broken one is just binary). */
function imageOf(bytes: Uint8Array) {
  const image = imageInfo(bytes);
  return image?.width && image.height ? { ...image, width: image.width, height: image.height } : undefined;
}

async function readHead(handle: FileHandle, bytes = 8192): Promise<Buffer> {
  const { buffer, bytesRead } = await handle.read(Buffer.alloc(bytes), 0, bytes, 0);
  return buffer.subarray(0, bytesRead);
}

function pastEnd(shown: string, start: number, total: number): string {
  return `${shown} has ${total} lines; offset ${start} is past the end. Use an offset from 1 to ${total}.`;
}

function binaryMessage(shown: string, head: Uint8Array, size: number): string {
  return `${shown} is a binary file (${binaryKind(head)}, ${formatSize(size)}); Read shows text files only.`;
}

/** Number the lines like `cat -n`, cut overlong ones, and say how to read more when partial. */
function render(
  shown: string,
  real: string,
  lines: string[],
  start: number,
  total: number | undefined,
  full: boolean,
): ToolOutput {
  const end = start + lines.length - 1;
  const metadata = { path: real, startLine: start, endLine: end, totalLines: total ?? null, full };
  if (total === 0) return { content: `(${shown} is empty.)`, metadata };
  const body = numberLines(lines, start);
  if (full) return { content: body, metadata };
  const whole = total === undefined ? "limit past its last line" : `limit=${total}`;
  const next = end < (total ?? Number.POSITIVE_INFINITY) ? ` Continue with offset=${end + 1}.` : "";
  const of = total === undefined ? "; the file continues" : ` of ${total}`;
  return {
    content: `${body}\n\n[Partial read: lines ${start}-${end}${of}.${next} To read the whole file (needed before changing it), call Read with no offset and ${whole}.]`,
    metadata,
  };
}
