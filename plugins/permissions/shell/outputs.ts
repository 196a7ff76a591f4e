/**
 * Files a program writes because an option or operand names them as its output. They are
 * judged like a `>` redirect: outside the permitted folders the command cannot be allowed by a
 * Bash rule, inside them it is an edit (default mode asks as Write would, acceptEdits allows it
 * unless the file is sensitive). A program that writes under a name it picks itself (`curl -O`,
 * `wget URL`, `tar -x`) writes into its folder, so the folder is the output.
 */
import { literalWord, type ShellWord } from "./words";

type Outputs = (words: readonly ShellWord[]) => ShellWord[];

/** The value of `-o FILE`, `-oFILE`, `--output FILE` and `--output=FILE` forms, for the given names. */
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
  // tee FILE…: every operand is written.
  tee: (words) => words.slice(1).filter((w) => !w.literal || !w.value.startsWith("-")),
  // sort -o FILE writes the sorted output there.
  sort: values(["-o"], ["--output"]),
  // curl -o FILE; -O / --remote-name saves under the URL's name in the current folder; -T to a file: URL.
  curl: (words) => [
    ...values(["-o"], ["--output"])(words),
    ...(words.some((w) => /^(-O|--remote-name|--remote-name-all|-[a-zA-Z]*O)$/.test(w.value)) ? [here] : []),
    ...fileUploads(words),
  ],
  // wget -O FILE / -o LOG; without -O it saves under the URL's name in the current folder.
  wget: (words) => {
    const named = values(["-O", "-o", "-a"], ["--output-document", "--output-file", "--append-output"])(words);
    return words.some((w) => /^(-O|--output-document)/.test(w.value)) ? named : [...named, here];
  },
  // dd of=FILE.
  dd: (words) => words.filter((w) => w.literal && w.value.startsWith("of=")).map((w) => literalWord(w.value.slice(3))),
  // git --output=FILE (diff, log, format-patch), format-patch -o DIR; apply/am/checkout/restore/stash change the work tree.
  git: (words) => {
    const sub = words.find((w, k) => k > 0 && !w.value.startsWith("-"))?.value;
    const out = values(sub === "format-patch" ? ["-o"] : [], ["--output", "--output-directory"])(words);
    if (sub === "apply" || sub === "am") out.push(here);
    return out;
  },
  // tar -x writes the archive's files into -C DIR or the current folder; tar -c writes the -f archive.
  tar: (words) => {
    const modes = words
      .slice(1)
      .filter((w, k) => w.value.startsWith("--") || w.value.startsWith("-") || k === 0)
      .map((w) => w.value);
    const has = (letter: string, long: string) =>
      modes.some((m) => m === long || (!m.startsWith("--") && m.includes(letter)));
    if (has("x", "--extract") || has("x", "--get")) {
      const dir = values(["-C"], ["--directory"])(words);
      return dir.length > 0 ? dir : [here];
    }
    return has("c", "--create") || has("r", "--append") || has("u", "--update")
      ? values(["-f"], ["--file"])(words)
      : [];
  },
  // unzip writes into -d DIR or the current folder.
  unzip: (words) => {
    const dir = values(["-d"], [])(words);
    return words.some((w) => /^-[a-zA-Z]*[lptvZ]/.test(w.value)) ? [] : dir.length > 0 ? dir : [here];
  },
  // find -fprint FILE and friends.
  find: (words) =>
    words.flatMap((w, k) => (/^-(fprint|fprint0|fprintf|fls)$/.test(w.value) ? [words[k + 1] ?? literalWord("")] : [])),
};

/** The files `program` writes as its output, from its options and operands. */
export function outputTargets(program: string, words: readonly ShellWord[]): ShellWord[] {
  return OUTPUTS[program]?.(words) ?? [];
}
