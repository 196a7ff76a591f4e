import { z } from "zod";
import { Tool, type ToolContext, type ToolOutput } from "../../src/index";
import { ToolFailure, guard, outsideRoots, writeRefusal } from "../_kits/file-tools/index";
import { lazyImport } from "../_kits/lazy/index";
import { missingFile, parsePatch, PatchSyntaxError, type PatchOp } from "./parse";

// What a call does once the patch is parsed (the hunks matched, the files written, a failed
// write rolled back) loads with the first call.
const patchCode = lazyImport(() => import("./apply-patch-call"));

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
      return (await patchCode()).applyOps(ctx, ops);
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
