/**
 * Rule text written as a command (`Bash(git commit -m "x")`) is compared with commands as the
 * analysis renders them (quotes removed where not needed), so the two must be rendered alike.
 */
import { parseShell, shellParserReady, ShellParseError } from "./parser";
import { readTree } from "./read-tree";
import type { SyntaxNode } from "./syntax";
import { evalWord, renderWords, type ShellWord } from "./words";

/** Render command-like rule text the way candidates are rendered; other text only has its whitespace squashed. */
export function normalizeCommandText(text: string): string {
  const squashed = text.replace(/\s+/g, " ").trim();
  if (!shellParserReady() || squashed === "") return squashed;
  let tree: ReturnType<typeof parseShell>;
  try {
    tree = parseShell(squashed);
  } catch (error) {
    if (error instanceof ShellParseError) return squashed; // the rule keeps its text as written
    throw error;
  }
  let root: SyntaxNode;
  try {
    const copy = readTree(tree, squashed);
    if (copy.hasError) return squashed;
    root = copy.root;
  } finally {
    tree.delete();
  }
  const only = root.namedChildren;
  if (only.length !== 1 || only[0]!.type !== "command") return squashed;
  const command = only[0]!;
  const words: ShellWord[] = [];
  for (let i = 0; i < command.childCount; i++) {
    const field = command.fieldNameForChild(i);
    const child = command.child(i)!;
    if (field === "name") words.push(evalWord(child.firstNamedChild ?? child));
    else if (field === "argument") words.push(evalWord(child));
    else return squashed; // assignments, redirects: keep the text as written
  }
  return words.every((w) => w.literal) ? renderWords(words) : squashed;
}
