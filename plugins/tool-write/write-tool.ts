import { createHash } from "node:crypto";
import { z } from "zod";
import type { ToolContext, ToolOutput } from "../../src/index";
import { PathTool, writeRefusal, commitWrite, openWriteTarget, splitLines, guard } from "../_kits/file-tools/index";

/** Input of the Write tool. */
export const WriteInput = z.object({
  file_path: z.string().min(1),
  content: z.string(),
});

// Under 1 KB with its parameters (`npm run bench request-bytes`): read-before-write and what an
// overwrite keeps (a new file needs no read: the rule names existing files); a refusal explains
// itself, so the description does not. That the write is atomic changes nothing a model decides,
// so it is left to the docs.
const DESCRIPTION = `Writes a whole file, creating missing parent folders.
- An existing file must have been read in full in this run and be unchanged since.
- An existing file keeps its line endings and byte-order mark; write "\\n" line breaks.`;

/** Write: create or replace a whole file, atomically, under read-before-write. */
export class WriteTool extends PathTool<typeof WriteInput> {
  readonly name = "Write";
  override readonly kind = "edit" as const;
  readonly description = DESCRIPTION;
  readonly inputSchema = WriteInput;

  protected pathOf(input: z.output<typeof WriteInput>) {
    return input.file_path;
  }

  /** Read-before-write, checked before anyone is asked: an overwrite that would be refused is never put to the user. */
  override preconditions(input: z.output<typeof WriteInput>, ctx: ToolContext): Promise<string | undefined> {
    return writeRefusal(ctx, input.file_path);
  }

  async call(input: z.output<typeof WriteInput>, ctx: ToolContext): Promise<ToolOutput> {
    return guard(async () => {
      const target = await openWriteTarget(ctx, input.file_path);
      const bytes = await commitWrite(ctx, target, input.content);
      const lines = splitLines(input.content).length;
      const verb = target.existing ? "Updated" : "Created";
      return {
        content: `${verb} ${target.shown} (${lines} line${lines === 1 ? "" : "s"}).`,
        // sha256: what was written, so the sandbox can tell it from a later change by a process (sandbox/guard.ts).
        metadata: {
          path: target.real,
          created: !target.existing,
          bytes: bytes.length,
          lines,
          sha256: createHash("sha256").update(bytes).digest("hex"),
        },
      };
    });
  }
}
