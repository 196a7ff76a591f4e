import { z } from "zod";
import { Tool, type ToolContext, type ToolOutput } from "../../src/index";
import {
  ToolFailure,
  commitWrite,
  contentHash,
  encodeText,
  guard,
  openWriteTarget,
  outsideRoots,
  readJudged,
  readStateOf,
  removeJudged,
  resolvePermitted,
  writeJudged,
  writeRefusal,
  type WriteTarget,
} from "../_kits/file-tools/index";
import { applyHunks, HunkMismatch } from "./apply-hunks";
import { parsePatch, PatchSyntaxError, type PatchOp } from "./parse";

/** Input of the apply_patch tool: the whole patch, as one string. */
export const ApplyPatchInput = z.object({
  input: z.string().min(1).describe('The entire patch, from "*** Begin Patch" to "*** End Patch"'),
});

const DESCRIPTION = `Edits files with a patch: creates, changes, renames and deletes files in one call, all or nothing.
The patch is a list of file operations between "*** Begin Patch" and "*** End Patch":
*** Add File: <path>        then the new file's lines, each starting with "+"
*** Delete File: <path>     nothing follows
*** Update File: <path>     optionally "*** Move to: <new path>", then one or more hunks
A hunk starts with "@@" (optionally "@@ <a line of the file, e.g. a function or class line>" to say where), then its lines: " " context, "-" removed, "+" added. Give about 3 lines of context above and below each change, copied exactly; add "*** End of File" after a hunk that ends at the end of the file.
Example:
*** Begin Patch
*** Update File: src/app.py
@@ def greet():
-    print("hello")
+    print("hi")
*** End Patch
- Paths are relative to the working directory (or absolute) and must lie inside the permitted folders.
- A file to change or delete must have been read in full in this run and not changed since; a file to add must not exist.
- If any hunk does not match, nothing is written and the error names that hunk. Line endings and byte-order marks of existing files are kept.`;

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

/** The paths a patch touches, in order (a move names both); undefined when it does not parse. */
export function patchPaths(patch: string): string[] | undefined {
  try {
    return parsePatch(patch).flatMap((op) =>
      op.kind === "update" && op.moveTo !== undefined ? [op.path, op.moveTo] : [op.path],
    );
  } catch {
    return undefined;
  }
}

/** apply_patch: the V4A patch format, applied atomically under read-before-write. */
export class ApplyPatchTool extends Tool<typeof ApplyPatchInput> {
  readonly name = "apply_patch";
  override readonly kind = "edit" as const;
  readonly description = DESCRIPTION;
  readonly inputSchema = ApplyPatchInput;

  /** Every file the patch adds, changes, moves or deletes: each must be authorized. */
  override permissionRuleContent(input: z.output<typeof ApplyPatchInput>): string[] {
    // A patch that does not parse names no file: no path rule can cover it (and validateInput refuses it).
    return patchPaths(input.input) ?? [];
  }

  /** A patch outside the grammar, or naming a file outside the roots, is refused before any vote. */
  override async validateInput(input: z.output<typeof ApplyPatchInput>, ctx: ToolContext): Promise<string | undefined> {
    let ops: PatchOp[];
    try {
      ops = parsePatch(input.input);
    } catch (error) {
      if (error instanceof PatchSyntaxError) return `The patch was not applied: ${error.message}`;
      throw error;
    }
    const twice = duplicate(ops);
    if (twice) return twice;
    for (const path of patchPaths(input.input) ?? []) {
      const outside = await outsideRoots(ctx, path);
      if (outside) return outside;
    }
    return undefined;
  }

  /** Files to change or delete exist and were read in full: checked before anyone is asked. */
  override async preconditions(input: z.output<typeof ApplyPatchInput>, ctx: ToolContext): Promise<string | undefined> {
    for (const op of safeParse(input.input)) {
      if (op.kind === "add") continue;
      const refusal = await writeRefusal(ctx, op.path, missingFile(op.path, op.kind));
      if (refusal) return refusal;
    }
    return undefined;
  }

  async call(input: z.output<typeof ApplyPatchInput>, ctx: ToolContext): Promise<ToolOutput> {
    return guard(async () => {
      let ops: PatchOp[];
      try {
        ops = parsePatch(input.input);
      } catch (error) {
        if (error instanceof PatchSyntaxError) throw new ToolFailure(`The patch was not applied: ${error.message}`);
        throw error;
      }
      const twice = duplicate(ops);
      if (twice) throw new ToolFailure(twice);
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
    });
  }
}

function safeParse(patch: string): PatchOp[] {
  try {
    return parsePatch(patch);
  } catch {
    return [];
  }
}

const missingFile = (path: string, kind: "update" | "delete") =>
  `File does not exist: ${path}. "*** ${kind === "update" ? "Update" : "Delete"} File:" needs an existing file; check the path, or create the file with "*** Add File:".`;

/** A patch naming one file in two operations is ambiguous: refused. */
function duplicate(ops: readonly PatchOp[]): string | undefined {
  const seen = new Set<string>();
  for (const op of ops) {
    for (const path of op.kind === "update" && op.moveTo !== undefined && op.moveTo !== op.path
      ? [op.path, op.moveTo]
      : [op.path]) {
      if (seen.has(path))
        return `The patch was not applied: ${path} appears in more than one file operation. Put all changes to a file in one "*** Update File:" section.`;
      seen.add(path);
    }
  }
  return undefined;
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
