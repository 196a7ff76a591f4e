/**
 * A command's or skill's arguments put into its text, as Claude Code does: `$ARGUMENTS`,
 * `$ARGUMENTS[N]`, `$1`…`$9` (or from `$0`), `${CLAUDE_SESSION_ID}`. Shared by the commands plugin
 * (`/name args`) and the skills plugin (the Skill tool's `args`).
 */

/** A command's arguments split as a shell would split words (quotes group, no expansion). */
export function splitArguments(args: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = pattern.exec(args); m; m = pattern.exec(args))
    words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]!));
  return words;
}

/** `$ARGUMENTS[N]` (the word at 0-based index N, Claude Code's indexed form), `$ARGUMENTS`, `$N`. */
const PLACEHOLDER = /\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS\b|\$(\d)(?!\d)/g;
/** `$0` (not an amount such as `$0.15`): a body whose prose has it counts its words from 0. */
const ZERO = /\$0(?![\w.])/;
/** `$1`…`$9`. */
const NUMBERED = /\$[1-9](?!\d)/;
/** A fenced code block, whole: split() keeps it as an odd-numbered piece. */
const FENCED = /(^```[^\n]*\n[\s\S]*?^```[^\n]*$|^~~~[^\n]*\n[\s\S]*?^~~~[^\n]*$)/m;
/** `${CLAUDE_SESSION_ID}`: the session's id, as Claude Code substitutes it in commands and skills. */
const SESSION_ID = /\$\{CLAUDE_SESSION_ID\}/g;

/**
 * `body` with its arguments in place; a body that uses none gets them appended (as Claude Code does).
 * `$ARGUMENTS` is all of them, `$ARGUMENTS[N]` the word at 0-based index N. `$1`…`$9` count from 1,
 * as Claude Code's slash-command docs and Anthropic's own plugins write them, unless the body's prose
 * uses `$0` (Claude Code 2.1's skills docs count `$N` from 0: `$0` the first word, `$1` the second).
 * A placeholder with no word is left as written, as Claude Code leaves it. `$N` inside fenced code
 * is the code's own (a shell script's `$1`, `$0`) unless the prose uses `$N` too; a block opened
 * with ```` ```! ```` is no code sample but a command Claude Code runs once its placeholders are
 * in, so it counts as prose.
 */
export function substituteArguments(body: string, args: string, sessionId?: string): string {
  const text = sessionId === undefined ? body : body.replace(SESSION_ID, () => sessionId);
  const pieces = text.split(FENCED);
  const isProse = (piece: string, i: number) => i % 2 === 0 || piece.startsWith("```!");
  const prose = pieces.filter(isProse).join("\n");
  const first = ZERO.test(prose) ? 0 : 1;
  const numberedInCode = first === 0 || NUMBERED.test(prose);
  const words = splitArguments(args);
  let used = false;
  const substitute = (piece: string, numbered: boolean) =>
    piece.replace(PLACEHOLDER, (written, index: string | undefined, n: string | undefined) => {
      if (index !== undefined) return ((used = true), words[Number(index)] ?? written);
      if (n === undefined) return ((used = true), args);
      if (!numbered || Number(n) < first) return written;
      used = true;
      return words[Number(n) - first] ?? written;
    });
  // One pass a piece: a word that itself reads `$1` or `$ARGUMENTS` is never substituted again.
  const out = pieces.map((piece, i) => substitute(piece, isProse(piece, i) || numberedInCode)).join("");
  return used || !args ? out : `${out}\n\nARGUMENTS: ${args}`;
}
