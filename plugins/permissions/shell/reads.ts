/**
 * Files a command reads, so that a `Read(...)` deny rule stops `cat .env` and `< .env` as it
 * stops the Read tool. Each entry says which words of a reading program are files; options are
 * skipped the way getopt skips them.
 */
import { scanOptions, type OptionSpec } from "./options";
import { literalWord, type ShellWord } from "./words";

interface Reader {
  /** Options that take a value (so the value is not taken for a file). */
  options?: OptionSpec;
  /** Operands before the files (grep's pattern, sed's and awk's script), unless an option gives them. */
  script?: { count: number; unless: RegExp };
}

const plain: Reader = {};
const READERS: Record<string, Reader> = {
  // Programs whose operands are all files they read.
  cat: plain,
  tac: plain,
  nl: plain,
  less: plain,
  more: plain,
  most: plain,
  strings: plain,
  xxd: plain,
  od: plain,
  hexdump: plain,
  base64: plain,
  md5sum: plain,
  sha1sum: plain,
  sha256sum: plain,
  wc: plain,
  uniq: plain,
  file: plain,
  diff: plain,
  cmp: plain,
  bat: plain,
  head: { options: { short: "nc", long: ["--lines", "--bytes"] } },
  tail: { options: { short: "ncs", long: ["--lines", "--bytes", "--sleep-interval", "--pid"] } },
  sort: { options: { short: "otkS", long: ["--output", "--field-separator", "--key", "--buffer-size"] } },
  cut: { options: { short: "dfbc", long: ["--delimiter", "--fields", "--bytes", "--characters"] } },
  jq: { options: { long: ["--arg", "--argjson", "--slurpfile", "--rawfile"] }, script: { count: 1, unless: /^$/ } },
  // grep PATTERN FILE…, unless the pattern comes from -e/-f.
  grep: {
    options: {
      short: "efmABCd",
      long: ["--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context"],
    },
    script: { count: 1, unless: /^(-e|-f|--regexp|--file)/ },
  },
  egrep: { options: { short: "efmABC" }, script: { count: 1, unless: /^(-e|-f)/ } },
  fgrep: { options: { short: "efmABC" }, script: { count: 1, unless: /^(-e|-f)/ } },
  rg: {
    options: {
      short: "egtTmABCM",
      long: ["--regexp", "--glob", "--type", "--max-count", "--context", "--max-columns"],
    },
    script: { count: 1, unless: /^(-e|-f|--regexp|--file)/ },
  },
  sed: {
    options: { short: "el", long: ["--expression", "--line-length"] },
    script: { count: 1, unless: /^(-e|-f|--expression|--file)/ },
  },
  awk: {
    options: { short: "Fv", long: ["--field-separator", "--assign"] },
    script: { count: 1, unless: /^(-f|--file|-e|--source)/ },
  },
};

/** The files `program` reads, as written. */
export function readTargets(program: string, words: readonly ShellWord[]): ShellWord[] {
  if (program === "git") return gitShowPaths(words);
  const reader = READERS[program];
  if (!reader) return [];
  const scan = scanOptions(words, 1, reader.options ?? {});
  let operands = words.slice(scan.index).filter((w) => !w.literal || w.value !== "-");
  if (reader.script && !scan.seen.some((w) => reader.script!.unless.test(w.value)))
    operands = operands.slice(reader.script.count);
  return operands;
}

// git show REV:PATH and git cat-file -p REV:PATH read PATH (as stored in the repository).
function gitShowPaths(words: readonly ShellWord[]): ShellWord[] {
  const sub = words.find((w, k) => k > 0 && !w.value.startsWith("-"))?.value;
  if (sub !== "show" && sub !== "cat-file") return [];
  return words.flatMap((w) => {
    const path = w.literal ? gitObjectPath(w.value) : undefined;
    return path === undefined ? [] : [literalWord(path)];
  });
}

/**
 * The PATH an object name reads, as git splits it: `REV:PATH` at the first colon outside braces
 * (`HEAD^{/fix: x}:.env` is PATH .env of the commit whose message matches `fix: x`), `:N:PATH`
 * (stage N of the index), `:PATH` (the index); `:/TEXT` names a commit by its message. Undefined
 * when the word names no path.
 */
export function gitObjectPath(value: string): string | undefined {
  if (value.startsWith("-") || value.startsWith(":/")) return undefined;
  if (/^:[0-3]:/.test(value)) return value.slice(3) || undefined;
  if (value.startsWith(":")) return value.slice(1) || undefined;
  let depth = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === "{") depth++;
    else if (c === "}" && depth > 0) depth--;
    else if (c === ":" && depth === 0) return value.slice(i + 1) || undefined;
  }
  return undefined;
}
