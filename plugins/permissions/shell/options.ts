/** Walking a program's options the way getopt does, to find where its operands (or inner command) start. */
import type { ShellWord } from "./words";

/** Which options of a program take a value. */
export interface OptionSpec {
  /** Short option letters that take a value (`-u root`, `-uroot`). */
  short?: string;
  /** Long options that take a value (`--user root`, `--user=root`). */
  long?: readonly string[];
  /** Leave a lone number like `-10` alone as an option (nice). */
  numeric?: boolean;
}

/** Where the operands start, and what was seen on the way. */
export interface OptionScan {
  /** Index of the first operand (words.length when there is none). */
  index: number;
  /** Every option word seen, values included (`-u`, `root`, `--chdir=/x`). */
  seen: ShellWord[];
  /**
   * An option or value that is only known at run time, or a long option written as the start of
   * one that takes a value (`abbreviated`): where the operands start is not known.
   */
  dynamic: boolean;
  /** The word that abbreviates a long option taking a value (`--ch` for `--chdir`), if the scan stopped at one. */
  abbreviated?: ShellWord;
}

/** Scan the options of `words` from `start`: stops at the first operand or after `--`. */
export function scanOptions(words: readonly ShellWord[], start: number, spec: OptionSpec = {}): OptionScan {
  const seen: ShellWord[] = [];
  let dynamic = false;
  let abbreviated: ShellWord | undefined;
  let i = start;
  while (i < words.length) {
    const word = words[i]!;
    if (!word.literal) {
      // An unknown word could be an option or the command itself: stop here, and say so.
      dynamic = true;
      break;
    }
    const v = word.value;
    if (v === "--") {
      seen.push(word);
      i++;
      break;
    }
    if (!v.startsWith("-") || v === "-") break;
    seen.push(word);
    i++;
    if (v.startsWith("--")) {
      const name = v.split("=")[0]!;
      // getopt_long takes any unambiguous prefix of a long option: `env --ch DIR cmd` is `env
      // --chdir DIR cmd`, `xargs --arg FILE cmd` is `--arg-file` (red team zr, ZR1). A word that
      // starts a long option taking a value, and is none itself, may take the next word as that
      // value: the scan cannot tell where the operands start.
      if (!v.includes("=") && !spec.long?.includes(name) && spec.long?.some((l) => l.startsWith(name))) {
        dynamic = true;
        abbreviated = word;
        break;
      }
      if (!v.includes("=") && spec.long?.includes(name) && i < words.length) seen.push(words[i++]!);
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(v)) continue;
    for (let k = 1; k < v.length; k++) {
      if (spec.short?.includes(v[k]!)) {
        if (k === v.length - 1 && i < words.length) seen.push(words[i++]!);
        break;
      }
    }
  }
  return { index: i, seen, dynamic, ...(abbreviated ? { abbreviated } : {}) };
}

/**
 * True when an option was seen: a long name, or a short letter in a cluster (letters after one
 * that takes a value are that value, not options).
 */
export function hasOption(scan: OptionScan, long: readonly string[], short = "", spec: OptionSpec = {}): boolean {
  let skipNext = false;
  for (const w of scan.seen) {
    const v = w.value;
    if (skipNext) {
      skipNext = false;
      continue;
    }
    if (v.startsWith("--")) {
      const name = v.split("=")[0]!;
      if (long.includes(name)) return true;
      if (!v.includes("=") && spec.long?.includes(name)) skipNext = true;
      continue;
    }
    if (!v.startsWith("-") || (spec.numeric && /^-\d+$/.test(v))) continue;
    for (let k = 1; k < v.length; k++) {
      if (short.includes(v[k]!)) return true;
      if (spec.short?.includes(v[k]!)) {
        if (k === v.length - 1) skipNext = true;
        break;
      }
    }
  }
  return false;
}
