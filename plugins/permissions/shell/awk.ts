/**
 * Does an awk program run commands or write files? `system()`, pipes (`print | "cmd"`,
 * `"cmd" | getline`) and `print > "file"` do; extension loading does. The check is
 * deliberately coarse and errs towards "risky": awk is a full language, and a false alarm
 * costs one prompt while a miss costs a shell.
 */

/** The reason `program` is risky, or undefined. */
export function awkProgramRisk(program: string): string | undefined {
  if (/\bsystem\s*\(/.test(program)) return "awk system() runs a shell command";
  if (/@load\b|@include\b/.test(program)) return "awk @load/@include brings in code from elsewhere";
  const code = awkCode(program);
  if (code === undefined)
    return "the awk program has a string, regular expression or `/` the engine cannot read as awk does";
  if (/\bsystem\s*\(/.test(code)) return "awk system() runs a shell command";
  // gawk's `@` syntax is not awk: `@f(x)` calls the function whose name f holds, built-ins included
  // (`f = "system"; @f("cmd")` runs cmd), and @namespace and friends change what names mean.
  if (code.includes("@"))
    return "gawk's @ syntax (an indirect call such as @f() can call system() by a name held in a variable)";
  if (/\|/.test(code.replace(/\|\|/g, ""))) return "an awk pipe (| getline, print |) runs a command";
  if (/\bprintf?\b[^;{}\n]*>/.test(code)) return "awk print > file writes a file";
  // The program may set the files the main loop opens (ARGV, ARGC), a network name among them.
  if (/\bARG[VC]\b/.test(code))
    return "the awk program changes ARGV or ARGC, the files awk opens (gawk's /inet/… names are network connections)";
  // getline < FILE: gawk opens /inet/… names as network connections, so only a literal name
  // that is not one is understood (a name built at run time could be one).
  for (const m of program.matchAll(/\bgetline\b[^;{}\n<]*<\s*("(?:[^"\\\n]|\\.)*"|[^;{}\n]*)/g)) {
    const target = m[1]!.trim();
    if (!target.startsWith('"'))
      return "awk getline < reads a file named at run time (gawk's /inet/… names are network connections)";
    if (/^"\/+inet[46]?\//.test(target)) return "gawk's getline < /inet/… opens a network connection";
  }
  return undefined;
}

/**
 * The program as awk tokenizes it, with each string's text replaced by `""`, each regular
 * expression's by `//`, comments dropped and backslash-newlines joined, so that what is left is
 * code (red team n: a strip by patterns took the `/` of `4 / 2` for a regular expression's and
 * hid the `| "sh"` after it, and took a `"` inside `/"/` for a string's). A `/` is a regular
 * expression where awk expects an operand (after an operator or punctuation, or at the start of
 * a line) and a division after an operand (a name, number, string, `)`, `]`, `$`); after a keyword
 * (`print /x/`, `getline /x/`) the engine does not claim to know, and neither where a bracket
 * expression holds a `/` (awks differ there) or a string or expression runs past its line:
 * undefined then, and the caller refuses the program (fail closed).
 */
export function awkCode(program: string): string | undefined {
  const text = program.replace(/\\\r?\n/g, " ");
  let out = "";
  // What the last significant token was: an operand (a `/` divides), punctuation (a `/` starts a
  // regular expression), or a keyword (not known).
  let last: "operand" | "punct" | "keyword" = "punct";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "#") {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    }
    if (c === "\n") {
      out += c;
      i++;
      last = "punct";
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      out += c;
      i++;
      continue;
    }
    if (c === '"') {
      const end = closing(text, i, '"');
      if (end === undefined) return undefined;
      out += '""';
      i = end + 1;
      last = "operand";
      continue;
    }
    if (c === "/") {
      if (last === "keyword") return undefined;
      if (last === "operand") {
        out += c;
        i++;
        last = "punct";
        continue;
      }
      const end = regexEnd(text, i);
      if (end === undefined) return undefined;
      out += "//";
      i = end + 1;
      last = "operand";
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))?.[0];
    if (word) {
      out += word;
      i += word.length;
      last = AWK_KEYWORDS.has(word) ? "keyword" : "operand";
      continue;
    }
    const number = /^(?:0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)/.exec(text.slice(i))?.[0];
    if (number) {
      out += number;
      i += number.length;
      last = "operand";
      continue;
    }
    out += c;
    i++;
    // `x++ / 2` and `x-- / 2` divide; `)`, `]` and `$` end or stand for an operand.
    if ((c === "+" || c === "-") && text[i] === c && last === "operand") {
      out += c;
      i++;
      continue;
    }
    last = c === ")" || c === "]" ? "operand" : "punct";
  }
  return out;
}

// Words after which awk's grammar may expect an operand or not (`print /x/`, `getline /x/ …`).
const AWK_KEYWORDS = new Set([
  "BEGIN",
  "END",
  "BEGINFILE",
  "ENDFILE",
  "function",
  "func",
  "if",
  "else",
  "while",
  "for",
  "do",
  "break",
  "continue",
  "next",
  "nextfile",
  "exit",
  "return",
  "delete",
  "in",
  "getline",
  "print",
  "printf",
  "switch",
  "case",
  "default",
]);

/** Where the string or regular expression opened at `start` by `quote` closes, or undefined (past its line, or never). */
function closing(text: string, start: number, quote: string): number | undefined {
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") {
      if (text[i + 1] === "\n" || text[i + 1] === undefined) return undefined;
      i++;
    } else if (c === "\n") return undefined;
    else if (c === quote) return i;
  }
  return undefined;
}

/** Where the regular expression opened at `start` closes; undefined when a bracket expression holds a `/` or a newline. */
function regexEnd(text: string, start: number): number | undefined {
  const end = closing(text, start, "/");
  if (end === undefined) return undefined;
  const body = text.slice(start + 1, end);
  // A bracket expression: gawk reads `/[/]/` as one expression, other awks may not.
  const open = body.indexOf("[");
  if (open !== -1 && body.slice(open).includes("]") === false) return undefined;
  if (open !== -1) {
    const after = text.indexOf("]", start + 1 + open + 2);
    const inside = text.slice(start + 1 + open, after === -1 ? text.length : after);
    if (inside.includes("/") || after === -1 || after > end) {
      // Read it gawk's way only to see whether another awk would differ: refuse either way.
      return undefined;
    }
  }
  return end;
}
