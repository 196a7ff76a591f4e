/**
 * Exact string replacement, and the messages that help the model fix a call that matched
 * nothing or too much.
 */
import { ToolFailure } from "../_kits/file-tools/index";

/** Offsets of the non-overlapping occurrences of `needle` in `text`. */
export function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) found.push(i);
  return found;
}

/** 1-based line number of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** The result of a replacement. */
export interface Replacement {
  text: string;
  count: number;
  /** Offset of the first replacement in the new text. */
  firstAt: number;
}

/**
 * Replace `oldText` by `newText` in `text`: exactly once, or everywhere with `all`. Throws a
 * `ToolFailure` naming the fix when it matches nothing, or more than once without `all`.
 */
export function replaceExact(text: string, oldText: string, newText: string, all: boolean, shown: string): Replacement {
  const at = occurrences(text, oldText);
  if (at.length === 0) throw new ToolFailure(notFoundMessage(text, oldText, shown));
  if (at.length > 1 && !all) {
    const lines = at.slice(0, 10).map((o) => lineAt(text, o));
    const more = at.length > lines.length ? ", …" : "";
    throw new ToolFailure(
      `old_string matches ${at.length} places in ${shown} (lines ${lines.join(", ")}${more}); an edit must target exactly one. ` +
        `Add surrounding lines to old_string so it matches only the place you mean, or set replace_all to true to change all ${at.length}.`,
    );
  }
  // Slicing, not String.replace: "$&" and friends in new_string must stay literal.
  let out = "";
  let from = 0;
  for (const offset of all ? at : at.slice(0, 1)) {
    out += text.slice(from, offset) + newText;
    from = offset + oldText.length;
  }
  out += text.slice(from);
  return { text: out, count: all ? at.length : 1, firstAt: at[0]! };
}

function notFoundMessage(text: string, oldText: string, shown: string): string {
  const squash = (s: string) => s.replace(/\s+/g, " ").trim();
  const nearly = squash(oldText) !== "" && squash(text).includes(squash(oldText));
  const hint = nearly
    ? " Text equal to it up to whitespace exists in the file: check indentation, tabs versus spaces, line breaks and trailing spaces."
    : "";
  return (
    `old_string was not found in ${shown}. It must match the file exactly, whitespace and indentation included; ` +
    `copy it from the file's current content (without the line-number prefix Read adds).${hint}`
  );
}
