/** The bound on a glob's matching cost that Glob and Grep's pure-Node walk share. */

/** The most brace expansions a pattern may have (Glob's `..` check spells each out). */
const MAX_EXPANSIONS = 1024;
/** The most `*` wildcards within names, and `**` segments, a pattern may hold. */
const MAX_STARS = 3;
const MAX_GLOBSTARS = 2;

/**
 * Why matching the glob `pattern` (picomatch, micromatch) could take unbounded time or memory, or
 * undefined (red team o: Glob; red team p: Grep's globs and ignore files without ripgrep). Brace
 * expansion is spelled out in full (`{a,b}` 25 times is 33 million strings, held synchronously),
 * and picomatch compiles each `*` to a backtracking `[^/]*?`: `*a*a*a*a*ab` against one file
 * named with 250 `a`s holds the event loop for minutes (no abort reaches it), the work growing as
 * the name's length to the power of the wildcards. Judged on an upper bound, fail closed: every
 * brace group multiplies (its commas + 1, a range `..` counting as braces' 1000-item range limit;
 * a comma in a class counts too); every `*` not making a whole `**` segment and every extglob
 * repetition `+(`, `*(` and negation `!(` (two) counts as a wildcard.
 */
export function globMatchingCost(pattern: string): string | undefined {
  let expansions = 1;
  let stars = 0;
  const groups: { alternatives: number; range: boolean }[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") groups.push({ alternatives: 1, range: false });
    else if (c === "," && groups.length) groups.at(-1)!.alternatives++;
    else if (c === "." && pattern[i + 1] === "." && groups.length) groups.at(-1)!.range = true;
    else if (c === "}" && groups.length) {
      const group = groups.pop()!;
      expansions *= group.range ? Math.max(1000, group.alternatives) : group.alternatives;
    } else if (c === "!" && pattern[i + 1] === "(") stars += 2;
    else if (c === "+" && pattern[i + 1] === "(") stars++;
    else if (c === "*") stars++;
  }
  const globstars = pattern.split("/").filter((part) => part === "**").length;
  stars -= 2 * globstars;
  if (expansions > MAX_EXPANSIONS) return `more than ${MAX_EXPANSIONS} brace expansions`;
  if (stars > MAX_STARS) return `more than ${MAX_STARS} \`*\` wildcards within names`;
  if (globstars > MAX_GLOBSTARS) return `more than ${MAX_GLOBSTARS} \`**\` segments`;
  return undefined;
}
