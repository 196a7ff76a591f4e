/**
 * Line diffs for the approval of a Write or an Edit: what the file is and what it would be, as
 * hunks with a few lines of context and line numbers (a longest-common-subsequence diff, which is
 * exact for the sizes a person reads before approving; past that it shows the change as a whole).
 */

/** One line of a diff: kept, removed or added, with its line number in the old or new file. */
export interface DiffLine {
  kind: " " | "-" | "+";
  text: string;
  /** 1-based number in the old file (kept, removed) or the new one (added). */
  line: number;
}

/** Cells of the LCS table past which the diff is shown whole (remove all, add all). */
const MAX_CELLS = 4_000_000;

/** The line diff of `before` and `after` (all lines, kept ones included). */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  // Common head and tail first: an edit touches a few lines of a long file.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: DiffLine[] = a.slice(0, head).map((text, i) => ({ kind: " ", text, line: i + 1 }));
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  if (am.length * bm.length > MAX_CELLS) {
    am.forEach((text, i) => {
      out.push({ kind: "-", text, line: head + i + 1 });
    });
    bm.forEach((text, i) => {
      out.push({ kind: "+", text, line: head + i + 1 });
    });
  } else {
    // lcs[i][j]: the longest common subsequence of am[i..] and bm[j..].
    const w = bm.length + 1;
    const lcs = new Uint32Array((am.length + 1) * w);
    for (let i = am.length - 1; i >= 0; i--)
      for (let j = bm.length - 1; j >= 0; j--)
        lcs[i * w + j] =
          am[i] === bm[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    let i = 0;
    let j = 0;
    while (i < am.length || j < bm.length) {
      if (i < am.length && j < bm.length && am[i] === bm[j]) {
        out.push({ kind: " ", text: am[i]!, line: head + i + 1 });
        i++;
        j++;
      } else if (i < am.length && (j === bm.length || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) {
        // Removed lines before added ones, as a unified diff reads.
        out.push({ kind: "-", text: am[i]!, line: head + i + 1 });
        i++;
      } else {
        out.push({ kind: "+", text: bm[j]!, line: head + j + 1 });
        j++;
      }
    }
  }
  a.slice(a.length - tail).forEach((text, k) => {
    out.push({ kind: " ", text, line: a.length - tail + k + 1 });
  });
  return out;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The changed lines with `context` kept lines around each change; `null` marks a gap between hunks. */
export function hunks(lines: DiffLine[], context = 2): (DiffLine | null)[] {
  const keep = new Set<number>();
  lines.forEach((l, i) => {
    if (l.kind === " ") return;
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) keep.add(k);
  });
  const out: (DiffLine | null)[] = [];
  let last = -1;
  for (const i of [...keep].sort((x, y) => x - y)) {
    if (last !== -1 && i !== last + 1) out.push(null);
    out.push(lines[i]!);
    last = i;
  }
  return out;
}

/** Counts of added and removed lines. */
export function changeCounts(lines: DiffLine[]): { added: number; removed: number } {
  return { added: lines.filter((l) => l.kind === "+").length, removed: lines.filter((l) => l.kind === "-").length };
}
