/**
 * Outputs no option table names. An option's output file (`sort -o`, `curl -o`, `tar -cf`, in any
 * spelling) and an output operand (tee, uniq) come from the program's spec (spec-format.ts: `=w`,
 * `output`); what is here is written where the program picks the name (`curl -O`, `wget URL`,
 * `tar -x`, `git apply`: the folder is the output), or named outside options (`dd of=`, find's
 * actions). Each is judged like a `>` redirect: outside the permitted folders the command cannot
 * be allowed by a Bash rule, inside them it is an edit (default mode asks as Write would,
 * acceptEdits allows it unless the file is sensitive).
 */
import { literalWord, type ShellWord } from "./words";

type Outputs = (words: readonly ShellWord[]) => ShellWord[];

/** The value of `-d DIR`, `-dDIR`, `--directory DIR` and `--directory=DIR` forms, for the given names. */
function values(short: string[], long: string[]): Outputs {
  return (words) => {
    const out: ShellWord[] = [];
    for (let k = 1; k < words.length; k++) {
      const w = words[k]!;
      const v = w.value;
      if (v === "--") break;
      const l = long.find((name) => v === name || v.startsWith(`${name}=`));
      if (l)
        out.push(
          v === l
            ? (words[k + 1] ?? literalWord(""))
            : { ...w, value: v.slice(l.length + 1), text: v.slice(l.length + 1) },
        );
      else if (short.includes(v)) out.push(words[k + 1] ?? literalWord(""));
      else if (short.some((s) => v.startsWith(s) && v.length > s.length && !v.startsWith("--")))
        out.push({ ...w, value: v.slice(2), text: v.slice(2) });
    }
    return out;
  };
}

const here = literalWord(".");

/** The files an archive names, written by a program that extracts it: only known at run time. */
const archiveNames: ShellWord = { ...literalWord("(the names the archive holds)"), literal: false };

/**
 * curl -T SRC file:///PATH copies SRC to PATH (`file:/p`, `file://host/p` alike), into the folder
 * when the URL ends in `/`: with an upload, every file: URL is a file written. A {…} or […] glob
 * (unless -g) may spell any name, or the scheme: a write only known at run time.
 */
function fileUploads(words: readonly ShellWord[]): ShellWord[] {
  const upload = words.some((w) => /^(--upload-file(=|$)|-[a-zA-Z]*T)/.test(w.value));
  if (!upload) return [];
  const globbed = !words.some((w) => /^(-g|--globoff)$/.test(w.value));
  const out: ShellWord[] = [];
  for (const w of words.slice(1)) {
    const url = w.value.startsWith("--url=") ? w.value.slice(6) : w.value;
    const schemeGlob = globbed && /^[^:/]*[{[][^:/]*:/.test(url);
    if (!/^file:/i.test(url) && !schemeGlob) continue;
    let path: string | undefined;
    try {
      path = schemeGlob ? undefined : decodeURIComponent(url.replace(/^file:(\/\/[^/]*)?/i, "")) || "/";
    } catch {
      path = undefined;
    }
    if (path !== undefined && globbed && /[{[]/.test(path)) path = undefined;
    out.push(
      path === undefined
        ? { ...w, literal: false, text: `${w.text} (a file: URL curl uploads to)` }
        : literalWord(path),
    );
  }
  return out;
}

/** The words after the program that are not options. */
function operands(words: readonly ShellWord[]): ShellWord[] {
  return words.slice(1).filter((w) => !w.value.startsWith("-"));
}

/** Whether a short option bundle holds a letter of `letters`, or a long option of `long` is given. */
function hasMode(words: readonly ShellWord[], letters: RegExp, long: readonly string[]): boolean {
  return words
    .slice(1)
    .some(
      (w) =>
        long.includes(w.value) ||
        (/^-[a-zA-Z]/.test(w.value) && !w.value.startsWith("--") && letters.test(w.value.slice(1))),
    );
}

/** 7-Zip's `x` and `e` write the archive's names into `-oDIR` or the current folder. */
function sevenZip(words: readonly ShellWord[]): ShellWord[] {
  if (!["x", "e"].includes(operands(words)[0]?.value ?? "")) return [];
  const dir = words.find((w) => w.value.startsWith("-o") && w.value.length > 2);
  return [dir ? { ...dir, value: dir.value.slice(2), text: dir.value.slice(2) } : here, archiveNames];
}

/** A tar the engine has no table for (bsdtar, gtar): extracting, it writes the archive's names (tar's table says so for tar). */
function otherTar(words: readonly ShellWord[]): ShellWord[] {
  const dirs = OUTPUTS.tar!(words);
  return dirs.length > 0 ? [...dirs, archiveNames] : [];
}

/** Compressors whose file operands are replaced by a file named after them (`x.gz` -> `x`, `x` -> `x.gz`). */
const COMPRESSORS = [
  "gzip",
  "gunzip",
  "pigz",
  "unpigz",
  "bzip2",
  "bunzip2",
  "xz",
  "unxz",
  "lzma",
  "unlzma",
  "zstd",
  "unzstd",
  "lz4",
  "unlz4",
  "brotli",
  "lzip",
  "compress",
  "uncompress",
];

/** The suffixes a decompressor strips. */
const COMPRESSED = /\.(gz|z|Z|bz2|xz|lzma|zst|lz4|br|lz)$/;

/**
 * The file a compressor writes for each operand: the name without its suffix when it decompresses,
 * with it when it compresses; to stdout (`-c`), a test or a list writes none. A suffix of the
 * user's (`-S .json`) or an operand only known at run time: a name only known at run time.
 */
function decompressed(words: readonly ShellWord[]): ShellWord[] {
  const args = words.slice(1);
  const options = args.filter((w) => w.value.startsWith("-"));
  const short = options
    .filter((w) => !w.value.startsWith("--"))
    .map((w) => w.value.slice(1))
    .join("");
  if (/[ctl]/.test(short) || options.some((w) => /^--(stdout|to-stdout|test|list)$/.test(w.value))) return [];
  if (/S/.test(short) || options.some((w) => /^--suffix/.test(w.value))) return [archiveNames];
  const program = words[0]?.value ?? "";
  const expanding =
    /un/.test(program) || /d/.test(short) || options.some((w) => /^--(decompress|uncompress)$/.test(w.value));
  return args
    .filter((w) => !w.value.startsWith("-"))
    .map((w) => {
      if (!w.literal) return archiveNames;
      if (!expanding) return { ...w, value: `${w.value}.gz`, text: `${w.text}.gz` };
      return COMPRESSED.test(w.value) ? { ...w, value: w.value.replace(COMPRESSED, ""), text: w.text } : archiveNames;
    });
}

const OUTPUTS: Record<string, Outputs> = {
  // curl -O / --remote-name saves under the URL's name in the current folder; -T to a file: URL.
  curl: (words) => [
    ...(words.some((w) => /^(-O|--remote-name|--remote-name-all|-[a-zA-Z]*O)$/.test(w.value)) ? [here] : []),
    ...fileUploads(words),
  ],
  // wget without -O saves under the URL's name in the current folder.
  wget: (words) => (words.some((w) => /^(-[a-zA-Z]*O|--output-document)/.test(w.value)) ? [] : [here]),
  // dd of=FILE.
  dd: (words) => words.filter((w) => w.literal && w.value.startsWith("of=")).map((w) => literalWord(w.value.slice(3))),
  // git apply and am change the work tree.
  git: (words) => {
    const sub = words.find((w, k) => k > 0 && !w.value.startsWith("-"))?.value;
    return sub === "apply" || sub === "am" ? [here] : [];
  },
  // tar -x writes the archive's files into -C DIR or the current folder.
  tar: (words) => {
    const modes = words
      .slice(1)
      .filter((w, k) => w.value.startsWith("--") || w.value.startsWith("-") || k === 0)
      .map((w) => w.value);
    const has = (letter: string, long: string) =>
      modes.some((m) => m === long || (!m.startsWith("--") && m.includes(letter)));
    if (!has("x", "--extract") && !has("x", "--get")) return [];
    const dir = values(["-C"], ["--directory"])(words);
    return dir.length > 0 ? dir : [here];
  },
  // unzip writes into -d DIR or the current folder, under the names the archive holds (as tar -x):
  // which are not known before it runs (`.git/hooks/…`, `.envrc`, a link and a file through it).
  unzip: (words) => {
    const dir = values(["-d"], [])(words);
    if (words.some((w) => /^-[a-zA-Z]*[lptvZ]/.test(w.value))) return [];
    return [...(dir.length > 0 ? dir : [here]), archiveNames];
  },
  // Archives extracted, trees copied, files decoded and split: written under names the data or the
  // program picks, not the command line (red team zq, ZQ3: `bsdtar -xf`, `7z x`, `cpio -i`, `rsync
  // -a t/ .`, `gunzip .mcp.json.gz`, `uudecode`, `split -l1 f package.js` planted what `cp` asks for).
  bsdtar: otherTar,
  gtar: otherTar,
  "7z": sevenZip,
  "7za": sevenZip,
  "7zr": sevenZip,
  unrar: (words) => (["x", "e"].includes(operands(words)[0]?.value ?? "") ? [here, archiveNames] : []),
  ar: (words) => (/x/.test(words[1]?.value.replace(/^-/, "") ?? "") ? [here, archiveNames] : []),
  jar: (words) => (/x/.test(words[1]?.value.replace(/^-/, "") ?? "") ? [here, archiveNames] : []),
  cpio: (words) => (hasMode(words, /[ip]/, ["--extract", "--pass-through"]) ? [here, archiveNames] : []),
  pax: (words) => (hasMode(words, /r/, []) ? [here, archiveNames] : []),
  rsync: (words) =>
    words.some((w) => /^(--dry-run|--list-only)$/.test(w.value) || /^-[a-zA-Z]*n/.test(w.value)) ? [] : [archiveNames],
  uudecode: (words) => (words.some((w) => /^(-o|--output-file)/.test(w.value)) ? [] : [here, archiveNames]),
  split: () => [archiveNames],
  csplit: () => [archiveNames],
  ...Object.fromEntries(COMPRESSORS.map((program) => [program, decompressed])),
  // find -fprint FILE and friends.
  find: (words) =>
    words.flatMap((w, k) => (/^-(fprint|fprint0|fprintf|fls)$/.test(w.value) ? [words[k + 1] ?? literalWord("")] : [])),
};

/** The files `program` writes as its output, from its options and operands. */
export function outputTargets(program: string, words: readonly ShellWord[]): ShellWord[] {
  return OUTPUTS[program]?.(words) ?? [];
}
