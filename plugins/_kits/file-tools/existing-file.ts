/**
 * The part of Write and Edit that is the same: find the file, refuse what may not be
 * overwritten, and write the result atomically while keeping the file's conventions. The file
 * read and written is the one the permission engine judged (see judged-file.ts).
 */
import { stat } from "node:fs/promises";
import type { ToolContext } from "../../../src/index";
import { hostBytes, hostFilesOf } from "./host-files";
import { readJudged, writeJudged } from "./judged-file";
import { assertAsJudged, displayPath, resolvePermitted } from "./paths";
import { assertReadInFull, readStateOf, recordWrite } from "./read-state";
import { decodeText, encodeText, withLineEnding, type TextFile } from "./text-file";
import { ToolFailure } from "./tool-failure";

/** A file about to be written: where it is and, when it exists, what it holds now. */
export interface WriteTarget {
  /** Fully resolved path, as judged: writes go through symlinks to the real file. */
  real: string;
  /** The path as the model wrote it, for messages. */
  shown: string;
  /** The current content, when the file exists (already checked against the read state). */
  existing?: TextFile;
}

/**
 * Resolve `path` for writing: inside the roots, where the permission engine judged it to lead
 * (when it judged this call), not a directory, and, when it exists, read in full in this run and
 * unchanged since.
 */
export async function openWriteTarget(ctx: ToolContext, path: string): Promise<WriteTarget> {
  const { absolute, real } = await resolvePermitted(ctx, path);
  // Relative to the cwd when inside it, as Glob and Grep show paths: the results stay in every later request.
  const shown = displayPath(ctx.cwd, absolute);
  assertAsJudged(ctx, absolute, real, shown, "written");
  const disk = await readJudged(real, shown);
  if (!disk) return { real, shown };
  const bytes = await hostBytes(ctx, real, disk.bytes);
  assertReadInFull(readStateOf(ctx), real, shown, { size: bytes.length, mtimeMs: disk.info.mtimeMs, bytes });
  return { real, shown, existing: decodeText(bytes) };
}

/**
 * For Write's and Edit's `preconditions`: the refusal of a write the tool would refuse anyway —
 * an existing file not read in full (or changed since), a missing file when `missing` says it
 * must exist — so nobody is asked to approve a call that cannot run. Reads the disk only. `call`
 * checks again (the file may change, a hook may rewrite the input); anything else is left for it.
 */
export async function writeRefusal(ctx: ToolContext, path: string, missing?: string): Promise<string | undefined> {
  try {
    const { real } = await resolvePermitted(ctx, path);
    const disk = await readJudged(real, path);
    if (!disk) return missing;
    const state = readStateOf(ctx);
    // An editor's buffer is read only by an approved call: with one, only whether the file was
    // read in full is checked here, its content in `call`.
    const record = state.get(real);
    const now =
      hostFilesOf(ctx)?.readText && record
        ? { size: record.size, mtimeMs: record.mtimeMs }
        : { size: disk.bytes.length, mtimeMs: disk.info.mtimeMs, bytes: disk.bytes };
    assertReadInFull(state, real, path, now);
    return undefined;
  } catch (error) {
    return error instanceof ToolFailure ? error.message : undefined;
  }
}

/**
 * Write `text` to the target atomically. An existing file keeps its BOM and, unless the caller
 * already produced them (`convertLineEndings: false`), its line endings; the write then counts
 * as a full read. Returns the bytes written.
 */
export async function commitWrite(
  ctx: ToolContext,
  target: WriteTarget,
  text: string,
  convertLineEndings = true,
): Promise<Buffer> {
  const existing = target.existing;
  // A file without any line break has no convention to keep: write what was given.
  const convert = convertLineEndings && existing?.text.includes("\n");
  const keep = convert && existing ? withLineEnding(text, existing.eol) : text;
  const bytes = encodeText(keep, existing?.bom ?? false);
  const host = hostFilesOf(ctx)?.writeText;
  let mtimeMs: number | undefined;
  if (host) {
    await host(target.real, bytes.toString("utf8"), ctx.abortSignal);
    // A host may keep a new file in its buffer until it is saved.
    mtimeMs = (await stat(target.real).catch(() => undefined))?.mtimeMs;
  } else {
    mtimeMs = (await writeJudged(target.real, bytes, target.shown)).mtimeMs;
  }
  recordWrite(readStateOf(ctx), target.real, bytes, mtimeMs ?? Date.now());
  return bytes;
}
