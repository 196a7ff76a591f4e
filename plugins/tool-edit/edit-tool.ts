import { createHash } from "node:crypto";
import { z } from "zod";
import type { ToolContext, ToolOutput } from "../../src/index";
import {
  PathTool,
  writeRefusal,
  commitWrite,
  openWriteTarget,
  numberLines,
  splitLines,
  withLineEnding,
  ToolFailure,
  guard,
} from "../_kits/file-tools/index";
import { lineAt, occurrences, replaceExact } from "./replace";

/** Input of the Edit tool. */
export const EditInput = z.object({
  file_path: z.string().min(1),
  old_string: z.string(),
  new_string: z.string(),
  replace_all: z.boolean().optional(),
});

// Under 1 KB with its parameters (`npm run bench request-bytes`): the conditions a call is refused
// for (read first, exact and unique match), said so the model does not learn them by failing; an
// empty old_string or one equal to new_string is refused in words that say so. The parameters'
// names say the rest. That the file is replaced atomically changes nothing a model decides, so it
// is left to the docs.
const DESCRIPTION = `Replaces exact text in a file.
- The file must have been read in full in this run and be unchanged since.
- old_string must match exactly, whitespace included, without the line-number prefix, and occur once unless replace_all; add surrounding lines to pick one.
- Use "\\n" line breaks (a CRLF file keeps CRLF).`;

const SNIPPET_CONTEXT = 3;
const SNIPPET_MAX_LINES = 30;

/** Edit: exact string replacement in a file that was read in full, written atomically. */
export class EditTool extends PathTool<typeof EditInput> {
  readonly name = "Edit";
  override readonly kind = "edit" as const;
  readonly description = DESCRIPTION;
  readonly inputSchema = EditInput;

  protected pathOf(input: z.output<typeof EditInput>) {
    return input.file_path;
  }

  /** An edit that cannot apply to any file is refused before any permission vote. */
  override async validateInput(input: z.output<typeof EditInput>, ctx: ToolContext): Promise<string | undefined> {
    return (await super.validateInput(input, ctx)) ?? inputRefusal(input);
  }

  /** The file exists and was read in full: checked before anyone is asked to approve the edit. */
  override preconditions(input: z.output<typeof EditInput>, ctx: ToolContext): Promise<string | undefined> {
    return writeRefusal(ctx, input.file_path, missingFile(input.file_path));
  }

  async call(input: z.output<typeof EditInput>, ctx: ToolContext): Promise<ToolOutput> {
    return guard(async () => {
      const invalid = inputRefusal(input);
      if (invalid) throw new ToolFailure(invalid);
      const target = await openWriteTarget(ctx, input.file_path);
      const existing = target.existing;
      if (!existing) throw new ToolFailure(missingFile(input.file_path));
      // The model writes "\n"; in a CRLF file the same text is stored with "\r\n".
      let oldText = withLineEnding(input.old_string, existing.eol);
      let newText = withLineEnding(input.new_string, existing.eol);
      if (occurrences(existing.text, oldText).length === 0 && occurrences(existing.text, input.old_string).length > 0) {
        // A file with mixed line endings: the region matches as the model wrote it.
        oldText = input.old_string;
        newText = input.new_string;
      }
      const result = replaceExact(existing.text, oldText, newText, input.replace_all ?? false, target.shown);
      const bytes = await commitWrite(ctx, target, result.text, false);
      const what = result.count === 1 ? "1 occurrence" : `${result.count} occurrences`;
      return {
        content: `Edited ${target.shown}: replaced ${what}.\n${snippet(result.text, result.firstAt, newText)}`,
        metadata: {
          path: target.real,
          replacements: result.count,
          sha256: createHash("sha256").update(bytes).digest("hex"),
        },
      };
    });
  }
}

/** Why an edit's input cannot be applied to any file, or undefined. */
function inputRefusal(input: z.output<typeof EditInput>): string | undefined {
  if (input.old_string === "")
    return "old_string is empty; give the exact text to replace, copied from the file. Edit changes existing text only.";
  if (input.old_string === input.new_string)
    return "old_string and new_string are identical, so nothing would change; put the replacement text in new_string.";
  return undefined;
}

const missingFile = (path: string) =>
  `File does not exist: ${path}. Edit changes existing files only; check the path, or create the file with its full content instead.`;

/** The changed region with a few lines around it, `cat -n` style, so the model can check it. */
function snippet(text: string, at: number, inserted: string): string {
  const lines = splitLines(text);
  const first = lineAt(text, at);
  const last = first + splitLines(inserted).length - 1;
  const from = Math.max(1, first - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, Math.max(last, first) + SNIPPET_CONTEXT, from + SNIPPET_MAX_LINES - 1);
  return numberLines(lines.slice(from - 1, to), from);
}
