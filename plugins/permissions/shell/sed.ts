/**
 * Does a sed script run commands or write files? GNU sed's `e` command and `s///e` flag run
 * the shell; `w`/`W` and `s///w` write files (CVE-2025-64755 was a bypass of exactly this
 * check). The scanner follows sed's grammar command by command and fails closed: anything it
 * does not recognise counts as risky.
 */

/** The reason `script` is risky, or undefined when every command in it is known to be harmless. */
export function sedScriptRisk(script: string): string | undefined {
  const s = new Scanner(script);
  while (s.skipSeparators()) {
    if (!s.address()) return "a sed address it cannot read";
    s.skipBlanks();
    if (s.peek() === ",") {
      s.i++;
      s.skipBlanks();
      if (!s.address(true)) return "a sed address it cannot read";
    }
    s.skipBlanks();
    while (s.peek() === "!") {
      s.i++;
      s.skipBlanks();
    }
    const cmd = s.next();
    switch (cmd) {
      case "{":
      case "}":
      case "=":
      case "d":
      case "D":
      case "g":
      case "G":
      case "h":
      case "H":
      case "n":
      case "N":
      case "p":
      case "P":
      case "x":
      case "z":
      case "F":
        break;
      case "l":
      case "L":
      case "q":
      case "Q":
        s.skipBlanks();
        while (/[0-9]/.test(s.peek())) s.i++;
        break;
      case "#":
        s.restOfLine();
        break;
      case ":":
      case "b":
      case "t":
      case "T":
      case "v":
        // GNU sed 4.9 ends a label (and v's version) at a blank or `;`, and reads the next command
        // right after it: `: l;e cmd` and `:a w .npmrc` (no `;`) run cmd and write .npmrc. Older
        // seds read it to the line's end: reading what follows as commands is right for the first
        // and stricter for the others.
        s.skipBlanks();
        s.label();
        break;
      case "a":
      case "i":
      case "c":
        s.text();
        break;
      case "r":
      case "R":
        s.restOfLine(); // reads a file: reading is left to rules
        break;
      case "w":
      case "W":
        return `the sed command ${cmd} writes a file`;
      case "e":
        return "the sed command e runs a shell command";
      case "s": {
        const delim = s.next();
        if (!delim || delim === "\n" || delim === "\\") return "a sed s command it cannot read";
        if (!s.part(delim) || !s.part(delim)) return "a sed s command it cannot read";
        while (s.i < s.src.length && !/[;\n}]/.test(s.peek())) {
          const flag = s.next();
          if (flag === "e") return "the s///e flag runs the pattern space as a shell command";
          if (flag === "w") return "the s///w flag writes a file";
          if (!/[gpiImM0-9 \t]/.test(flag)) return `an s/// flag it does not know (${flag})`;
        }
        break;
      }
      case "y": {
        const delim = s.next();
        if (!delim || delim === "\n" || delim === "\\" || !s.part(delim) || !s.part(delim))
          return "a sed y command it cannot read";
        break;
      }
      default:
        return `a sed command it does not know (${JSON.stringify(cmd)})`;
    }
  }
  return undefined;
}

class Scanner {
  i = 0;
  constructor(readonly src: string) {}
  peek(): string {
    return this.src[this.i] ?? "";
  }
  next(): string {
    return this.src[this.i++] ?? "";
  }
  skipBlanks() {
    while (/[ \t]/.test(this.peek())) this.i++;
  }
  /** Skip blanks, newlines and `;` between commands; false at the end of the script. */
  skipSeparators(): boolean {
    while (/[ \t\n;]/.test(this.peek())) this.i++;
    return this.i < this.src.length;
  }
  /** An optional address: a line number, `$`, `first~step`, `+N`/`~N` (second only), `/re/`, `\cREc`. */
  address(second = false): boolean {
    const c = this.peek();
    if (/[0-9]/.test(c)) {
      while (/[0-9~]/.test(this.peek())) this.i++;
      return true;
    }
    if (c === "$") {
      this.i++;
      return true;
    }
    if (second && (c === "+" || c === "~")) {
      this.i++;
      while (/[0-9]/.test(this.peek())) this.i++;
      return true;
    }
    if (c === "/" || c === "\\") {
      this.i++;
      const delim = c === "/" ? "/" : this.next();
      if (!delim || delim === "\n") return false;
      if (!this.part(delim)) return false;
      while (/[IM]/.test(this.peek())) this.i++;
      return true;
    }
    return !second; // no address at all is fine for the first one
  }
  /** Consume up to (and including) an unescaped `delim`. */
  part(delim: string): boolean {
    while (this.i < this.src.length) {
      const c = this.next();
      if (c === "\\") {
        this.i++;
        continue;
      }
      if (c === delim) return true;
    }
    return false;
  }
  /** A comment (`lineOnly`): to the end of the line; a label: to the end of the line or a `;`. */
  /** A label or v's version: to the first blank, `;` or line break. */
  label() {
    while (this.i < this.src.length && !/[ \t\n;]/.test(this.peek())) this.i++;
  }
  restOfLine() {
    while (this.i < this.src.length && this.peek() !== "\n") this.i++;
  }
  /** The text of a/i/c: to the end of the line, continued by a trailing backslash. */
  text() {
    while (this.i < this.src.length) {
      const c = this.next();
      if (c === "\\") this.i++;
      else if (c === "\n") return;
    }
  }
}
