/**
 * Apply the hunks of one `*** Update File` section to a file's text. Each hunk is found after
 * the previous one: its `@@` anchors first, then its context and removed lines — exactly, then
 * ignoring trailing whitespace, then ignoring surrounding whitespace (what models most often
 * get wrong). A hunk that cannot be found fails the whole patch and is named.
 */
import type { Hunk } from "./parse";

/** A hunk that matched nothing; the message names the file, the hunk and what was looked for. */
export class HunkMismatch extends Error {
  override name = "HunkMismatch";
}

/** Typographic characters models write for their ASCII forms (quotes, dashes, spaces). */
const TYPOGRAPHIC: [RegExp, string][] = [
  [/[\u2018\u2019\u201A\u201B]/g, "'"],
  [/[\u201C\u201D\u201E\u201F]/g, '"'],
  [/[\u2010-\u2015\u2212]/g, "-"],
  [/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, " "],
];
const plain = (l: string) => TYPOGRAPHIC.reduce((s, [re, to]) => s.replace(re, to), l.trim());

const COMPARE: ((line: string) => string)[] = [(l) => l, (l) => l.trimEnd(), (l) => l.trim(), plain];

/**
 * Most line comparisons one patch's search may make. A hunk is looked for at every line, each try
 * comparing up to all its lines: a hunk of thousands of alike lines against a file of them made
 * billions of comparisons on the process's own thread, which froze every session and timer in it
 * for minutes (red team x, X6); real patches make a few thousand.
 */
export const MAX_PATCH_COMPARISONS = 20_000_000;

/** The comparisons left to one patch's search (see MAX_PATCH_COMPARISONS). */
export interface SearchBudget {
  left: number;
}

/** Where `wanted` occurs in `lines` at or after `from` (the loosest comparison tried last); -1 if nowhere. */
function seek(
  lines: readonly string[],
  wanted: readonly string[],
  from: number,
  atEnd: boolean,
  budget: SearchBudget,
  where: string,
): number {
  if (wanted.length === 0) return atEnd ? lines.length : from;
  for (const norm of COMPARE) {
    const target = wanted.map(norm);
    // Each line normalized once per comparison, not once per try.
    const normalized = new Map<number, string>();
    const line = (i: number) => {
      let n = normalized.get(i);
      if (n === undefined) normalized.set(i, (n = norm(lines[i]!)));
      return n;
    };
    const matchesAt = (at: number) =>
      target.every((t, k) => {
        if (--budget.left < 0)
          throw new HunkMismatch(
            `${where}: finding it took more than ${MAX_PATCH_COMPARISONS} line comparisons, so the patch was given up. Nothing was changed. Give each hunk a few distinctive lines of context (3 above and below the change), or split it into smaller hunks.`,
          );
        return line(at + k) === t;
      });
    if (atEnd) {
      const at = lines.length - wanted.length;
      if (at >= from && matchesAt(at)) return at;
      continue;
    }
    for (let at = from; at + wanted.length <= lines.length; at++) if (matchesAt(at)) return at;
  }
  return -1;
}

function quote(lines: readonly string[]): string {
  const shown = lines
    .slice(0, 3)
    .map((l) => JSON.stringify(l))
    .join(", ");
  return lines.length > 3 ? `${shown}, …` : shown;
}

/**
 * The text after applying `hunks` to `text` ("\n" line endings). Throws `HunkMismatch` naming
 * the first hunk that does not apply.
 */
export function applyHunks(text: string, hunks: readonly Hunk[], shown: string): string {
  const endsWithNewline = text === "" || text.endsWith("\n");
  const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  const edits: { at: number; remove: number; insert: string[] }[] = [];
  const budget: SearchBudget = { left: MAX_PATCH_COMPARISONS };
  let cursor = 0;
  for (const hunk of hunks) {
    const where = `hunk ${hunk.index} of ${shown} (patch line ${hunk.line})`;
    for (const anchor of hunk.anchors) {
      // A unified-diff range (`@@ -3,7 +3,8 @@`) locates nothing here; a closing ` @@` is not part of the line.
      if (/^-\d+(,\d+)? \+\d+(,\d+)? @@/.test(anchor)) continue;
      let found = seek(lines, [anchor], cursor, false, budget, where);
      if (found === -1 && /\s@@$/.test(anchor))
        found = seek(lines, [anchor.replace(/\s*@@$/, "")], cursor, false, budget, where);
      if (found === -1) {
        throw new HunkMismatch(
          `${where}: its "@@ ${anchor}" line was not found${cursor > 0 ? ` after line ${cursor}` : ""}. Nothing was changed. The @@ header must repeat a line of the file (a function or class line); read the file again and copy it exactly.`,
        );
      }
      cursor = found + 1;
    }
    const old = hunk.lines.filter((l) => l.kind !== "+").map((l) => l.text);
    const at =
      old.length === 0 && hunk.anchors.length === 0 && !hunk.atEnd
        ? lines.length
        : seek(lines, old, cursor, hunk.atEnd, budget, where);
    if (at === -1) {
      const tail = hunk.atEnd ? " at the end of the file (*** End of File)" : cursor > 0 ? ` after line ${cursor}` : "";
      throw new HunkMismatch(
        `${where} does not match the file: its context and removed lines (${quote(old)}) were not found${tail}. Nothing was changed. ` +
          'Context (" ") and removed ("-") lines must repeat the file\'s current lines exactly and in order; read the file again and rebuild the hunk.',
      );
    }
    // Context lines keep the file's own text (a loose match must not rewrite their whitespace).
    let k = at;
    const insert: string[] = [];
    for (const line of hunk.lines) {
      if (line.kind === " ") insert.push(lines[k++] ?? line.text);
      else if (line.kind === "-") k++;
      else insert.push(line.text);
    }
    edits.push({ at, remove: old.length, insert });
    cursor = at + old.length;
  }
  for (const edit of edits.reverse()) lines.splice(edit.at, edit.remove, ...edit.insert);
  if (lines.length === 0) return "";
  return lines.join("\n") + (endsWithNewline ? "\n" : "");
}
