/**
 * Line continuations. Bash removes a backslash-newline before it splits words — outside quotes,
 * inside double quotes, `$(…)` and backticks — so `r\<newline>m` is `rm`, while the parser
 * reads two words. We remove them the way bash does before parsing, and where that depends on
 * context we do not track (here-document bodies, a continuation inside `$(…)` within double
 * quotes), we say so and the command cannot be proven safe.
 */

/** The source with continuations removed, and whether that was certain. */
export interface Joined {
  text: string;
  /** Why the removal may differ from bash's, when it may. */
  uncertain?: string;
}

/** Remove backslash-newline pairs as bash does. Cheap when there are none. */
export function joinContinuations(source: string): Joined {
  if (!source.includes("\\\n")) return { text: source };
  let out = "";
  let state: "normal" | "single" | "ansi" | "double" | "comment" = "normal";
  let nestedInDouble = false;
  let heredoc = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const next = source[i + 1];
    switch (state) {
      case "normal":
        if (c === "\\") {
          if (next === "\n") {
            i++;
            continue;
          }
          out += c + (next ?? "");
          i++;
          continue;
        }
        if (c === "'") state = source[i - 1] === "$" && !escaped(source, i - 1) ? "ansi" : "single";
        else if (c === '"') state = "double";
        else if (c === "#" && (i === 0 || /[\s;&|()]/.test(source[i - 1]!))) state = "comment";
        else if (c === "<" && next === "<" && source[i + 2] !== "<") heredoc = true;
        break;
      case "single":
        if (c === "'") state = "normal";
        break;
      case "ansi":
        if (c === "\\") {
          out += c + (next ?? "");
          i++;
          continue;
        }
        if (c === "'") state = "normal";
        break;
      case "double":
        if (c === "\\") {
          if (next === "\n") {
            if (nestedInDouble)
              return { text: source, uncertain: "a line continuation inside a substitution within double quotes" };
            i++;
            continue;
          }
          out += c + (next ?? "");
          i++;
          continue;
        }
        if (c === '"') {
          state = "normal";
          nestedInDouble = false;
        } else if ((c === "$" && next === "(") || c === "`") nestedInDouble = true;
        break;
      case "comment":
        if (c === "\n") state = "normal";
        break;
    }
    out += c;
  }
  if (heredoc) return { text: source, uncertain: "a line continuation in a command with a here-document" };
  return { text: out };
}

function escaped(source: string, at: number): boolean {
  let n = 0;
  for (let k = at - 1; k >= 0 && source[k] === "\\"; k--) n++;
  return n % 2 === 1;
}
