/**
 * The part of Write and Edit that is the same: find the file, refuse what may not be
 * overwritten, and write the result atomically while keeping the file's conventions.
 */
import { stat } from "node:fs/promises";
import type { ToolContext } from "../../../src/index";
import { hostBytes, hostWrite } from "./host-files";
import { resolvePermitted } from "./paths";
import { assertReadInFull, readStateOf, recordWrite } from "./read-state";
import { decodeText, encodeText, withLineEnding, type TextFile } from "./text-file";
import { ToolFailure } from "./tool-failure";

/** A file about to be written: where it is and, when it exists, what it holds now. */
export interface WriteTarget {
  /** Fully resolved path: writes go through symlinks to the real file. */
  real: string;
  /** The path as the model wrote it, for messages. */
  shown: string;
  /** The current content, when the file exists (already checked against the read state). */
  existing?: TextFile;
}

/**
 * Resolve `path` for writing: inside the roots, not a directory, and, when it exists, read in
 * full in this run and unchanged since.
 */
export async function openWriteTarget(ctx: ToolContext, path: string): Promise<WriteTarget> {
  const { real } = await resolvePermitted(ctx, path);
  const shown = path;
  const info = await stat(real).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (!info) return { real, shown };
  if (info.isDirectory()) throw new ToolFailure(`${shown} is a directory; give the path of a file.`);
  if (!info.isFile()) throw new ToolFailure(`${shown} is not a regular file (a device, socket or pipe); only regular files can be written.`);
  const bytes = await hostBytes(ctx, real);
  assertReadInFull(readStateOf(ctx), real, shown, { size: bytes.length, mtimeMs: info.mtimeMs, bytes });
  return { real, shown, existing: decodeText(bytes) };
}

/**
 * Write `text` to the target atomically. An existing file keeps its BOM and, unless the caller
 * already produced them (`convertLineEndings: false`), its line endings; the write then counts
 * as a full read. Returns the bytes written.
 */
export async function commitWrite(ctx: ToolContext, target: WriteTarget, text: string, convertLineEndings = true): Promise<Buffer> {
  const existing = target.existing;
  // A file without any line break has no convention to keep: write what was given.
  const convert = convertLineEndings && existing !== undefined && existing.text.includes("\n");
  const keep = convert ? withLineEnding(text, existing.eol) : text;
  const bytes = encodeText(keep, existing?.bom ?? false);
  await hostWrite(ctx, target.real, bytes);
  // A host may keep a new file in its buffer until it is saved.
  const after = await stat(target.real).catch(() => undefined);
  recordWrite(readStateOf(ctx), target.real, bytes, after?.mtimeMs ?? Date.now());
  return bytes;
}
