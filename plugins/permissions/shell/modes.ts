/**
 * File modes as GNU chmod, mkdir and install compute them from a mode word (gnulib's
 * modechange.c), so the engine judges the mode a file gets, not the letters written (red team ze,
 * ZE1). A symbolic mode changes a base — the file's own mode for chmod, a=rwx for mkdir — and a
 * clause without `ugoa` is filtered by the umask, which is not known here: each outcome over the
 * masks in UMASKS is judged, and the worst counts.
 */

/** The bits `u`, `g` and `o` name (with their set-ID and sticky bits), and `a`. */
const WHO: Record<string, number> = { u: 0o4700, g: 0o2070, o: 0o1007, a: 0o7777 };
/** The bits each permission letter names (`X` as `x`, where it applies). */
const PERM: Record<string, number> = { r: 0o444, w: 0o222, x: 0o111, X: 0o111, s: 0o6000, t: 0o1000 };
/** Where each class's three bits sit. */
const SHIFT: Record<string, number> = { u: 6, g: 3, o: 0 };

/**
 * Umasks a command may run under: none, the usual ones, and every class's bits alone, so that each
 * bit is judged both filtered and not (a `-` clause removes less under a larger mask).
 */
const UMASKS = [0o000, 0o002, 0o020, 0o022, 0o007, 0o070, 0o077, 0o700, 0o777];

/**
 * The mode `text` gives a file whose mode was `base`, under `umask`; undefined when GNU would refuse
 * the word. `X` is execute for a folder or a file with an execute bit (`folder`: the worst case).
 */
export function modeAfter(text: string, base: number, umask: number, folder = true): number | undefined {
  if (/^[0-7]+$/.test(text)) {
    const value = Number.parseInt(text, 8);
    return value > 0o7777 ? undefined : value;
  }
  let mode = base;
  for (const clause of text.split(",")) {
    const m = /^([ugoa]*)([-+=].*)$/.exec(clause);
    if (!m) return undefined;
    const affected = [...m[1]!].reduce((bits, c) => bits | WHO[c]!, 0);
    let rest = m[2]!;
    while (rest.length > 0) {
      const op = rest[0]!;
      if (!"-+=".includes(op)) return undefined;
      rest = rest.slice(1);
      let value: number;
      let all = false;
      const octal = /^[0-7]+/.exec(rest)?.[0];
      if (octal !== undefined) {
        // `+022`, `=4755`: an octal number after the operator, every bit, no umask; not after `ugoa`.
        value = Number.parseInt(octal, 8);
        if (affected !== 0 || value > 0o7777) return undefined;
        all = true;
        rest = rest.slice(octal.length);
      } else if (/^[ugo]/.test(rest)) {
        // `o=u`: the bits another class has now, for each class named.
        value = ((mode >> SHIFT[rest[0]!]!) & 7) * 0o111;
        rest = rest.slice(1);
      } else {
        const letters = /^[rwxXst]*/.exec(rest)![0];
        const execute = folder || (mode & 0o111) !== 0;
        value = [...letters].reduce((bits, c) => bits | (c === "X" && !execute ? 0 : PERM[c]!), 0);
        rest = rest.slice(letters.length);
      }
      if (!all) value &= affected !== 0 ? affected : 0o7777 & ~umask;
      if (op === "+") mode |= value;
      else if (op === "-") mode &= ~value;
      else mode = (mode & (all || affected === 0 ? 0 : ~affected & 0o7777)) | value;
    }
  }
  return mode;
}

/** Each mode `text` may give a file whose mode was `base` (one per umask), or undefined when the word is no mode GNU reads. */
export function modeOutcomes(text: string, base: number): number[] | undefined {
  const out: number[] = [];
  for (const umask of UMASKS) {
    const mode = modeAfter(text, base, umask);
    if (mode === undefined) return undefined;
    out.push(mode);
  }
  return out;
}
