/**
 * Builtins that evaluate their arguments as code. A variable name with a subscript is
 * evaluated as arithmetic, and arithmetic runs `$(…)` hidden in it or in any variable it names:
 * `read 'a[$(rm -rf ~)]'`, `printf -v 'a[$(…)]'`, `test -v 'a[$(…)]'` all run the command, though
 * the text is quoted. A name only known at run time could be such a name. `declare -n` makes
 * one name stand for another (`r=…` then sets PATH), a quoted compound assignment
 * (`declare -a 'q=([0]=$(…))'`) is parsed again, and an alias makes a later word run another
 * program. Each entry says where the names are; any of these forms makes the command unprovable.
 */
import { isHarmlessExport, SHELL_SET_OPTIONS, shellAssignmentRisk } from "./names";
import type { ShellWord } from "./words";
import type { ShellAnalysis } from "./types";

/** The words of a risk whose variable name is only known at run time (unknown, but not code hidden in the command). */
export const RUN_TIME_NAME = "names a variable only known at run time";

/** Where a builtin's variable names are, given its words (name first). */
type Names = (words: readonly ShellWord[]) => ShellWord[];

const afterOption = (option: string) => (words: readonly ShellWord[]) => {
  const out: ShellWord[] = [];
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    if (v === option) out.push(words[k + 1] ?? words[k]!);
    else if (v.startsWith(option) && /^-[a-zA-Z]/.test(v)) out.push({ ...words[k]!, value: v.slice(option.length) });
    else if (!words[k]!.literal) out.push(words[k]!);
  }
  return out;
};
const operands = (words: readonly ShellWord[]) => words.slice(1).filter((w) => !w.literal || !w.value.startsWith("-"));

const NAMES: Record<string, Names> = {
  // read NAME…, read -a NAME: each name is assigned, its subscript evaluated.
  read: operands,
  // mapfile/readarray ARRAY: the array name (and -C's callback, checked in risky.ts).
  mapfile: operands,
  readarray: operands,
  // printf -v NAME: the output goes to a variable; only the first word can be an option.
  printf: (words) =>
    words[1]?.literal === false
      ? [words[1]]
      : words[1]?.value === "-v" || words[1]?.value.startsWith("-v")
        ? afterOption("-v")(words.slice(0, 3))
        : [],
  // test -v NAME / [ -v NAME ]: testing whether a variable is set evaluates its subscript.
  test: afterOption("-v"),
  "[": afterOption("-v"),
  // wait -p NAME, getopts OPTSTRING NAME: both assign to a variable they are given.
  wait: afterOption("-p"),
  getopts: (words) => words.slice(2),
  // unset NAME: unset 'a[$(…)]' evaluates the subscript.
  unset: operands,
  // declare / typeset / local / export / readonly NAME[=value]
  declare: operands,
  typeset: operands,
  local: operands,
  export: operands,
  readonly: operands,
};

const NAMEREF = new Set(["declare", "typeset", "local"]);
const DECLARES = new Set(["declare", "typeset", "local", "export", "readonly"]);

/**
 * Does `set` (or a shell started with these options) turn on history expansion: `-H`, `-o
 * histexpand`, or an option only known at run time, which may be either? With the history on
 * (`-o history`), bash then rewrites every later line from its history before it parses it
 * (`cat !!:1`, `!echo:2`, `^a^b`): what runs is text no word of the command shows (red team k, K2).
 */
export function turnsOnHistoryExpansion(words: readonly ShellWord[], from = 1): boolean {
  for (let k = from; k < words.length; k++) {
    const w = words[k]!;
    if (!w.literal) return true;
    if (w.value === "--" || !/^[-+]/.test(w.value)) return false;
    if (!w.value.startsWith("-") || w.value.startsWith("--")) continue;
    if (w.value.includes("H")) return true;
    if (w.value.endsWith("o") || w.value.endsWith("O")) {
      // -o NAME (a shell's -O NAME is shopt's, none of which expands history)
      const name = words[k + 1];
      if (!name?.literal || (w.value.endsWith("o") && name.value === "histexpand")) return true;
      k++;
    }
  }
  return false;
}

/**
 * The shell variables this builtin call sets by name (`read X`, `printf -v X`, `getopts o X`,
 * `declare X=v`): literal identifiers only (a run-time or subscripted name is builtinRisk's). Not
 * test's or unset's names, which set nothing.
 */
export function assignedNames(program: string, words: readonly ShellWord[]): string[] {
  const names = NAMES[program];
  if (!names || program === "test" || program === "[" || program === "unset") return [];
  return names(words)
    .filter((w) => w.literal)
    .map((w) => w.value.split("=")[0]!)
    .filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
}

/** Why this builtin call evaluates hidden code, if it can. */
export function builtinRisk(program: string, words: readonly ShellWord[]): string | undefined {
  // set -H (shopt -o histexpand): later lines are rewritten from the history before bash parses them.
  if (
    (program === "set" && turnsOnHistoryExpansion(words)) ||
    (program === "shopt" &&
      words.some((w) => !w.literal || /^-[a-z]*o/.test(w.value)) &&
      words.some((w) => !w.literal || w.value === "histexpand"))
  )
    return `${program} turns on history expansion, which rewrites later lines of the command (!!:1, ^a^b) before bash reads them`;
  // compgen -W/-C/-F expand or run their word lists and functions; complete sets them up for later.
  if (program === "compgen" || program === "complete")
    return `${program} expands word lists and runs functions or commands it is given`;
  // fc re-runs commands from the history; bind -x binds keys to shell commands.
  if (program === "fc") return "fc runs commands from the shell's history";
  if (program === "bind" && words.some((w) => !w.literal || /^-[a-zA-Z]*x/.test(w.value)))
    return "bind -x makes a key run a shell command";
  // let EXPR…: every argument is arithmetic, and a variable in it is evaluated recursively.
  if (program === "let")
    return words.length > 1
      ? "let evaluates arithmetic, which runs any command hidden in a variable or subscript"
      : undefined;
  // hash -p PATH NAME: NAME then runs the program at PATH.
  if (program === "hash")
    return words.some((w) => !w.literal || /^-[a-zA-Z]*p/.test(w.value))
      ? "hash -p makes a command name run another program"
      : undefined;
  // alias NAME=TEXT: with expand_aliases, NAME then runs TEXT, which is not checked.
  if (program === "alias")
    return words.slice(1).some((w) => !w.literal || w.value.includes("="))
      ? "alias makes a later command name run other text"
      : undefined;
  const names = NAMES[program];
  if (!names) return undefined;
  if (NAMEREF.has(program) && words.some((w) => /^-[a-zA-Z]*n/.test(w.value)))
    return `${program} -n makes a name refer to another variable`;
  // declare -i NAME[=VALUE]: the value, and every later one, is evaluated as arithmetic.
  if (DECLARES.has(program) && words.some((w) => /^-[a-zA-Z]*i/.test(w.value)))
    return `${program} -i evaluates the value as arithmetic, which runs commands hidden in it`;
  let unknown: string | undefined;
  for (const w of names(words)) {
    if (!w.literal) {
      // `test "$a" = "$b"`: test's run-time words are mostly operands, and one is a name only after
      // -v. Anywhere else a run-time name may carry a subscript (`read "$n"` with n='a[$(cmd)]')
      // or a variable bash reads (`export "$v"` with v=PATH=…): code that runs unseen.
      // After -v, after another run-time word (which may be -v), or unquoted (`[ $a ]` splits into
      // `-v NAME`) it may be one.
      const before = words[words.indexOf(w) - 1];
      const operand = before?.literal === true && before.value !== "-v" && /^"[^"]*"$/.test(w.text);
      if (!((program === "test" || program === "[") && operand))
        return `${program} evaluates as arithmetic the subscript of a variable whose name (${w.text}) is only known at run time`;
      unknown ??= `${program} ${RUN_TIME_NAME} (${w.text})`;
      continue;
    }
    const name = w.value.split("=")[0]!;
    if (/\[(?!\d*\])/.test(name))
      return `${program} evaluates the subscript of ${name} as arithmetic, which runs commands hidden in it`;
    if (/^[^=[]*(\[[^\]]*\])?=\(/.test(w.value))
      return `${program} parses the quoted array assignment ${JSON.stringify(w.value)} again`;
    // read PATH, mapfile PATH, unset PATH, getopts x PATH: a variable bash itself reads, set (or unset) by name.
    // (An option's value, `read -d '' line`, is no name: only identifiers are judged.)
    const base = name.replace(/\[.*$/, "");
    const value = w.value.includes("=") ? w.value.slice(w.value.indexOf("=") + 1) : undefined;
    const risk = /^[A-Za-z_][A-Za-z0-9_]*$/.test(base) ? shellAssignmentRisk(base, value) : undefined;
    if (risk) return `${program} ${base}: ${risk}`;
  }
  return unknown;
}

/**
 * The variables `export NAME`, `declare -x NAME` (typeset, local) export by name, value or not:
 * a value set before (`TAR_OPTIONS=…; export TAR_OPTIONS`) reaches every later program as
 * `TAR_OPTIONS=… tar` would. Each one not known to be harmless to them, and `?` for a name only
 * known at run time; none for `export -n` and `-p`, which export nothing.
 */
function exportedNames(program: string, words: readonly ShellWord[]): string[] {
  const options = words.slice(1).filter((w) => w.literal && /^-/.test(w.value));
  const exporting =
    program === "export" || (DECLARES.has(program) && options.some((w) => /^-[a-zA-Z]*x/.test(w.value)));
  if (!exporting || options.some((w) => /^-[a-zA-Z]*[np]/.test(w.value))) return [];
  const out: string[] = [];
  for (const w of words.slice(1)) {
    if (!w.literal) out.push("?");
    else if (!w.value.startsWith("-")) {
      const name = w.value.split("=")[0]!.replace(/\[.*$/, "");
      const value = w.value.includes("=") ? w.value.slice(w.value.indexOf("=") + 1) : undefined;
      if (!isHarmlessExport(name, value)) out.push(name);
    }
  }
  return out;
}

/** Note the variables `exportedNames` finds: the command is uncovered, and they may change where its programs write. */
export function noteExports(program: string, words: readonly ShellWord[], out: ShellAnalysis): void {
  for (const name of exportedNames(program, words)) {
    const what = name === "?" ? "a variable only known at run time" : name;
    out.unsafe.push(
      `it exports ${what} to the programs it runs, and ${what} is not a variable the engine knows to be harmless to them`,
    );
    out.exportsUnknown.push(name);
  }
}

/**
 * Red team zs (ZS2): `shopt -s -o NAME` (`-so`, `-os`) turns on set's option NAME, as `set -o NAME`
 * does, and set's spec takes only the options of SHELL_SET_OPTIONS: `shopt -so allexport` exports
 * every later assignment (`TAR_OPTIONS=…; tar -tf a.tar` then runs tar's checkpoint action), and
 * `shopt -so keyword` makes `NAME=value` after a program's name an exported assignment. A name set
 * that way that set would not take, or one only known at run time, leaves the command unproven.
 */
export function noteShellOptions(program: string, words: readonly ShellWord[], out: ShellAnalysis): void {
  if (program !== "shopt") return;
  const options = words.slice(1).filter((w) => !w.literal || w.value.startsWith("-"));
  const named = (letter: string) => options.some((w) => !w.literal || new RegExp(`^-[a-zA-Z]*${letter}`).test(w.value));
  // Without -o the names are shopt's own; without -s nothing is turned on (-u, -p, -q, a query).
  if (!named("o") || !named("s")) return;
  const name = words.slice(1).find((w) => !w.literal || (!w.value.startsWith("-") && !SHELL_SET_OPTIONS.has(w.value)));
  if (!name) return;
  out.unsafe.push(
    `shopt -s -o ${name.text} turns on a set option the engine does not take from set either (allexport and keyword export every later assignment to the programs it runs)`,
  );
  out.exportsUnknown.push("allexport");
}
