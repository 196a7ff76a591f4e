/**
 * apply_patch's writes: each operation checked against the disk and computed before the first
 * byte is written, then written, and rolled back whole when one write fails. Loaded by the
 * tool's first call (apply-patch-tool.ts).
 */
import type { ToolContext, ToolOutput } from "../../src/index";
import {
  ToolFailure,
  commitWrite,
  contentHash,
  encodeText,
  openWriteTarget,
  readJudged,
  readStateOf,
  removeJudged,
  resolvePermitted,
  writeJudged,
  type WriteTarget,
} from "../_kits/file-tools/index";
import { applyHunks, HunkMismatch } from "./apply-hunks";
import { missingFile, type PatchOp } from "./parse";

/** A file operation checked and computed, ready to write. */
interface Planned {
  op: PatchOp;
  target: WriteTarget;
  /** The new content (add, update). */
  text?: string;
  /** For a move: where the content goes. */
  destination?: WriteTarget;
}

/** What was done, to undo it if a later write fails. */
type Undo = { real: string; shown: string; bytes?: Buffer };

/** Apply the parsed operations, all or nothing; the tool's output. */
export async function applyOps(ctx: ToolContext, ops: readonly PatchOp[]): Promise<ToolOutput> {
  // Everything is checked and computed before the first byte is written.
  const plan: Planned[] = [];
  for (const op of ops) plan.push(await prepare(ctx, op));
  const done: Undo[] = [];
  const summary: string[] = [];
  const files: { path: string; action: string; sha256?: string }[] = [];
  try {
    for (const step of plan) await perform(ctx, step, done, summary, files);
  } catch (error) {
    await rollBack(ctx, done);
    if (error instanceof ToolFailure)
      throw new ToolFailure(`${error.message} The patch was rolled back: no file was changed.`);
    throw error;
  }
  return { content: `Applied the patch:\n${summary.join("\n")}`, metadata: { files } };
}

/** Check one operation against the disk and compute its result; throws a ToolFailure naming the fix. */
async function prepare(ctx: ToolContext, op: PatchOp): Promise<Planned> {
  if (op.kind === "add") {
    await refuseExisting(
      ctx,
      op.path,
      `${op.path} already exists, so "*** Add File:" would overwrite it. Change it with "*** Update File:" (after reading it), or pick a new path.`,
    );
    return { op, target: await openWriteTarget(ctx, op.path), text: op.content };
  }
  const target = await openWriteTarget(ctx, op.path);
  if (!target.existing) throw new ToolFailure(missingFile(op.path, op.kind));
  if (op.kind === "delete") return { op, target };
  let text: string;
  try {
    // Hunks are matched on "\n" lines; commitWrite restores the file's own line endings.
    text = applyHunks(target.existing.text.replace(/\r\n/g, "\n"), op.hunks, op.path);
  } catch (error) {
    if (error instanceof HunkMismatch) throw new ToolFailure(`The patch was not applied: ${error.message}`);
    throw error;
  }
  if (op.moveTo === undefined || op.moveTo === op.path) return { op, target, text };
  await refuseExisting(
    ctx,
    op.moveTo,
    `"*** Move to: ${op.moveTo}": that file already exists. Move to a new path, or delete it first in its own patch.`,
  );
  const destination = await openWriteTarget(ctx, op.moveTo);
  return { op, target, text, destination: { ...destination, existing: target.existing } };
}

async function refuseExisting(ctx: ToolContext, path: string, message: string): Promise<void> {
  const { real } = await resolvePermitted(ctx, path);
  if (await readJudged(real, path)) throw new ToolFailure(message);
}

/** Write one planned operation, noting how to undo it. */
async function perform(
  ctx: ToolContext,
  step: Planned,
  done: Undo[],
  summary: string[],
  files: { path: string; action: string; sha256?: string }[],
): Promise<void> {
  const { op, target } = step;
  const previous = target.existing ? encodeText(target.existing.text, target.existing.bom) : undefined;
  if (op.kind === "delete") {
    await removeJudged(target.real, target.shown);
    done.push({ real: target.real, shown: target.shown, bytes: previous });
    readStateOf(ctx).delete(target.real);
    summary.push(`D ${op.path}`);
    files.push({ path: target.real, action: "delete" });
    return;
  }
  if (step.destination) {
    const bytes = await commitWrite(ctx, step.destination, step.text!);
    done.push({ real: step.destination.real, shown: step.destination.shown });
    await removeJudged(target.real, target.shown);
    done.push({ real: target.real, shown: target.shown, bytes: previous });
    readStateOf(ctx).delete(target.real);
    summary.push(`R ${op.path} -> ${step.destination.shown}`);
    files.push({ path: step.destination.real, action: "move", sha256: contentHash(bytes) });
    return;
  }
  const bytes = await commitWrite(ctx, target, step.text!);
  done.push({ real: target.real, shown: target.shown, bytes: previous });
  summary.push(`${op.kind === "add" ? "A" : "M"} ${op.path}`);
  files.push({ path: target.real, action: op.kind, sha256: contentHash(bytes) });
}

/** Undo what was written, newest first: restore old bytes, remove what was created. */
async function rollBack(ctx: ToolContext, done: Undo[]): Promise<void> {
  const state = readStateOf(ctx);
  for (const undo of done.reverse()) {
    try {
      if (undo.bytes) await writeJudged(undo.real, undo.bytes, undo.shown);
      else await removeJudged(undo.real, undo.shown);
    } catch (error) {
      ctx.logger.error(`apply_patch: could not roll back ${undo.shown}:`, error);
    }
    // What the model read is no longer what the disk holds: it must read again.
    state.delete(undo.real);
  }
}
