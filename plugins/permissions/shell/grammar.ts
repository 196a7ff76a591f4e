/**
 * Every named node type of the tree-sitter-bash grammar, classified. An allow must be a proof, so
 * the analysis walks every node of a command and asks this table about it:
 * - `understood`: the analysis reads this construct completely, by the rule given (its words are
 *   evaluated by words.ts, its commands become candidates, its redirections are reads or writes);
 * - `opaque`: what it does cannot be known before it runs (arithmetic runs `$(…)` hidden in any
 *   variable it names, a function makes a later name run other code): the command is uncovered;
 * - `checked`: understood only in the forms the check accepts; any other form is opaque.
 * A node type missing from this table is opaque too (a newer grammar), and
 * test/permissions/grammar.test.ts fails on any type of `node-types.json` that is not listed.
 */
import { shellAssignmentRisk } from "./names";
import type { SyntaxNode } from "./syntax";

/** How the analysis treats one node type. */
export type NodeClass =
  | { kind: "understood"; rule: string }
  | { kind: "opaque"; why: string }
  | { kind: "checked"; rule: string; check: (node: SyntaxNode) => string | undefined }
  | { kind: "supertype"; rule: string };

const understood = (rule: string): NodeClass => ({ kind: "understood", rule });
const opaque = (why: string): NodeClass => ({ kind: "opaque", why });
const checked = (rule: string, check: (node: SyntaxNode) => string | undefined): NodeClass => ({
  kind: "checked",
  rule,
  check,
});
const ARITHMETIC = "arithmetic, which runs any command hidden in a variable or subscript it names";

// ${name}, ${#name}, and the operators whose words are plain words (walked as children):
// defaults, alternatives, errors, pattern removal and substitution, case changes. Not: `:=`/`=`
// (assigns a variable), `:off:len` (arithmetic), `!name` (indirection), `@op` (transformations,
// `@P` runs prompt expansion). A subscript is judged by its own node (a number, @ or * only).
const PLAIN_EXPANSION =
  /^\$\{#?(?:[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?|[0-9]+|[@*#?$!-])(?:(?::?[-+?])[\s\S]*|(?:##?|%%?)[\s\S]*|\/[\s\S]*|\^\^?|,,?)?\}$/;
// `${#}`, `${#@}`: counts; `${#-}` etc. are odd but harmless.
const COUNT = /^\$\{#[@*#?$!-]?\}$/;

const ARITHMETIC_TEST = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

/** The table: one entry per named node type of tree-sitter-bash 0.25. */
export const NODE_CLASSES: Readonly<Record<string, NodeClass>> = {
  // Supertypes name groups of types; a tree never holds a node of one.
  _expression: { kind: "supertype", rule: "a group of expression types, each classified below" },
  _primary_expression: { kind: "supertype", rule: "a group of word types, each classified below" },
  _statement: { kind: "supertype", rule: "a group of statement types, each classified below" },

  program: understood("the list of statements; each is walked"),
  list: understood("`a && b`, `a || b`, `a; b`: every command is a candidate"),
  pipeline: understood("every command is a candidate; those after `|` read the previous output"),
  negated_command: understood("`! cmd`: the command is a candidate"),
  command: understood("a simple command: program name, arguments and prefix assignments, judged by the program specs"),
  command_name: understood("the program's word, evaluated; a name only known at run time is uncovered"),
  redirected_statement: understood("a statement with redirections: each redirection is a read or a write"),
  file_redirect: understood("`>`, `>>`, `<`, `&>`, …: the destination is a write or read target"),
  file_descriptor: understood("the number before a redirection operator"),
  heredoc_redirect: understood("`<<`: feeds stdin; an unquoted body's substitutions are walked"),
  heredoc_start: understood("the delimiter; quoting decides whether the body expands"),
  heredoc_body: understood("the text fed to stdin; its substitutions are walked"),
  heredoc_content: understood("literal text of a here-document"),
  heredoc_end: understood("the closing delimiter"),
  herestring_redirect: understood("`<<<`: feeds its word to stdin"),
  subshell: understood("`( … )`: its commands are candidates"),
  compound_statement: checked("`{ …; }`: its commands are candidates; `(( … ))` of numbers only", (node) =>
    node.firstChild?.type === "((" && !numbersOnly(node) ? `an (( )) command on a name: ${ARITHMETIC}` : undefined,
  ),
  if_statement: understood("conditions and bodies are walked"),
  elif_clause: understood("condition and body are walked"),
  else_clause: understood("the body is walked"),
  while_statement: understood("`while`/`until`: condition and body are walked"),
  // `for PATH in .; do ls; done` sets PATH for the body: the loop's name is an assignment.
  for_statement: checked(
    "`for`/`select NAME in WORDS` of a name bash does not read: words evaluated, the body walked",
    (node) => {
      const name = node.childForFieldName("variable")?.text ?? "";
      const risk = shellAssignmentRisk(name);
      return risk ? `the loop over ${name}: ${risk}` : undefined;
    },
  ),
  do_group: understood("a loop body: walked"),
  case_statement: understood("the value and every item are walked"),
  case_item: understood("patterns are patterns (no command runs); the body is walked"),
  extglob_pattern: checked("a pattern in case or [[ ]]: matched, never run", unreadSubstitution),
  comment: understood("ignored by bash"),
  word: checked(
    "evaluated by words.ts: quotes and escapes removed, globs and braces make it run-time",
    unreadSubstitution,
  ),
  number: understood("a literal number"),
  string: checked('`"…"`: its literal parts and expansions evaluated', (node) =>
    node.text.startsWith('$"') ? 'a $"…" locale string, which bash translates at run time' : undefined,
  ),
  string_content: checked("literal text inside double quotes", unreadSubstitution),
  raw_string: understood("`'…'`: literal"),
  ansi_c_string: understood("`$'…'`: decoded as bash decodes it"),
  concatenation: understood("adjacent word parts, evaluated together"),
  brace_expression: understood("`{1..3}`: expands at run time, so the word is not literal"),
  simple_expansion: understood("`$name`, `$1`, `$@`: a value only known at run time"),
  variable_name: understood("a variable's name"),
  special_variable_name: understood("`$?`, `$@`, `$$`, …"),
  expansion: checked("`${name}` and its plain operators (defaults, patterns, case)", (node) =>
    PLAIN_EXPANSION.test(node.text) || COUNT.test(node.text)
      ? undefined
      : `the expansion ${node.text.slice(0, 40)}, whose form (indirection, offsets, assignment or a transformation) is not one the analysis reads`,
  ),
  // Inside an operand or a pattern the parser reads `$((x))` as `$(` around a subshell `(x)`; bash
  // reads arithmetic on x (a `$(` followed by `(` is arithmetic to bash whenever it ends in `))`).
  command_substitution: checked(
    "`$(…)` and backticks: their commands are candidates; the value is only known at run time",
    (node) =>
      node.text.startsWith("$((") && !numbersOnlyText(node.text)
        ? `${node.text.slice(0, 40)}, which bash may read as arithmetic on a name: ${ARITHMETIC}`
        : undefined,
  ),
  process_substitution: understood("`<(…)`, `>(…)`: their commands are candidates"),
  variable_assignment: understood(
    "NAME=value: the name is checked against the variables that change what runs, the value walked",
  ),
  variable_assignments: understood("several assignments: each checked"),
  array: checked("`(a b c)`: each element walked", (node) =>
    node.namedChildren.some((c) => c.text.startsWith("["))
      ? `an array element with [index]=: the index is ${ARITHMETIC}`
      : undefined,
  ),
  declaration_command: understood(
    "declare/typeset/local/export/readonly: names checked by builtins.ts (-n, -i and subscripts are uncovered)",
  ),
  // The grammar also reads csh's `unsetenv` so, where bash runs whatever program PATH holds by that name.
  unset_command: checked("unset: names checked by builtins.ts", (node) =>
    node.firstChild?.type === "unset"
      ? undefined
      : `${node.firstChild?.text ?? "the command"}, which is no bash builtin: bash runs a program by that name`,
  ),
  test_command: checked(
    "`[[ … ]]`, `[ … ]`: string and file tests, their brackets blank-separated; `[ … ]` joined by test's own operators",
    (node) =>
      bracketRisk(node) ??
      (node.descendantsOfType("test_operator").some((op) => ARITHMETIC_TEST.has(op.text))
        ? `an arithmetic comparison, which is ${ARITHMETIC}`
        : undefined),
  ),
  test_operator: understood("-f, -z, ==, …: an operator of a test"),
  unary_expression: understood(
    "`-f x` inside a test (arithmetic ones are under an opaque node); -v is checked by builtins.ts",
  ),
  binary_expression: understood("`a == b`, `a && b` inside a test (arithmetic ones are under an opaque node)"),
  parenthesized_expression: understood("`( … )` grouping inside a test"),
  regex: checked("the right side of =~ or a ${x/re/} pattern: matched, never run", unreadSubstitution),

  // Arithmetic of numbers alone is understood: nothing in it can name a variable, so nothing runs.
  arithmetic_expansion: checked("$(( … )) or $[ … ] of numbers and operators only", (node) =>
    numbersOnly(node) ? undefined : `$(( … )) or $[ … ] on a name: ${ARITHMETIC}`,
  ),
  c_style_for_statement: checked("for (( … )) of numbers only", (node) =>
    numbersOnly(node, "body") ? undefined : `a for (( … )) loop on a name: ${ARITHMETIC}`,
  ),
  subscript: checked("an index that is a number, @ or *", (node) =>
    /^[^[]*\[(?:[0-9]+|@|\*)\]$/.test(node.text)
      ? undefined
      : `the array subscript ${node.text.slice(0, 40)}: its index is ${ARITHMETIC}`,
  ),
  ternary_expression: opaque(`a ?: expression: ${ARITHMETIC}`),
  postfix_expression: opaque(`x++ / x--: ${ARITHMETIC}`),
  function_definition: opaque("a function definition, which makes a later command name run other code"),
  translated_string: opaque('a $"…" locale string, which bash translates at run time'),
};

// The operators `test` itself reads inside `[ … ]`; the parser's expression grammar knows more
// (`||`, `&&`, `<`, `>`, `|`, …), which to bash are list operators and redirections there.
const SINGLE_BRACKET_OPERATORS = new Set(["[", "]", "!", "=", "==", "!=", "-a", "-o"]);
const TEST_EXPRESSIONS = new Set(["binary_expression", "unary_expression", "parenthesized_expression", "test_command"]);

/**
 * `[ … ]` is a plain command to bash (`[` and its arguments), `[[ … ]]` a keyword only when it
 * stands alone: the parser reads both as test expressions. `[ -f x || rm y ]` runs `rm y ]`,
 * `[ x > f ]` truncates f, and `[-f x ]` runs a program named `[-f`; a test is understood only
 * when its brackets are words of their own and a `[ … ]` holds no operator `test` does not read.
 */
function bracketRisk(node: SyntaxNode): string | undefined {
  const open = node.firstChild?.type ?? "";
  const close = node.children.at(-1)?.type ?? "";
  const text = node.text;
  const blank = (c: string | undefined) => c === " " || c === "\t";
  if (!blank(text[open.length]) || !blank(text[text.length - close.length - 1]))
    return `the test ${text.slice(0, 40)}, whose brackets are not words of their own to bash`;
  if (open !== "[") return undefined;
  const stack = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    for (const c of n.children) {
      if (!c.isNamed && !SINGLE_BRACKET_OPERATORS.has(c.type))
        return `\`${c.type}\` inside [ … ], which bash reads as a shell operator or redirection, where the parser reads a test`;
      if (TEST_EXPRESSIONS.has(c.type)) stack.push(c);
    }
  }
  return undefined;
}

/**
 * Arithmetic of number literals and operators alone (`$((2*8))`): no name, word, expansion or
 * substitution anywhere in it (a `body` field, a loop's commands, is not part of the arithmetic).
 */
function numbersOnly(node: SyntaxNode, skipField?: string): boolean {
  const stack = node.children.filter((c) => c.field !== skipField || skipField === undefined);
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (
      n.isNamed &&
      n.type !== "number" &&
      n.type !== "binary_expression" &&
      n.type !== "unary_expression" &&
      n.type !== "parenthesized_expression"
    )
      return false;
    if (n.type === "number" && !/^[0-9]+$/.test(n.text)) return false;
    stack.push(...n.children);
  }
  return true;
}

/** How a risk of text holding a substitution the parser did not read begins (the analysis treats it as hidden code). */
export const UNREAD_SUBSTITUTION = "text with a substitution the parser did not read as one";

/**
 * Text the parser kept as plain text although bash would run a substitution in it: an unescaped
 * backtick, `$(`, `<(` or `>(` inside a word, a pattern or a ${…} operand (`${x:-\`id\`}`,
 * `${x#*$(id)}`). The parser reads those as characters; bash runs them. The same for an expansion
 * it kept as text (`[[ z =~ ${!x} ]]`, `${z/${x@P}/}`, `case z in *$[x]*)`, `"${z:-$[x]}"`):
 * bash expands it, and indirection, transformations, subscripts and arithmetic run the code
 * hidden in a variable, unseen by the check of expansions. Only `${name}` and its plain operators
 * with no further `$` in them, and arithmetic of numbers, are understood there.
 */
function unreadSubstitution(node: SyntaxNode): string | undefined {
  const text = node.text;
  if (!/[`($]/.test(text)) return undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (
      c === "`" ||
      (c === "(" && i > 0 && "$<>".includes(text[i - 1]!) && !(text[i - 1] === "$" && text[i + 1] === "("))
    ) {
      return `${UNREAD_SUBSTITUTION} (${text.slice(0, 40)}), which bash runs`;
    }
    if (c === "$" && unreadExpansion(text, i))
      return `${UNREAD_SUBSTITUTION} (the expansion in ${text.slice(0, 40)}), which bash expands and which may run code`;
  }
  return undefined;
}

/** `$((2*8))`: arithmetic of number literals and operators alone, as text. */
function numbersOnlyText(text: string): boolean {
  return /^\$\(\([0-9\s+*/%()-]*\)\)$/.test(text);
}

/** Whether `text` at `at` (a `$`) begins an expansion other than a plain `${name…}` or arithmetic of numbers. */
function unreadExpansion(text: string, at: number): boolean {
  const next = text[at + 1];
  if (next === "[") return true;
  if (next === "(") {
    if (text[at + 2] !== "(") return false;
    const end = text.indexOf("))", at);
    return end === -1 || !numbersOnlyText(text.slice(at, end + 2));
  }
  if (next !== "{") return false;
  const end = text.indexOf("}", at);
  if (end === -1) return true;
  const expansion = text.slice(at, end + 1);
  if (/[$`]/.test(expansion.slice(1)) || !(PLAIN_EXPANSION.test(expansion) || COUNT.test(expansion))) return true;
  // A subscript is arithmetic unless a number, @ or * (the subscript node's own rule).
  const subscript = /^\$\{#?[A-Za-z_][A-Za-z0-9_]*\[([^\]]*)\]/.exec(expansion)?.[1];
  return subscript !== undefined && !/^(?:[0-9]+|@|\*)$/.test(subscript);
}

/**
 * The node types whose risk is code that runs without being a command of the text: arithmetic
 * evaluates `$(…)` hidden in the value of any variable it names (`x='a[$(cmd)]'; : $((x))`),
 * `${!x}` and `${x@P}` expand values as code, a loop over PATH makes later names other programs.
 * Like `eval "$x"`, such a command may read and write anything (bypassPermissions without the
 * sandbox asks), not only go uncovered by allow rules. A type the table does not know is one too.
 */
const HIDING = new Set([
  "command_substitution",
  "compound_statement",
  "for_statement",
  "expansion",
  "arithmetic_expansion",
  "c_style_for_statement",
  "subscript",
  "ternary_expression",
  "postfix_expression",
  "test_command",
  "array",
]);

/** Whether this node's risk (from nodeRisk) is code that runs unseen, rather than a construct that is only not understood. */
export function nodeHidesCode(node: SyntaxNode, risk: string): boolean {
  return risk.startsWith(UNREAD_SUBSTITUTION) || HIDING.has(node.type) || !(node.type in NODE_CLASSES);
}

/** Why this node makes the command unprovable, or undefined when the analysis understands it. */
export function nodeRisk(node: SyntaxNode): string | undefined {
  if (!node.isNamed) return undefined;
  const cls = NODE_CLASSES[node.type];
  if (!cls) return node.type === "ERROR" ? undefined : `a ${node.type} node, which the analysis does not know`;
  switch (cls.kind) {
    case "opaque":
      return cls.why;
    case "checked":
      return cls.check(node);
    default:
      return undefined;
  }
}
