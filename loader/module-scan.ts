/**
 * A static scan of a JavaScript or TypeScript module's source for what it could load: the
 * specifiers of its `import`/`export … from`, `import("…")` and `require("…")`, plus every other
 * string that reads like a relative path (`plugins: ["./my-plugin.ts"]`). Fail closed: an
 * `import(…)` or `require(…)` whose argument is not one plain string is reported as `computed`,
 * so the caller can refuse a module whose imports it cannot follow. A tokenizer, not a parser:
 * comments, strings, template literals and regular expressions are skipped so nothing in them
 * reads as code.
 */

/** What `scanModuleSource` found. */
export interface ModuleScan {
  /** Specifiers the module imports or requires (static strings). */
  imports: string[];
  /** Other strings (or words of them) that look like a relative path (`./x`) or name a script (`lib/w.mjs`): maybe a file a config runs. */
  paths: string[];
  /** Source text of each `import(…)`/`require(…)` whose target is computed at run time. */
  computed: string[];
}

type Token = {
  kind: "id" | "str" | "punct" | "num" | "tpl";
  text: string;
  start: number;
  /** Where a string or regular expression literal ends in the source. */
  end?: number;
  /** A regular expression literal (kind "num"). */
  regex?: boolean;
  /** A token after which an expression ends, though its text alone says otherwise: a postfix `!`, `++` or `--`. */
  ends?: boolean;
  /** A `)` closing an `if`/`while`/`for`/`with` head, or a `}` closing a block: a statement may follow. */
  starts?: boolean;
};

const ID_START = /[A-Za-z_$\u0080-\uffff]/;
const ID_PART = /[\w$\u0080-\uffff]/;
// After these, a `/` starts a regular expression rather than a division.
const REGEX_AFTER_WORDS = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

/** Words before a `(` whose `)` ends a statement's head: a statement (a regular expression) may follow. */
const HEAD_WORDS = new Set(["if", "while", "for", "with"]);
/** Words after which a `{` opens a block. */
const BLOCK_AFTER_WORDS = new Set(["else", "do", "try", "finally"]);

/** The index after the whitespace character, comment or shebang line at `i`; undefined when none starts there. */
function skipTrivia(source: string, i: number): number | undefined {
  const c = source[i];
  const n = source.length;
  if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v" || c === "\uFEFF") return i + 1;
  if (c === "/" && source[i + 1] === "/") {
    const end = source.indexOf("\n", i);
    return end < 0 ? n : end;
  }
  if (c === "/" && source[i + 1] === "*") {
    const end = source.indexOf("*/", i + 2);
    return end < 0 ? n : end + 2;
  }
  if (c === "#" && i === 0 && source[1] === "!") {
    const end = source.indexOf("\n");
    return end < 0 ? n : end;
  }
  return undefined;
}

/** The string quoted at `i` (by `source[i]`): its text unescaped, and the index after its closing quote (a line break ends an unclosed one). */
function readQuoted(source: string, i: number): { text: string; end: number } {
  const quote = source[i];
  const n = source.length;
  let j = i + 1;
  let text = "";
  while (j < n && source[j] !== quote && source[j] !== "\n") {
    if (source[j] === "\\") {
      text += source[j + 1] ?? "";
      j += 2;
    } else text += source[j++];
  }
  return { text, end: j + 1 };
}

/** The index after the regular expression literal at `i`, its flags included. */
function regexEnd(source: string, i: number): number {
  const n = source.length;
  let j = i + 1;
  let inClass = false;
  while (j < n && source[j] !== "\n") {
    const d = source[j];
    if (d === "\\") j += 2;
    else {
      if (d === "[") inClass = true;
      else if (d === "]") inClass = false;
      else if (d === "/" && !inClass) break;
      j += 1;
    }
  }
  return runEnd(source, j + 1, ID_PART);
}

/** The index of the first character from `j` on that `part` does not match. */
function runEnd(source: string, j: number, part: RegExp): number {
  while (j < source.length && part.test(source[j]!)) j += 1;
  return j;
}

/** Whether a `/` after `last` starts a regular expression (not a division). */
function regexMayFollow(last: Token | undefined): boolean {
  if (!last) return true;
  if (last.kind === "num" || last.kind === "str" || last.kind === "tpl") return false;
  if (last.kind === "id") return REGEX_AFTER_WORDS.has(last.text);
  if (last.ends) return false;
  if (last.starts) return true;
  return !(last.text === ")" || last.text === "]" || last.text === "}");
}

/** True when `last` (before `at`) ends an operand on the same line: a `!`, `++` or `--` at `at` is postfix. */
function endsOperand(last: Token | undefined, source: string, at: number): boolean {
  if (!last || source.slice(last.start, at).includes("\n")) return false;
  if (last.kind === "num" || last.kind === "str" || last.kind === "tpl") return true;
  if (last.kind === "id") return !REGEX_AFTER_WORDS.has(last.text);
  return last.ends === true || (!last.starts && (last.text === ")" || last.text === "]" || last.text === "}"));
}

/** Whether a `{` after `tokens` opens a block (a statement list) rather than an object literal. */
function blockFollows(tokens: readonly Token[]): boolean {
  const last = tokens.at(-1);
  if (!last) return true;
  if (last.kind === "id") return BLOCK_AFTER_WORDS.has(last.text) || !REGEX_AFTER_WORDS.has(last.text);
  if (last.kind !== "punct") return false;
  if (last.text === ">" && tokens.at(-2)?.text === "=") return true; // an arrow's body
  return last.text === ";" || last.text === "{" || last.text === ")" || (last.text === "}" && last.starts === true);
}

/** Split `source` into tokens, dropping comments and whitespace; a template literal is one `tpl` token plus the tokens of its `${}` parts. */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const braces: ("block" | "object" | "tpl")[] = [];
  const parens: boolean[] = [];
  let i = 0;
  const n = source.length;
  const regexAllowed = () => regexMayFollow(tokens.at(-1));
  const afterOperand = (at: number) => endsOperand(tokens.at(-1), source, at);
  const isMember = (k: number) => tokens[k - 1]?.text === "." || tokens[k - 1]?.text === "?.";
  const opensBlock = () => blockFollows(tokens);
  const readTemplate = (start: number) => {
    // From just after a backtick or a `}` closing a `${}`: up to the closing backtick, or into the next `${`.
    let j = start;
    while (j < n) {
      const c = source[j];
      if (c === "\\") j += 2;
      else if (c === "`") {
        tokens.push({ kind: "tpl", text: source.slice(start, j), start });
        return j + 1;
      } else if (c === "$" && source[j + 1] === "{") {
        tokens.push({ kind: "tpl", text: source.slice(start, j), start });
        braces.push("tpl");
        return j + 2;
      } else j += 1;
    }
    return n;
  };
  while (i < n) {
    const c = source[i]!;
    const skipped = skipTrivia(source, i);
    if (skipped !== undefined) {
      i = skipped;
    } else if (c === '"' || c === "'") {
      const quoted = readQuoted(source, i);
      tokens.push({ kind: "str", text: quoted.text, start: i, end: quoted.end });
      i = quoted.end;
    } else if (c === "`") {
      i = readTemplate(i + 1);
    } else if (c === "/" && regexAllowed()) {
      const end = regexEnd(source, i);
      tokens.push({ kind: "num", text: source.slice(i, end), start: i, end, regex: true }); // a value, like a number
      i = end;
    } else if (ID_START.test(c)) {
      const end = runEnd(source, i + 1, ID_PART);
      tokens.push({ kind: "id", text: source.slice(i, end), start: i });
      i = end;
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(source[i + 1] ?? ""))) {
      const end = runEnd(source, i + 1, /[\w.]/);
      tokens.push({ kind: "num", text: source.slice(i, end), start: i });
      i = end;
    } else if (c === "{") {
      braces.push(opensBlock() ? "block" : "object");
      tokens.push({ kind: "punct", text: c, start: i });
      i += 1;
    } else if (c === "}") {
      const kind = braces.pop();
      if (kind === "tpl") i = readTemplate(i + 1);
      else {
        tokens.push({ kind: "punct", text: c, start: i, starts: kind === "block" });
        i += 1;
      }
    } else if (c === "(") {
      const last = tokens[tokens.length - 1];
      parens.push(last?.kind === "id" && HEAD_WORDS.has(last.text) && !isMember(tokens.length - 1));
      tokens.push({ kind: "punct", text: c, start: i });
      i += 1;
    } else if (c === ")") {
      tokens.push({ kind: "punct", text: c, start: i, starts: parens.pop() === true });
      i += 1;
    } else if (c === "!" && source[i + 1] !== "=" && afterOperand(i)) {
      // TypeScript's non-null assertion (`a! / 2`): a `/` after it divides.
      tokens.push({ kind: "punct", text: c, start: i, ends: true });
      i += 1;
    } else if ((c === "+" || c === "-") && source[i + 1] === c) {
      // `++`/`--` (longest match first, as JavaScript reads them): postfix after an operand, so a `/` after it divides.
      tokens.push({ kind: "punct", text: c + c, start: i, ends: afterOperand(i) });
      i += 2;
    } else if (c === "." && source[i + 1] === "." && source[i + 2] === ".") {
      tokens.push({ kind: "punct", text: "...", start: i });
      i += 3;
    } else if (c === "?" && source[i + 1] === ".") {
      tokens.push({ kind: "punct", text: "?.", start: i });
      i += 2;
    } else {
      tokens.push({ kind: "punct", text: c, start: i });
      i += 1;
    }
  }
  return tokens;
}

/** Functions that return a fresh `require` (node:module's): a load through one is never a plain `require(…)`. */
const LOADER_FACTORIES = new Set(["createRequire", "createRequireFromPath"]);

/**
 * A string's text ending the way the code before a load's specifier does (`import(`, `require(`,
 * `import … from`, `export … from`, `import`), or naming `createRequire`: where a misread `/` moved
 * the quotes, the string ends at the opening quote of the specifier it hid.
 */
const LOAD_BEFORE_QUOTE =
  /\b(?:import|require)(?:\s|\/\*[\s\S]*?\*\/)*\((?:\s|\/\*[\s\S]*?\*\/)*$|\b(?:import|export)\b[^;]*\bfrom\s*$|(?<![-\w$.])import\s*$|\bcreateRequire\b/;

const isRelative = (s: string) => s.startsWith("./") || s.startsWith("../");

/** A file name a program runs: a JavaScript or TypeScript module, a shell, Python, Ruby, Perl or PHP script. */
export const SCRIPT_NAME = /^[^\s]*[^/\s]\.(?:[cm]?[jt]s|[jt]sx|sh|bash|zsh|py|rb|pl|php)$/i;

/** The imports, path-like strings and computed loads of a module's source. */
export function scanModuleSource(source: string): ModuleScan {
  const tokens = tokenize(source);
  const imports: string[] = [];
  const paths: string[] = [];
  const computed: string[] = [];
  const used = new Set<number>();
  const at = (k: number) => tokens[k];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    const prev = at(k - 1);
    const member = prev?.text === "." || prev?.text === "?.";
    if (
      t.kind === "str" &&
      prev?.kind === "id" &&
      (prev.text === "from" || prev.text === "import") &&
      !(at(k - 2)?.text === ".")
    ) {
      imports.push(t.text);
      used.add(k);
    } else if (t.kind === "id" && LOADER_FACTORIES.has(t.text)) {
      // A `require` made at run time (`createRequire(import.meta.url)`, `Module.createRequire`):
      // what the function it returns loads, under whatever name, cannot be followed.
      computed.push(source.slice(t.start, t.start + 60).split("\n")[0]!);
    } else if (t.kind === "id" && (t.text === "import" || t.text === "require") && !(t.text === "import" && member)) {
      const next = at(k + 1);
      if (t.text === "import" && next?.text !== "(") continue; // a static import (its string is taken above) or import.meta
      if (t.text === "require" && next?.text !== "(") {
        // `require` passed around or looked into (`require.resolve`, `const r = require`): what it loads cannot be followed.
        if (prev?.kind === "id" && (prev.text === "typeof" || prev.text === "function")) continue;
        if (next?.text === "." && at(k + 2)?.text === "main") continue;
        computed.push(source.slice(t.start, (next?.start ?? t.start) + 20).split("\n")[0]!);
        continue;
      }
      const arg = at(k + 2);
      const close = at(k + 3);
      if (arg?.kind === "str" && (close?.text === ")" || close?.text === ",")) {
        imports.push(arg.text);
        used.add(k + 2);
      } else if (arg?.kind === "tpl" && close?.text === ")" && !source.slice(arg.start, close.start).includes("${")) {
        imports.push(arg.text);
      } else {
        const end = tokens.slice(k + 2).findIndex((x) => x.text === ")");
        computed.push(
          source
            .slice(t.start, end < 0 ? t.start + 40 : tokens[k + 2 + end]!.start + 1)
            .split("\n")[0]!
            .slice(0, 80),
        );
      }
    }
  }
  // A file can be run by a name in any string, not just an import: `new Worker(new URL("w.mjs", …))`,
  // `` execFileSync(node, [`./w.mjs`]) ``, `execSync("node lib/w.mjs")`. Each word of each string
  // and template literal that reads like a relative path or names a script is a path.
  const pathWords = (text: string) => {
    for (const word of text.split(/[\s"'`=,;()[\]{}<>|&]+/))
      if (
        (isRelative(word) && !/^\.\.?\/$/.test(word)) ||
        (SCRIPT_NAME.test(word) && !word.includes("://")) ||
        word.startsWith("file:///")
      )
        paths.push(word);
  };
  tokens.forEach((t, k) => {
    if ((t.kind !== "str" && t.kind !== "tpl") || used.has(k)) return;
    if (isRelative(t.text) && !/^\.\.?\/$/.test(t.text)) paths.push(t.text);
    pathWords(t.text);
  });
  // Where the tokenizer guessed wrong (a `/` read as a regular expression where it divides, or the
  // reverse, moves every quote after it), code reads as a literal: the source's own words, wherever
  // they are, name files too, and a load word inside a literal cannot be followed (red team zp, ZP1).
  pathWords(source);
  for (const t of tokens) {
    const text = t.regex ? source.slice(t.start, t.end) : t.text;
    if (
      t.regex
        ? /\b(?:import|require|createRequire)\b/.test(text)
        : (t.kind === "str" || t.kind === "tpl") &&
          LOAD_BEFORE_QUOTE.test(text) &&
          !(t.kind === "tpl" && /\bimport\s*$/.test(text) && !/\(\s*$/.test(text))
    )
      computed.push(
        `${t.regex ? "a regular expression" : "a string"} holding a load: ${text.slice(0, 60).split("\n")[0]!}`,
      );
  }
  return { imports, paths: [...new Set(paths)], computed };
}
