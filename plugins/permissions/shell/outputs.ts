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
  // find -fprint FILE and friends.
  find: (words) =>
    words.flatMap((w, k) => (/^-(fprint|fprint0|fprintf|fls)$/.test(w.value) ? [words[k + 1] ?? literalWord("")] : [])),
};

/** The files `program` writes as its output, from its options and operands. */
export function outputTargets(program: string, words: readonly ShellWord[]): ShellWord[] {
  return OUTPUTS[program]?.(words) ?? [];
}
