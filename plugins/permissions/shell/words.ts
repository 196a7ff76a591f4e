/**
 * What bash would pass as one word, when that can be known before the command runs. Quoting
 * and escapes are removed the way bash removes them (so `r\m`, `'rm'` and `$'\x72m'` are all
 * `rm`); anything that expands at run time (variables, substitutions, unquoted globs, brace
 * expansion, `~user`) makes the word non-literal.
 */
import type { SyntaxNode } from "./syntax";

/** One word of a simple command. */
export interface ShellWord {
  /** The value bash passes (for a non-literal word: the source text as written). */
  value: string;
  /** False when the value is only known at run time. */
  literal: boolean;
  /** The source text. */
  text: string;
  /** An unquoted `~` or `~/…` at the start: the value is relative to the home folder. */
  tilde: boolean;
  /**
   * A pathspec naming files as a repository stores them (in revisions, the index): what lies below
   * it there is not what lies below it on disk (a file deleted from the work tree, a folder that
   * was a file), so a rule that may name a path at or below it applies, whatever the disk holds.
   */
  stored?: boolean;
}

// Built up while reading a word: the value, and which of its characters were unquoted
// (only unquoted characters can glob or brace-expand).
interface Acc {
  value: string;
  unquoted: string;
  literal: boolean;
}

const GLOB = /[*?]|\[[^\]]*\]/;
const BRACE = /\{[^{}]*(?:,|\.\.)[^{}]*\}/;

/** Evaluate a word node (word, string, raw string, ANSI-C string, concatenation, …). */
export function evalWord(node: SyntaxNode): ShellWord {
  const acc: Acc = { value: "", unquoted: "", literal: true };
  add(node, acc);
  const text = node.text;
  let tilde = false;
  if (acc.literal && acc.unquoted.startsWith("~")) {
    const rest = acc.value.slice(1);
    if (rest === "" || rest.startsWith("/")) tilde = true;
    else acc.literal = false; // ~user and friends expand to someone's home: not known here
  }
  if (acc.literal && (GLOB.test(acc.unquoted) || BRACE.test(acc.unquoted))) acc.literal = false;
  // Bash also expands an unquoted `~` after `=` or `:` in a word that looks like an assignment,
  // even as a plain argument (`x=~`, `PATH=a:~/bin`).
  if (acc.literal && /[=:]~/.test(acc.unquoted)) acc.literal = false;
  return { value: acc.literal ? acc.value : text, literal: acc.literal, text, tilde };
}

function add(node: SyntaxNode, acc: Acc): void {
  switch (node.type) {
    case "word":
    case "number":
      addUnquoted(node.text, acc);
      return;
    case "raw_string":
      addQuoted(node.text.slice(1, -1), acc);
      return;
    case "ansi_c_string": {
      // Bash cuts a $'…' string at a NUL (`$'rm\0junk'` is `rm`): so does the analysis.
      const decoded = decodeAnsiC(node.text.slice(2, -1));
      const nul = decoded.indexOf("\0");
      addQuoted(nul === -1 ? decoded : decoded.slice(0, nul), acc);
      return;
    }
    case "string": {
      // The parser leaves some characters (a line break) out of every child: take them from the text.
      let pos = node.startIndex + 1;
      for (const child of node.children) {
        if (child.startIndex > pos)
          addQuoted(unescapeDouble(node.text.slice(pos - node.startIndex, child.startIndex - node.startIndex)), acc);
        pos = Math.max(pos, child.endIndex);
        if (child.type === '"') continue;
        if (child.type === "string_content") addQuoted(unescapeDouble(child.text), acc);
        else if (child.type === "$")
          addQuoted("$", acc); // a lone `$` inside quotes is literal
        else acc.literal = false;
      }
      return;
    }
    case "translated_string": {
      const inner = node.namedChildren[0];
      if (inner) add(inner, acc);
      else acc.literal = false;
      return;
    }
    case "concatenation":
      for (const child of node.children) add(child, acc);
      return;
    default:
      acc.literal = false;
  }
}

function addQuoted(text: string, acc: Acc) {
  acc.value += text;
  acc.unquoted += "\0".repeat(text.length);
}

// Outside quotes a backslash quotes the next character; backslash-newline vanishes.
function addUnquoted(text: string, acc: Acc) {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\" && i + 1 < text.length) {
      const next = text[++i]!;
      if (next !== "\n") addQuoted(next, acc);
      continue;
    }
    acc.value += c;
    acc.unquoted += c;
  }
}

// Inside double quotes a backslash only escapes $ ` " \ and newline.
function unescapeDouble(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c));
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Decode the body of a `$'…'` string as bash does. */
export function decodeAnsiC(body: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\" || i + 1 >= body.length) {
      out += c;
      continue;
    }
    const e = body[++i]!;
    if (e in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[e];
    } else if (e >= "0" && e <= "7") {
      const digits = /^[0-7]{1,3}/.exec(body.slice(i))![0];
      out += String.fromCharCode(parseInt(digits, 8) & 0xff);
      i += digits.length - 1;
    } else if (e === "x" || e === "u" || e === "U") {
      const max = e === "x" ? 2 : e === "u" ? 4 : 8;
      const digits = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(body.slice(i + 1))?.[0];
      if (!digits) {
        out += `\\${e}`;
        continue;
      }
      const code = parseInt(digits, 16);
      out += code <= 0x10ffff ? String.fromCodePoint(code) : "";
      i += digits.length;
    } else if (e === "c" && i + 1 < body.length) {
      out += String.fromCharCode(body.charCodeAt(++i) & 0x1f);
    } else {
      out += `\\${e}`;
    }
  }
  return out;
}

const PLAIN = /^[A-Za-z0-9_@%+=:,./^-]+$/;

/** A word as rules see it: its value, single-quoted when it holds anything but plain characters. */
export function renderWord(word: ShellWord): string {
  if (!word.literal) return word.text;
  if (word.tilde) return word.value; // keep ~/x readable; it came unquoted
  if (PLAIN.test(word.value)) return word.value;
  return `'${word.value.replace(/'/g, "'\\''")}'`;
}

/** A command's words joined as rules see them. */
export function renderWords(words: readonly ShellWord[]): string {
  return words.map(renderWord).join(" ");
}

/** A plain literal word (used for words the analysis builds itself, e.g. eval's joined text). */
export function literalWord(value: string): ShellWord {
  return { value, literal: true, text: value, tilde: false };
}
