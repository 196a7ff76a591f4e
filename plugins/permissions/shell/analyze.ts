/**
 * Walk a bash syntax tree and collect every simple command bash would run — in lists,
 * pipelines, subshells, groups, loops, functions, `$(…)`, backticks, process substitution,
 * heredoc bodies — plus the files it redirects into and everything that makes it impossible to
 * prove safe. Each simple command is then expanded through wrappers, `bash -c`, `eval`, `xargs`
 * and `find -exec` (commands.ts). Nothing is capped: a thousand commands are a thousand candidates.
 */
import type { Tree } from "web-tree-sitter";
import { parseShell, ShellParseError } from "./parser";
import { readTree } from "./read-tree";
import type { SyntaxNode } from "./syntax";
import { evalWord, literalWord, type ShellWord } from "./words";
import { builtinRisk, noteExports } from "./builtins";
import { expandCommand, type SimpleCommand } from "./commands";
import { isHarmlessExport, shellAssignmentRisk } from "./names";
import { joinContinuations } from "./continuations";
import { nodeHidesCode, nodeRisk } from "./grammar";
import type { ShellAnalysis } from "./types";

/** How deep `bash -c "eval '…'"` nesting is followed before giving up (this bounds nesting, not the number of commands). */
const MAX_NESTING = 8;

// Characters bash and the parser may disagree on (CR is a word character to bash but blank to
// tree-sitter), and invisible ones that make a command read differently than it runs.
// eslint-disable-next-line no-control-regex
const SUSPICIOUS =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u2069\u3000\ufeff]/;

/** Analyse a command string. Needs the grammar loaded (`loadShellParser()`). */
export function analyzeShell(source: string): ShellAnalysis {
  const known = analyses.get(source);
  if (known) {
    // Most recently used last: the oldest is dropped first.
    analyses.delete(source);
    analyses.set(source, known);
    return known;
  }
  const analysis = deepFreeze(analyzeFresh(source));
  // A parser that crashed or ran out of time says nothing of the text: the next decision parses again.
  if (parserFailed.has(analysis)) return analysis;
  analyses.set(source, analysis);
  if (analyses.size > MAX_ANALYSES) analyses.delete(analyses.keys().next().value!);
  return analysis;
}

/**
 * The analyses of the commands decided last, by their text: an agent runs the same commands again
 * and again (`git status`, `npm test`), and what a text means to bash does not change between
 * decisions (what it names on disk is judged at each decision, from the analysis). Frozen, so no
 * caller can change what the next decision reads.
 */
const analyses = new Map<string, ShellAnalysis>();
const MAX_ANALYSES = 256;
/** The analyses in which the parser failed (ShellParseError): never kept. */
const parserFailed = new WeakSet<ShellAnalysis>();

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function analyzeFresh(source: string): ShellAnalysis {
  const analysis: ShellAnalysis = {
    source,
    candidates: [],
    unsafe: [],
    writes: [],
    reads: [],
    cdTargets: [],
    cdUnknown: false,
    hidden: [],
    maybe: [],
    linkers: [],
    recursiveReads: [],
    unknownReaders: [],
    unknownWriters: [],
    copies: [],
    optionDirs: [],
    gitRepos: [],
    treeWriters: [],
    checkouts: [],
    persists: [],
    opensModes: [],
    exportsUnknown: [],
    assigned: [],
    unreadable: false,
  };
  analyzeInto(source, analysis, 0, undefined);
  analysis.unsafe = [...new Set([...analysis.unsafe, ...analysis.hidden])];
  analysis.hidden = [...new Set(analysis.hidden)];
  return analysis;
}

/** Analyse `source` (top level or the text of `bash -c`/`eval`) into `out`. */
export function analyzeInto(source: string, out: ShellAnalysis, depth: number, via: string | undefined): void {
  if (depth > MAX_NESTING) {
    unreadable(out, `commands nested more than ${MAX_NESTING} levels deep (bash -c / eval) are not followed`);
    return;
  }
  const bad = SUSPICIOUS.exec(source);
  if (bad)
    unreadable(
      out,
      `it contains the control or invisible character U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`,
    );
  const joined = joinContinuations(source);
  if (joined.uncertain) unreadable(out, `${joined.uncertain}, which bash may join differently from the parser`);
  let tree: Tree;
  try {
    tree = parseShell(joined.text);
  } catch (error) {
    // This call fails closed; the parser itself was reset, so the next one is judged normally.
    if (!(error instanceof ShellParseError)) throw error;
    unreadable(out, error.message);
    parserFailed.add(out);
    return;
  }
  let root: SyntaxNode;
  try {
    // The analysis reads a plain copy of the tree: reading web-tree-sitter's nodes is slow (syntax.ts).
    const copy = readTree(tree, joined.text);
    if (copy.hasError) unreadable(out, "bash syntax that could not be parsed");
    root = copy.root;
  } finally {
    tree.delete();
  }
  const skipped = skippedText(root, joined.text);
  if (skipped) unreadable(out, `the parser skipped ${JSON.stringify(skipped)}, which bash reads`);
  const commands: SimpleCommand[] = [];
  walk(root, commands, out);
  for (const command of commands) expandCommand(command, { out, depth, via, nested: analyzeInto });
}

/**
 * Visit every node once, in source order. Iterative on purpose: `a && b && …` nests one level
 * per operator, and ten thousand of them must not overflow the stack (that would be a cap).
 */
function walk(root: SyntaxNode, commands: SimpleCommand[], out: ShellAnalysis): void {
  const stack: [SyntaxNode, boolean, SyntaxNode?][] = [[root, false]];
  const trailing = new Map<SyntaxNode, SyntaxNode[]>();
  while (stack.length > 0) {
    const [node, fed, parent] = stack.pop()!;
    // The grammar table: a construct the analysis does not understand leaves the command unproven.
    const risk = nodeRisk(node);
    // A substitution the parser kept as text, arithmetic on a name, `${!x}`: code no candidate shows runs, like `eval "$x"`.
    if (risk) (nodeHidesCode(node, risk) ? out.hidden : out.unsafe).push(risk);
    const next: [SyntaxNode, boolean, SyntaxNode][] = [];
    const children = (feed: boolean) => {
      for (const child of node.namedChildren) next.push([child, feed, node]);
    };
    switch (node.type) {
      case "command":
        readCommand(node, fed, commands, out, trailing.get(node));
        children(false); // substitutions in its words read no pipe
        break;
      case "pipeline": {
        // Everything after a `|` or `|&` reads the previous command's output.
        let piped = fed;
        for (const child of node.children) {
          if (child.type === "|" || child.type === "|&") piped = true;
          else if (child.isNamed) next.push([child, piped, node]);
        }
        break;
      }
      case "redirected_statement": {
        // `rm 2>/dev/null -rf /`: the parser hangs the words after a redirection's target on the
        // redirection (more `destination`s), but bash passes them to the command as arguments.
        const extra = node.childrenForFieldName("redirect").flatMap(trailingWords);
        if (extra.length > 0) {
          // `a | b >f x`: the redirection (and x) belong to the pipeline's last command.
          let body = node.childrenForFieldName("body")[0];
          if (body?.type === "pipeline") body = body.namedChildren.at(-1);
          if (body?.type === "command") trailing.set(body, [...(trailing.get(body) ?? []), ...extra]);
          else unreadable(out, "words after a redirection that the parser attached to it");
        }
        children(fed || node.childrenForFieldName("redirect").some(isStdinRedirect));
        break;
      }
      case "file_redirect":
        readRedirect(node, out);
        children(false);
        break;
      case "process_substitution":
        // `>(sh)`: what the outer command writes to the path it is handed reaches this one's stdin.
        check(node, out, parent);
        children(node.text.startsWith(">("));
        break;
      default:
        check(node, out, parent);
        children(fed);
    }
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
  }
}

/**
 * Text that no leaf of the tree covers (outside blanks): the parser dropped it (`ls - <<-EOF`
 * loses the `-`), so the tree is not what bash runs.
 */
function skippedText(root: SyntaxNode, source: string): string | undefined {
  // The ranges the leaves cover (a here-document body's text is its own; its children are only
  // the expansions in it), then the first character outside all of them that is not blank.
  const ranges: number[][] = [];
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === "heredoc_body" || (node.childCount === 0 && node.type !== "program"))
      ranges.push([node.startIndex, node.endIndex]);
    else for (let i = node.childCount - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  ranges.sort((a, b) => a[0]! - b[0]!);
  let pos = 0;
  for (const [start, end] of [...ranges, [source.length, source.length]]) {
    for (; pos < start!; pos++) if (!/\s/.test(source[pos]!)) return source.slice(pos, pos + 20);
    pos = Math.max(pos, end!);
  }
  return undefined;
}

/** The text cannot be read as bash reads it: uncovered, and what it reads or writes is not known. */
function unreadable(out: ShellAnalysis, why: string): void {
  out.unsafe.push(why);
  out.unreadable = true;
}

/** Checks that depend on one node only: assignments, arithmetic, parse errors. */
function check(node: SyntaxNode, out: ShellAnalysis, parent: SyntaxNode | undefined): void {
  switch (node.type) {
    case "variable_assignment":
      checkAssignment(node, out, parent);
      break;
    case "for_statement": {
      // `for X in …` assigns X as `X=…` does (its name's risk is the grammar table's).
      const variable = node.childForFieldName("variable")?.text;
      if (variable) out.assigned.push(variable);
      break;
    }
    case "declaration_command":
      declarationLineBreak(node, out);
      // `declare "-i" n`, `declare -\i n`: the option as bash reads it, whatever its quoting.
      if (node.namedChildren.some((c) => c.type !== "variable_assignment" && /^-[a-zA-Z]*i/.test(evalWord(c).value)))
        out.hidden.push("declare -i evaluates values as arithmetic, which runs any command hidden in a variable");
      checkNames(node, out);
      break;
    case "unset_command":
      declarationLineBreak(node, out);
      checkNames(node, out);
      break;
    case "unary_expression": {
      // [[ -v a[$(…)] ]] evaluates the subscript
      const operand = node.namedChildren.at(-1);
      if (node.firstNamedChild?.text === "-v" && operand) {
        const risk = builtinRisk("test", [literalWord("test"), literalWord("-v"), evalWord(operand)]);
        if (risk) out.hidden.push(risk);
      }
      break;
    }
    case "test_command":
      unquotedTestWords(node, out);
      break;
    case "heredoc_redirect": {
      // The parser misses substitutions on indented heredoc lines (` $(cmd)`), which bash
      // runs when the delimiter is unquoted: such a body cannot be proven safe.
      const start = node.children.find((c) => c.type === "heredoc_start")?.text ?? "";
      const body = node.children.find((c) => c.type === "heredoc_body")?.text ?? "";
      const early = bodyEndsEarlier(node, start);
      if (early) unreadable(out, early);
      else if (!/['"\\]/.test(start) && /\$\(|`/.test(body))
        unreadable(out, "a heredoc whose text runs commands ($(…) or backticks) as bash expands it");
      // It misses `${…}` and `$[…]` there too (and `$[…]` on any line), which bash expands: `${!x}`,
      // `${x@P}`, `$[x]`, `${a[x]}` run code hidden in a variable, unseen by the checks of expansions.
      else if (!/['"\\]/.test(start) && literalHeredocText(node).some(missedExpansion))
        unreadable(out, "a heredoc whose text holds ${…} or $[…] the parser did not read, which bash expands");
      break;
    }
    case "string":
      quotedInsideDoubleQuotes(node, out);
      break;
    case "command_substitution":
      // Backticks nest through \`…\`, which the parser reads as plain text.
      if (node.text.startsWith("`") && node.text.includes("\\`"))
        unreadable(out, "nested backticks, which the parser does not read as commands");
      // A backtick inside that ends it early (`a <<< b` `c`): the parser joined two substitutions.
      else if (node.text.startsWith("`") && node.text.slice(1, -1).includes("`"))
        unreadable(out, "backticks the parser may have joined differently from bash");
      break;
    default:
      if (node.isMissing) unreadable(out, "bash syntax that could not be parsed");
  }
}

/**
 * Red team zs (ZS1): bash ends a here-document at the first line that is its delimiter, whatever
 * the lines before it hold, and expands the body afterwards; the parser reads expansions while it
 * reads the body, so a `${x:-` left open carries its body past that line (`cat <<EOF⏎${x:-⏎EOF⏎
 * touch m⏎}⏎EOF`: to bash `touch m` is a command after the here-document). A line of the body as
 * the parser read it that bash takes for the delimiter (its quotes removed, and with `<<-` its
 * leading tabs) means the two readings end the body in different places.
 */
function bodyEndsEarlier(node: SyntaxNode, start: string): string | undefined {
  const body = node.children.find((c) => c.type === "heredoc_body");
  if (!body || start === "") return undefined;
  const end = node.children.find((c) => c.type === "heredoc_end");
  const text = node.text.slice(body.startIndex - node.startIndex, (end ?? node).endIndex - node.startIndex);
  const tabs = node.children.some((c) => c.type === "<<-");
  // Quote removal, as bash does to the delimiter word ('EOF', "E"OF, E\OF and $'EOF' are EOF).
  const unquoted = start.replace(/\$(?=['"])/g, "").replace(/\\(.)|['"]/g, "$1");
  // Every complete line but the one the parser ends the body at.
  const lines = text.split("\n").slice(0, end ? -1 : undefined);
  const at = lines.findIndex((line) => {
    const read = tabs ? line.replace(/^\t+/, "") : line;
    return read === unquoted || read === start;
  });
  return at === -1
    ? undefined
    : `a here-document whose line ${at + 1} is its delimiter ${JSON.stringify(unquoted)}, where bash ends it, while the parser read on`;
}

/** The text of a here-document the parser kept literal: its content pieces, or the whole body when it found nothing in it. */
function literalHeredocText(node: SyntaxNode): string[] {
  return node
    .descendantsOfType(["heredoc_body", "heredoc_content"])
    .filter((c) => c.childCount === 0)
    .map((c) => c.text);
}

/** Whether literal here-document text (as the parser kept it) holds an unescaped `${` or `$[`, which bash expands. */
function missedExpansion(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === "$" && (text[i + 1] === "{" || text[i + 1] === "[")) return true;
  }
  return false;
}

/**
 * `[ $a ]` with a='-v x[$(cmd)]': an unquoted word of `[ … ]` splits into more words at run time,
 * which may be `-v NAME`, whose subscript bash evaluates as arithmetic (`[[ … ]]` does not split).
 */
function unquotedTestWords(node: SyntaxNode, out: ShellAnalysis) {
  if (!node.text.startsWith("[") || node.text.startsWith("[[")) return;
  const stack = [...node.children];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.type === "string" || n.type === "raw_string" || n.type === "ansi_c_string") continue;
    if (n.type === "simple_expansion" || n.type === "expansion" || n.type === "command_substitution") {
      out.hidden.push(
        `[ … ] with the unquoted ${n.text.slice(0, 40)}, which may split into -v NAME, whose subscript bash evaluates as arithmetic`,
      );
      return;
    }
    stack.push(...n.children);
  }
}

/**
 * `"${x:-'$(cmd)'}"`, `"${x+$'\\x60cmd\\x60'}"`: inside double quotes a `'` in a ${…} operand is a
 * plain character to bash (and `$'…'` is decoded first), so the substitution in it runs; the
 * parser reads a quoted, literal string. Any such string makes the text unreadable.
 */
function quotedInsideDoubleQuotes(node: SyntaxNode, out: ShellAnalysis) {
  const stack = [...node.children];
  while (stack.length > 0) {
    const n = stack.pop()!;
    // A substitution starts a new quoting context: its own quotes are read as bash reads them.
    if (n.type === "command_substitution" || n.type === "process_substitution") continue;
    if (n.type === "raw_string" || n.type === "ansi_c_string") {
      unreadable(
        out,
        `the quoted text ${n.text.slice(0, 40)} inside a double-quoted \${…}, where bash does not read the quotes and runs substitutions in it`,
      );
      return;
    }
    stack.push(...n.children);
  }
}

/**
 * `declare⏎\\ls`: the parser can read a word on the next line as one more name for declare,
 * local, export or unset, where bash ends the command at the line break and runs the next line.
 */
function declarationLineBreak(node: SyntaxNode, out: ShellAnalysis) {
  const text = node.text;
  if (!text.includes("\n")) return;
  let quote = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\" && quote !== "'") {
      i++;
      continue;
    }
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "\n") {
      out.hidden.push(
        `the parser read the next line as part of ${node.firstChild?.type ?? "a declaration"}, where bash ends it and runs that line`,
      );
      out.unreadable = true;
      return;
    }
  }
}

/** declare/local/export/readonly/unset name variables the way builtins do (builtins.ts). */
function checkNames(node: SyntaxNode, out: ShellAnalysis) {
  const keyword = node.firstChild?.type ?? "";
  const words = [literalWord(keyword)];
  for (const c of node.namedChildren) {
    if (c.type === "variable_assignment") continue;
    words.push(c.type === "variable_name" ? literalWord(c.text) : evalWord(c));
  }
  // A subscript evaluated, a name bash reads (`declare PATH=…`, `export "$v"`): code that runs unseen.
  const risk = builtinRisk(keyword, words);
  if (risk) out.hidden.push(risk);
  // `export NAME` of a value set before: the assignments are judged by checkAssignment, the bare names here.
  const bare = node.namedChildren.filter((c) => c.type !== "variable_assignment");
  noteExports(
    keyword,
    [literalWord(keyword), ...bare.map((c) => (c.type === "variable_name" ? literalWord(c.text) : evalWord(c)))],
    out,
  );
}

function isStdinRedirect(node: SyntaxNode): boolean {
  if (node.type === "heredoc_redirect" || node.type === "herestring_redirect") return true;
  return (
    node.type === "file_redirect" && node.children.some((c) => c.type === "<" || c.type === "<&" || c.type === "<>")
  );
}

/**
 * Words the parser hangs on a redirection that bash passes to the command as arguments: a file
 * redirection's destinations after its first (`>f x`), a here-document's `argument`s
 * (`cat <<EOF x`), and those of a redirection nested in a here-document (`<<EOF >f x`).
 */
function trailingWords(redirect: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  let destinations = 0;
  for (let i = 0; i < redirect.childCount; i++) {
    const field = redirect.fieldNameForChild(i);
    const child = redirect.child(i)!;
    if (redirect.type === "file_redirect" && field === "destination" && destinations++ > 0) {
      if (!isGluedDescriptor(child)) out.push(child);
    } else if (redirect.type === "heredoc_redirect" && field === "argument") out.push(child);
    else if (redirect.type === "heredoc_redirect" && field === "redirect") out.push(...trailingWords(child));
  }
  return out;
}

/**
 * One `command` node: prefix assignments, name, arguments (with `extra`: words the parser hung
 * on a redirection after it), and whether stdin is fed.
 */
function readCommand(
  node: SyntaxNode,
  fed: boolean,
  commands: SimpleCommand[],
  out: ShellAnalysis,
  extra: readonly SyntaxNode[] = [],
) {
  const words: ShellWord[] = [];
  const assignments: SimpleCommand["assignments"] = [];
  let stdinFed = fed;
  let lastWordEnd = -1;
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)!;
    const field = node.fieldNameForChild(i);
    if (field === "name" || field === "argument") {
      // Two words with nothing between them are one word to bash (`a\ <(b)`): the parser split it.
      if (child.startIndex === lastWordEnd) out.unsafe.push("the parser split one word in two where bash does not");
      lastWordEnd = child.endIndex;
      // `{x}>f`, `{a[i]}<f`: bash reads the word as a redirection that assigns a descriptor to a
      // variable (and evaluates its subscript as arithmetic); the parser reads an argument.
      if (VARIABLE_REDIRECT.test(child.text) && /[<>&]/.test(child.nextChar))
        out.hidden.push(
          `the redirection ${child.text.slice(0, 40)}${child.nextChar}…, which assigns a variable (and evaluates a subscript as arithmetic) where the parser reads an argument`,
        );
    }
    if (child.type === "variable_assignment") {
      const name = child.childForFieldName("name")?.text ?? "";
      const value = child.childForFieldName("value");
      assignments.push({ name, literal: !value || evalWord(value).literal });
    } else if (field === "name") {
      splitLine(child, out);
      words.push(evalWord(child.firstNamedChild ?? child));
    } else if (field === "argument" && isGluedDescriptor(child)) {
      // `exec 0< f`: bash reads the digits as the redirection's descriptor, the parser as an argument.
    } else if (field === "argument") {
      splitLine(child, out);
      if (child.type === "$") unreadable(out, 'a $"…" locale string, which the parser splits differently from bash');
      words.push(evalWord(child));
    } else if (field === "redirect" && isStdinRedirect(child)) {
      stdinFed = true;
    }
  }
  for (const word of extra) {
    splitLine(word, out);
    words.push(evalWord(word));
  }
  if (words.length > 0) commands.push({ words, assignments, stdinFed, offset: node.startIndex });
}

/** Digits right before `<` or `>` (`0<f`, `0<<<x`, `0<&3`): a descriptor to bash, which the parser reads as a word. */
function isGluedDescriptor(node: SyntaxNode): boolean {
  return /^[0-9]+$/.test(node.text) && (node.nextChar === "<" || node.nextChar === ">");
}

// An unquoted, unescaped line break ends a command in bash; the parser sometimes keeps it in a word.
function splitLine(node: SyntaxNode, out: ShellAnalysis) {
  // Without a line break in the command's text no word can hold one: skip the walk over its words.
  if (!node.text.includes("\n")) return;
  const words = node.type === "word" ? [node] : node.descendantsOfType("word");
  if (words.some((w) => /(^|[^\\])\n/.test(w.text)))
    out.unsafe.push("the parser read a line break as part of a word, where bash ends the command");
}

// `{name}` or `{name[subscript]}`: the word bash reads as a variable for a redirection's descriptor.
const VARIABLE_REDIRECT = /^\{[A-Za-z_][A-Za-z0-9_]*(?:\[[\s\S]*\])?\}$/;

const WRITE_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", ">&", "<>"]);

function readRedirect(node: SyntaxNode, out: ShellAnalysis) {
  const operator = node.children.find((c) => !c.isNamed && c.type !== "ERROR");
  const destination = node.childForFieldName("destination");
  if (!operator || !destination) return;
  const socket = networkRedirect(operator.type, evalWord(destination));
  if (socket) out.unsafe.push(socket);
  if (operator.type === "<" || operator.type === "<>") out.reads.push(evalWord(destination));
  if (!WRITE_OPERATORS.has(operator.type)) return;
  // `2>&1`, `>&2`, `>&-`: duplicating or closing a descriptor writes no file. Only digits are a
  // descriptor to bash: `>&0x41`, `>&64#zz` (numbers to the parser) write files of those names.
  const word = evalWord(destination);
  if (operator.type === ">&" && word.literal && /^(?:[0-9]+|-)$/.test(word.value)) return;
  out.writes.push({ word, kind: "redirect", at: node.startIndex });
}

/**
 * bash opens a TCP or UDP connection for a redirection from or to `/dev/tcp/HOST/PORT` or
 * `/dev/udp/HOST/PORT` (its own, whatever the file system holds): `cat < /dev/tcp/h/80` reaches
 * the network. A run-time target may be one unless its literal start rules it out (`./$f`, `/tmp/$f`).
 */
function networkRedirect(operator: string, word: ShellWord): string | undefined {
  if (operator === ">&" && (/^\d+$/.test(word.value) || word.value === "-")) return undefined;
  if (operator === "<&" && (/^\d+$/.test(word.value) || word.value === "-")) return undefined;
  const sockets = ["/dev/tcp/", "/dev/udp/"];
  if (word.literal) {
    return sockets.some((p) => word.value.startsWith(p))
      ? `the redirection ${word.text} opens a network connection (bash's /dev/tcp and /dev/udp)`
      : undefined;
  }
  const start = /^[^$`*?[{\\~]*/.exec(word.text.replace(/["']/g, ""))![0];
  return sockets.some((p) => p.startsWith(start) || start.startsWith(p))
    ? `the redirection ${word.text} is only known at run time and may be bash's /dev/tcp or /dev/udp, a network connection`
    : undefined;
}

/**
 * An assignment: exported ones (`X=v cmd`, `export X=v`, `declare -x X=v`) reach the programs the
 * command runs, so the variable must be one known to be harmless to them; a plain shell
 * assignment must not set a variable bash itself reads (PATH, IFS, BASH_ENV, PS4, …).
 */
function checkAssignment(node: SyntaxNode, out: ShellAnalysis, parent: SyntaxNode | undefined) {
  const name = (node.childForFieldName("name")?.text ?? "").replace(/\[.*$/, "");
  // The value, where it matters (a locale variable's, red team zg): undefined when only known at run time.
  const valueNode = node.childForFieldName("value");
  const valueWord = valueNode ? evalWord(valueNode) : literalWord("");
  const value = valueWord.literal && !node.text.includes("+=") ? valueWord.value : undefined;
  const exported =
    parent?.type === "command" ||
    (parent?.type === "declaration_command" &&
      (parent.firstChild?.type === "export" ||
        parent.namedChildren.some((c) => c.type === "word" && /^-[a-zA-Z]*x/.test(c.text))));
  if (exported) {
    if (!isHarmlessExport(name, value)) {
      out.unsafe.push(
        `it passes ${name} to the programs it runs, and ${name} is not a variable the engine knows to be harmless to them`,
      );
      out.exportsUnknown.push(name);
    }
    return;
  }
  // PATH, PS4, BASH_ALIASES, PROMPT_COMMAND, …: later commands run what no candidate shows.
  const risk = shellAssignmentRisk(name, value);
  if (risk) out.hidden.push(risk);
  out.assigned.push(name);
  // CDPATH makes `cd x` land somewhere else: relative paths after it are not known.
  if (name === "CDPATH") out.cdUnknown = true;
}
