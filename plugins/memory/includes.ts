/**
 * `@path` references in a memory file, found by scanning rather than a full markdown parse:
 * - a reference runs to the next whitespace; `\ ` escapes a space (`@my\ notes.md`);
 * - trailing sentence punctuation and closing brackets are trimmed (`(@a.md),` names `a.md`);
 * - an `@` right after a letter or digit is not a reference (`me@example.com`);
 * - `@` inside a fenced block or an inline code span is not a reference, so documenting the
 *   syntax does not trigger it.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const REFERENCE = /@((?:\\ |\S)+)/gu;
const TRAILING = /[.,;:!?)\]}>"'`]+$/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** `line` with every inline code span blanked out (a backtick run closes at the next run of the same length). */
export function blankInlineCode(line: string): string {
  const runs = [...line.matchAll(/`+/g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  let out = "";
  let at = 0;
  for (let i = 0; i < runs.length; i++) {
    const open = runs[i]!;
    if (open.start < at) continue;
    const close = runs.slice(i + 1).find((r) => r.end - r.start === open.end - open.start);
    if (!close) continue; // an unmatched run is literal text
    out += line.slice(at, open.start) + " ".repeat(close.end - open.start);
    at = close.end;
    i = runs.indexOf(close);
  }
  return out + line.slice(at);
}

/** The references on one line of prose (no code in it). */
export function lineReferences(line: string): string[] {
  const refs: string[] = [];
  for (const match of line.matchAll(REFERENCE)) {
    if (match.index > 0 && WORD_CHAR.test(line[match.index - 1]!)) continue;
    const ref = match[1]!.replace(TRAILING, "").replace(/\\ /g, " ");
    if (ref) refs.push(ref);
  }
  return refs;
}

/** Every `@path` reference in `text`, in order of appearance. */
export function findIncludes(text: string): string[] {
  const refs: string[] = [];
  let fence: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      // A fence closes on a run of the same character, at least as long, and nothing after it.
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
        fence = undefined;
      continue;
    }
    if (marker) {
      fence = marker;
      continue;
    }
    refs.push(...lineReferences(blankInlineCode(line)));
  }
  return refs;
}
