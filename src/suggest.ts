/** "Did you mean …?" for a mistyped name: the closest known name, when it is close enough. */

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/**
 * The known name `name` was most likely meant as: case-insensitive, a built-in named without its
 * `ubiquity:` prefix, or within two edits (a third of its length for long names). Undefined when none is close.
 */
export function closest(name: string, known: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of known) {
    const c = candidate.toLowerCase();
    if (c === lower || c.endsWith(`:${lower}`)) return candidate;
    const d = distance(lower, c);
    if (d < bestScore) [best, bestScore] = [candidate, d];
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** ` (did you mean "x"?)`, or "" when nothing is close. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const match = closest(name, known);
  return match ? ` (did you mean ${JSON.stringify(match)}?)` : "";
}
