/**
 * A seeded generator of bash command strings: words in every kind of quoting, escapes and line
 * continuations, parameter / command / arithmetic / process substitution, brace and tilde
 * expansion, every redirection operator, here-docs and here-strings, pipelines and lists,
 * compound commands, functions, wrappers (env, nice, timeout, xargs, find -exec, bash -c,
 * eval), interpreters with -c/-e, and the builtins that evaluate their arguments as code.
 * The same seed gives the same strings on every machine (mulberry32, no Math.random).
 */

import { existsSync } from "node:fs";
import { benignCorpusCandidates, loadBenignCorpus } from "../corpus/corpus";
import { programSpecs } from "../../../plugins/permissions/shell/specs";
import type { ProgramSpec } from "../../../plugins/permissions/shell/spec-format";

/** A small, fast, seedable PRNG. */
export class Random {
  private state: number;
  /** Which spec'd option comes next: they are drawn in turn, from a seeded start, so every one is reached. */
  specCursor: number;
  constructor(seed: number) {
    this.specCursor = seed >>> 0;
    this.state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

// Programs that do something worth seeing (all stubs in the sandbox but find/xargs/env/…).
const PROGRAMS = [
  "git",
  "rm",
  "cat",
  "ls",
  "curl",
  "sed",
  "tee",
  "cp",
  "grep",
  "python3",
  "node",
  "npm",
  "make",
  "touch",
  "sort",
  "tar",
  "dd",
  "head",
  "evil",
  "id",
];
const ARGS = [
  "-rf",
  "x",
  "a.txt",
  "sub",
  "status",
  "-n",
  "1",
  "--",
  "-c",
  "log",
  "-e",
  "o.txt",
  "-",
  "sub/b.txt",
  "--force",
  "-o",
  "push",
  "origin",
  "=",
  "%s",
];
const WRITE_TARGETS = [
  "o.txt",
  "sub/o.txt",
  "../up.txt",
  "/tmp/t.txt",
  "~/.bashrc",
  ".git/hooks/pre-commit",
  "tmp-link/x",
  "/dev/null",
  "'o u.txt'",
  '"$HOME/h.txt"',
  "$(echo f.txt)",
  "$'o\\x74.txt'",
  "o\\ t.txt",
  '"o".txt',
  ".env",
  "sub/../p.txt",
  "~/x.txt",
];
const READ_TARGETS = ["a.txt", "sub/b.txt", "/etc/hostname", ".env", "$f"];
const WRITE_OPS = [">", ">>", ">|", "&>", "&>>", "<>", "2>", "2>>", "1>", "3>", ">&", "1>>", "9<>"];

/**
 * Programs of a Debian /usr/bin (coreutils, findutils, util-linux, the usual tools), a fixed
 * snapshot so the same seed gives the same strings everywhere. The oracle stubs every one of them.
 */
export const BIN_PROGRAMS = [
  "arch",
  "b2sum",
  "base32",
  "basenc",
  "basename",
  "chcon",
  "chgrp",
  "chown",
  "cksum",
  "comm",
  "csplit",
  "cut",
  "df",
  "dir",
  "dircolors",
  "dirname",
  "du",
  "expand",
  "expr",
  "factor",
  "fmt",
  "fold",
  "groups",
  "hostid",
  "join",
  "link",
  "logname",
  "md5sum",
  "mkfifo",
  "mknod",
  "mktemp",
  "nl",
  "nproc",
  "numfmt",
  "od",
  "paste",
  "pathchk",
  "pinky",
  "pr",
  "printenv",
  "ptx",
  "readlink",
  "realpath",
  "runcon",
  "seq",
  "sha1sum",
  "sha256sum",
  "sha512sum",
  "shred",
  "shuf",
  "split",
  "stat",
  "stty",
  "sum",
  "sync",
  "tac",
  "tr",
  "truncate",
  "tsort",
  "tty",
  "uname",
  "unexpand",
  "uniq",
  "unlink",
  "users",
  "vdir",
  "who",
  "yes",
  "locate",
  "updatedb",
  "column",
  "hexdump",
  "look",
  "rev",
  "setsid",
  "logger",
  "mcookie",
  "namei",
  "script",
  "wall",
  "whereis",
  "getopt",
  "lsblk",
  "more",
  "diff",
  "cmp",
  "sdiff",
  "diff3",
  "patch",
  "file",
  "gzip",
  "gunzip",
  "zcat",
  "bzip2",
  "xz",
  "unxz",
  "zip",
  "unzip",
  "cpio",
  "ar",
  "strings",
  "objdump",
  "ld",
  "gcc",
  "cc",
  "c++",
  "m4",
  "bison",
  "flex",
  "pkg-config",
  "iconv",
  "locale",
  "localedef",
  "getent",
  "ldd",
  "gdb",
  "valgrind",
  "openssl",
  "gpg",
  "ssh-keygen",
  "scp",
  "sftp",
  "nc",
  "socat",
  "telnet",
  "ftp",
  "mail",
  "crontab",
  "at",
  "batch",
  "nohup",
  "renice",
  "pkill",
  "pgrep",
  "ps",
  "top",
  "free",
  "uptime",
  "w",
  "last",
  "lsof",
  "fuser",
  "watch",
  "tput",
  "clear",
  "reset",
  "ed",
  "ex",
  "view",
  "nano",
  "emacs",
  "jq",
  "yq",
  "tree",
  "fd",
  "fdfind",
  "bat",
  "delta",
  "hyperfine",
  "docker",
  "kubectl",
  "helm",
  "terraform",
  "aws",
  "gcloud",
  "az",
  "gh",
  "hub",
  "pip",
  "pip3",
  "pipx",
  "poetry",
  "uv",
  "cargo",
  "rustc",
  "go",
  "gofmt",
  "java",
  "javac",
  "mvn",
  "gradle",
  "dotnet",
  "ruby",
  "gem",
  "bundle",
  "rake",
  "php",
  "composer",
  "lua",
  "R",
  "Rscript",
  "julia",
  "deno",
  "bun",
  "pnpm",
  "yarn",
  "tsc",
  "eslint",
  "prettier",
  "pytest",
  "tox",
  "black",
  "ruff",
  "mypy",
  "just",
  "cmake",
  "ninja",
  "meson",
  "bazel",
  "ant",
  "sbt",
];

/** Every program name the generator may produce; the oracle stubs each (but the real ones it keeps). */
export const GENERATED_PROGRAMS: readonly string[] = [
  ...new Set([...PROGRAMS, ...BIN_PROGRAMS, ...programSpecs().keys()]),
];
const ORACLE_NAMES = new Set([
  ...GENERATED_PROGRAMS,
  "bash",
  "sh",
  "env",
  "nice",
  "timeout",
  "nohup",
  "xargs",
  "find",
  "true",
  "false",
  "cd",
  "export",
  "echo",
  "set",
  "test",
]);

// The corpus of real commands (issue 35, item 6), where present: mutated, they reach what people really type.
const CORPUS_FILE = benignCorpusCandidates().find((p) => existsSync(p));
// Only commands whose every program the oracle stubs (or keeps real on purpose): a real program
// run for real (apt-get, docker) starts helpers of its own, which say nothing about the engine.
const CORPUS: readonly string[] = CORPUS_FILE
  ? loadBenignCorpus(CORPUS_FILE)
      .map((e) => e.command)
      .filter(onlyKnownPrograms)
  : [];

function onlyKnownPrograms(command: string): boolean {
  if (command.includes("\n") || /[`$(]/.test(command)) return false;
  const names = [...command.matchAll(/(?:^|[;&|]\s*)([A-Za-z0-9_./+-]+)/g)].map((m) =>
    m[1]!.slice(m[1]!.lastIndexOf("/") + 1),
  );
  return names.length > 0 && names.every((n) => ORACLE_NAMES.has(n));
}

/** Every (program line, option) pair of the program specs: the spec'd options the generator must reach. */
export const SPEC_OPTIONS: readonly { line: string; option: string; spec: ProgramSpec }[] = [...programSpecs()].flatMap(
  ([name, spec]) => specLines(name, spec),
);

function specLines(line: string, spec: ProgramSpec): { line: string; option: string; spec: ProgramSpec }[] {
  const own = spec.optionNames.map((option) => ({ line, option, spec }));
  if (!spec.sub) return own.length > 0 ? own : [{ line, option: "", spec }];
  return [...own, ...[...spec.sub].flatMap(([sub, inner]) => specLines(`${line} ${sub}`, inner))];
}

/** Generate one command string. */
export function generate(rng: Random): string {
  const g = new Grammar(rng);
  return g.list(0);
}

/** `count` strings from `seed`, reproducibly. */
export function generateMany(count: number, seed: number): string[] {
  const rng = new Random(seed);
  return Array.from({ length: count }, () => generate(rng));
}

class Grammar {
  /** Function names defined so far (a body never calls the function being defined). */
  private defining: string | undefined;
  constructor(private readonly r: Random) {}

  list(depth: number): string {
    const n = 1 + (this.r.chance(0.5) ? this.r.int(3) : 0);
    let out = this.pipeline(depth);
    for (let i = 1; i < n; i++)
      out += this.r.pick(["; ", " && ", " || ", " & ", "\n", ";", " &&\n"]) + this.pipeline(depth);
    return out;
  }

  pipeline(depth: number): string {
    let out = this.command(depth);
    if (this.r.chance(0.2)) out += this.r.pick([" | ", " |& ", "|"]) + this.command(depth);
    if (this.r.chance(0.04)) out = `! ${out}`;
    if (this.r.chance(0.03)) out = `time ${out}`;
    return out;
  }

  command(depth: number): string {
    const r = this.r;
    if (depth < 2 && r.chance(0.25)) return this.compound(depth + 1);
    if (depth < 2 && r.chance(0.2)) return this.wrapper(depth + 1);
    if (r.chance(0.12)) return this.builtin(depth + 1);
    if (r.chance(0.12)) return this.construct(depth + 1);
    if (r.chance(0.14)) return this.specCommand(depth);
    if (r.chance(0.06)) return this.binCommand(depth);
    if (CORPUS.length > 0 && r.chance(0.08)) return this.mutated(depth);
    return this.simple(depth);
  }

  /** One construct of the grammar, by node type: every named type of node-types.json has one (grammar.test.ts). */
  construct(depth: number): string {
    const r = this.r;
    const s = () => this.simple(Math.max(depth, 2));
    const sub = () => `$(${s()})`;
    const snippets: Record<string, () => string> = {
      arithmetic_expansion: () =>
        r.pick([`echo $((x+1))`, `echo $[x*2]`, `echo $((1+2))`, `x='a[${sub()}]'; echo $((x))`]),
      ternary_expression: () => `echo $((x ? 1 : 2))`,
      postfix_expression: () => r.pick([`(( n++ ))`, `echo $((n--))`]),
      parenthesized_expression: () => r.pick([`echo $(( (1+2)*3 ))`, `[[ ( -n a ) ]] && ${s()}`]),
      c_style_for_statement: () => `for ((i=0; i<2; i++)); do ${s()}; done`,
      subscript: () =>
        r.pick([`a[${sub()}]=1`, `a['${sub()}']=1; ${s()}`, `echo \${a[${sub()}]}`, `echo \${a[1]} \${a[@]}`]),
      array: () => r.pick([`a=(x ${s().split(" ")[0]}); \${a[1]} y`, `a=(['${sub()}']=1)`, `declare -a b=(1 2)`]),
      expansion: () =>
        r.pick([
          "echo ${x:-y}",
          "echo ${x:1:2}",
          "echo ${!x}",
          "echo ${x@P}",
          "echo ${x:=rm}",
          "echo ${#x}",
          "echo ${x/a/b}",
          "echo ${x^^}",
          `echo \${x:-${sub()}}`,
          "echo ${!p*}",
        ]),
      brace_expression: () => r.pick(["echo {1..3}", "touch o{1..2}.txt"]),
      function_definition: () => `g() { ${s()}; }; g`,
      translated_string: () => `x=$"${r.pick(ARGS)}"; ${s()}`,
      string: () => `echo "a $x $(b) ${sub()}"`,
      raw_string: () => `echo '${r.pick(ARGS)} $x'`,
      ansi_c_string: () => `$'\x72m' x`,
      concatenation: () => `echo a"b"'c'$x`,
      simple_expansion: () => `echo $x $1 $@`,
      special_variable_name: () => `echo $? $$ $!`,
      variable_assignment: () => `x=${this.word(depth)} ${s()}`,
      variable_assignments: () => `a=1 b=${this.word(depth)}`,
      declaration_command: () =>
        r.pick([`declare x=1`, `local y`, `export Z=${this.word(depth)}`, `readonly q=1`, `declare -i n=x`]),
      unset_command: () => r.pick([`unset x`, `unset 'a[${sub()}]'`, `unset -f g`]),
      test_command: () =>
        r.pick([
          `[[ -f a.txt ]] && ${s()}`,
          `[ -n "$x" ] || ${s()}`,
          `[[ $x -eq 1 ]]`,
          `[[ a =~ ^x ]]`,
          `[[ a == @(a|b) ]]`,
        ]),
      unary_expression: () => `[[ ! -e x ]] && ${s()}`,
      binary_expression: () => `[[ a == b || c != d ]] && ${s()}`,
      test_operator: () => `[[ -d sub ]]`,
      regex: () => `[[ $x =~ ^[a-z]+$ ]]`,
      extglob_pattern: () => `case x in *.txt|a?) ${s()};; esac`,
      case_statement: () => `case $x in a) ${s()};; *) ${s()};; esac`,
      case_item: () => `case a in a|b) ${s()};; esac`,
      if_statement: () => `if ${s()}; then ${s()}; elif ${s()}; then ${s()}; else ${s()}; fi`,
      elif_clause: () => `if false; then :; elif true; then ${s()}; fi`,
      else_clause: () => `if false; then :; else ${s()}; fi`,
      while_statement: () => r.pick([`while false; do ${s()}; done`, `until true; do ${s()}; done`]),
      for_statement: () => r.pick([`for f in a b; do ${s()}; done`, `select f in a; do break; done < /dev/null`]),
      do_group: () => `for f in *.txt; do ${s()}; done`,
      compound_statement: () => r.pick([`{ ${s()}; }`, `(( 2 > 1 )) && ${s()}`, `(( x )) && ${s()}`]),
      subshell: () => `( ${s()} )`,
      pipeline: () => `${s()} | ${s()}`,
      list: () => `${s()} && ${s()} || ${s()}`,
      negated_command: () => `! ${s()}`,
      redirected_statement: () => `${s()} > o.txt 2>&1`,
      file_redirect: () => `${s()} ${r.pick(WRITE_OPS)} ${r.pick(WRITE_TARGETS)}`,
      file_descriptor: () => `${s()} 3> o.txt 2>&3`,
      heredoc_redirect: () => `cat <<EOF\n$x ${sub()}\nEOF\n`,
      heredoc_start: () => `cat <<'EOF'\n${sub()}\nEOF\n`,
      heredoc_body: () => `cat <<EOF\nplain\nEOF\n`,
      heredoc_content: () => `cat <<EOF\na $x b\nEOF\n`,
      heredoc_end: () => `cat <<-EOF\n\tx\n\tEOF\n`,
      herestring_redirect: () => `cat <<< ${this.word(depth)}`,
      process_substitution: () => `diff <(${s()}) >(${s()})`,
      command_substitution: () => `echo ${sub()} \`${s()}\``,
      comment: () => `${s()} # ${s()}`,
      number: () => `head -n 1 a.txt`,
      word: () => s(),
      variable_name: () => `for v in a; do echo $v; done`,
      command: () => s(),
      command_name: () => s(),
      program: () => s(),
      string_content: () => `echo "text"`,
      exec_redirections: () => `exec 3>o.txt; ${s()} >&3`,
    };
    const keys = Object.keys(snippets);
    return snippets[r.pick(keys)]!();
  }

  /** A program the engine has a spec for, with an option drawn from its spec (so every spec'd option is reached). */
  specCommand(depth: number): string {
    const r = this.r;
    const { line, option, spec } = SPEC_OPTIONS[r.specCursor++ % SPEC_OPTIONS.length]!;
    const value = () => r.pick([...ARGS, ...WRITE_TARGETS, ...READ_TARGETS]);
    const parts = [line];
    if (option) {
      const def = option.startsWith("--") ? spec.long.get(option) : spec.short.get(option);
      if (def && def.arity === 0) parts.push(option);
      else if (def?.optional) parts.push(`${option}=${value()}`);
      else if (option.startsWith("--") && r.chance(0.5)) parts.push(`${option}=${value()}`);
      else parts.push(option, ...(def?.arity === 2 ? [value(), value()] : [value()]));
    }
    if (r.chance(0.3)) parts.push(r.pick(["--zz-unknown", "-Y", "$x", "--"]));
    const n = r.int(3);
    for (let i = 0; i < n; i++) parts.push(this.word(depth));
    return parts.join(" ");
  }

  /** A program of /usr/bin with random options and arguments. */
  binCommand(depth: number): string {
    const r = this.r;
    const parts = [r.pick(BIN_PROGRAMS)];
    const n = r.int(4);
    for (let i = 0; i < n; i++)
      parts.push(
        r.pick([
          "-a",
          "-f",
          "-o",
          "-x",
          "--help",
          "--output=o.txt",
          "-c",
          "--exec",
          this.word(depth),
          r.pick(WRITE_TARGETS),
        ]),
      );
    return parts.join(" ");
  }

  /** A real command from the corpus, mutated: an option added, a word made run-time, a command appended. */
  mutated(depth: number): string {
    const r = this.r;
    const words = r.pick(CORPUS).split(" ");
    switch (r.int(6)) {
      case 0:
        words.splice(1 + r.int(words.length), 0, r.pick(["--zz-unknown", "-Y", "--exec=sh", "-c"]));
        break;
      case 1:
        words[r.int(words.length)] = "$x";
        break;
      case 2:
        words.push(r.pick([";", "&&", "|"]), this.simple(depth));
        break;
      case 3:
        words.push(r.pick(WRITE_OPS), r.pick(WRITE_TARGETS));
        break;
      case 4:
        return `$(${words.join(" ")})`;
      default:
        break;
    }
    return words.join(" ");
  }

  simple(depth: number): string {
    const r = this.r;
    const parts: string[] = [];
    if (r.chance(0.12)) parts.push(`${r.pick(["A", "x", "PATH", "GIT_PAGER", "LC_ALL"])}=${this.word(depth)}`);
    parts.push(this.name(depth));
    const n = r.int(4);
    for (let i = 0; i < n; i++) parts.push(this.word(depth));
    let out = parts.join(r.chance(0.06) ? " \\\n" : " ");
    if (r.chance(0.3)) out += this.redirect(depth);
    if (r.chance(0.08)) out += this.heredoc(depth);
    return out;
  }

  /** A program name, maybe written so that a naive reader would not recognise it. */
  name(depth: number): string {
    const r = this.r;
    const p = r.pick(PROGRAMS.filter((x) => x !== this.defining));
    const mid = Math.max(1, Math.floor(p.length / 2));
    const [a, b] = [p.slice(0, mid), p.slice(mid)];
    switch (r.int(22)) {
      case 0:
        return `${a}\\${b}`;
      case 1:
        return `'${a}'${b}`;
      case 2:
        return `"${a}"${b}`;
      case 3:
        return `$'\\x${p.charCodeAt(0).toString(16)}${p.slice(1)}'`;
      case 4:
        return `${a}""${b}`;
      case 5:
        return `\\${p}`;
      case 6:
        return `${a}\\\n${b}`;
      case 7:
        return `$"${p}"`;
      case 8:
        return `/usr/local/bin/${p}`;
      case 9:
        return `/usr/bin/${p}`;
      case 10:
        return depth < 2 ? `$(echo ${p})` : p;
      case 11:
        return `\`echo ${p}\``;
      case 12:
        return `{${p},${r.pick(ARGS)}}`;
      case 13:
        return `${p}\r`;
      case 14:
        return `$'${a}'${b}`;
      case 15:
        return `${a}$'\\${(b.charCodeAt(0)).toString(8)}'${b.slice(1)}`;
      default:
        return p;
    }
  }

  word(depth: number): string {
    const r = this.r;
    const w = r.pick(ARGS);
    switch (r.int(30)) {
      case 0:
        return `'${w} ${r.pick(ARGS)}'`;
      case 1:
        return `"${w}"`;
      case 2:
        return `$'${w}\\t'`;
      case 3:
        return `$"${w}"`;
      case 4:
        return `${w}\\\n${r.pick(ARGS)}`;
      case 5:
        return `"$HOME"`;
      case 6:
        return "${x:-rm}";
      case 7:
        return "$((1+2))";
      case 8:
        return depth < 3 ? `$(${this.simple(depth + 1)})` : w;
      case 9:
        return depth < 3 ? `\`${this.simple(depth + 1)}\`` : w;
      case 10:
        return depth < 3 ? `<(${this.simple(depth + 1)})` : w;
      case 11:
        return "{a,b}";
      case 12:
        return "~";
      case 13:
        return "~/k";
      case 14:
        return "*.txt";
      case 15:
        return "\\;";
      case 16:
        return "\\|";
      case 17:
        return "a\\ b";
      case 18:
        return `"${w}"'${r.pick(ARGS)}'`;
      case 19:
        return `\\${w}`;
      case 20:
        return "$x";
      case 21:
        return depth < 3 ? `"$(${this.simple(depth + 1)})"` : w;
      case 22:
        return "\\&";
      case 23:
        return `${w}\\`;
      default:
        return w;
    }
  }

  redirect(depth: number): string {
    const r = this.r;
    switch (r.int(8)) {
      case 0:
        return ` < ${r.pick(READ_TARGETS)}`;
      case 1:
        return ` <<< ${this.word(depth)}`;
      case 2:
        return r.pick([" 2>&1", " >&2", " 2>&-", " 1>&2"]);
      case 3:
        return depth < 3 ? ` > >(${this.simple(depth + 1)})` : " >/dev/null";
      default: {
        const op = r.pick(WRITE_OPS);
        return `${r.chance(0.3) ? " " : " "}${op}${r.chance(0.5) ? " " : ""}${r.pick(WRITE_TARGETS)}`;
      }
    }
  }

  heredoc(depth: number): string {
    const r = this.r;
    const quoted = r.chance(0.3);
    const dash = r.chance(0.3);
    const delim = quoted ? r.pick(["'EOF'", '"EOF"', "\\EOF"]) : "EOF";
    const body = r.pick([
      "hello",
      `$(${this.simple(depth + 1)})`,
      `  \`${this.simple(depth + 1)}\``,
      "$HOME",
      `\t$(${this.simple(depth + 1)})`,
    ]);
    return ` <<${dash ? "-" : ""}${delim}\n${body}\n${dash ? "\t" : ""}EOF\n`;
  }

  compound(depth: number): string {
    const r = this.r;
    const inner = () => this.list(depth);
    switch (r.int(11)) {
      case 0:
        return `(${inner()})`;
      case 1:
        return `{ ${inner()}; }`;
      case 2:
        return `if ${inner()}; then ${inner()}; else ${inner()}; fi`;
      case 3:
        return `for v in a b; do ${inner()}; done`;
      case 4:
        return `while false; do ${inner()}; done; until true; do ${inner()}; done`;
      case 5:
        return `case a.txt in *.txt) ${inner()} ;; esac`;
      case 6:
      case 7: {
        if (this.defining) return `(${inner()})`;
        const fname = r.pick(["f", "git", "ls", "cat"]);
        this.defining = fname;
        const body = inner();
        this.defining = undefined;
        const def = r.chance(0.5) ? `${fname}() { ${body}; }` : `function ${fname} { ${body}; }`;
        return `${def}; ${fname} ${r.pick(ARGS)}`;
      }
      case 8:
        return `[[ -n ${this.word(depth)} ]] && ${inner()}`;
      case 9:
        return `(( 1 )) && ${inner()}`;
      default:
        return `${inner()} ${this.redirect(depth)}`.replace(/\n /, "\n");
    }
  }

  wrapper(depth: number): string {
    const r = this.r;
    const inner = () => this.simple(depth);
    const text = () => this.list(depth);
    switch (r.int(20)) {
      case 0:
        return `env ${r.pick(["", "-i ", "A=1 ", "-u A ", "-- "])}${inner()}`;
      case 1:
        return `nice ${r.pick(["", "-n 1 ", "-5 "])}${inner()}`;
      case 2:
        return `timeout ${r.pick(["1", "-k 1 2", "--signal=KILL 1"])} ${inner()}`;
      case 3:
        return `nohup ${inner()}`;
      case 4:
        return `echo a | xargs ${r.pick(["", "-I{} ", "-n 1 ", "-0 "])}${inner()}`;
      case 5:
        return `find . -name '*.txt' ${r.pick(["-exec", "-execdir", "-ok"])} ${inner()} {} ${r.pick(["\\;", "+", "';'"])}`;
      case 6:
        return `bash -c ${quote(text(), r)}`;
      case 7:
        return `sh -c ${quote(text(), r)}`;
      case 8:
        return `eval ${quote(text(), r)}`;
      case 9:
        return `eval ${inner()}`;
      case 10:
        return `command ${r.pick(["", "-p ", "-v "])}${inner()}`;
      case 11:
        return `builtin eval ${quote(text(), r)}`;
      case 12:
        return `(exec ${r.pick(["", "-a n "])}${inner()})`;
      case 13:
        return `bash ${r.pick(["-e ", "-x ", "-o pipefail ", "--norc ", ""])}-c ${quote(text(), r)} ${r.pick(["", "_ a"])}`;
      case 14:
        return `${r.pick(["python3", "node", "perl"])} ${r.pick(["-c", "-e"])} ${quote("print(1)", r)}`;
      case 15:
        return `trap ${quote(text(), r)} EXIT`;
      case 16:
        return `bash <<< ${quote(text(), r)}`;
      case 17:
        return `echo ${quote(text(), r)} | ${r.pick(["bash", "sh", "bash -s"])}`;
      case 18:
        return `. /dev/stdin <<< ${quote(text(), r)}`;
      default:
        return `find . ${r.pick(["-name '*.txt'", "-type f", "-maxdepth 1"])} ${r.pick(["-print", "-delete", "-fprint o.txt", "-ls"])}`;
    }
  }

  /** Builtins and keywords that evaluate text as code or arithmetic, or change what runs. */
  builtin(depth: number): string {
    const r = this.r;
    const sub = `$(${this.simple(Math.max(depth, 2))})`;
    const subq = `'a[${sub}]'`;
    switch (r.int(31)) {
      // Red team w: where tree-sitter-bash reads other syntax than bash (W1, W3, W4, W6, W7, W8).
      case 23:
        return `[ ! -f x || ${this.simple(depth)} ]`;
      case 24:
        return `[ x ${r.pick([">", ">>", "<"])} ${r.pick(WRITE_TARGETS)} ]`;
      case 25:
        return `x=${subq}; cat <<EOF\n  ${r.pick(["${!x}", "${x@P}", "$[x]", "${a[x]}"])}\nEOF\n`;
      case 26:
        return `x=${subq}; z=abc; ${r.pick(["[[ z =~ ${!x} ]]", "echo ${z/${!x}/}", "case z in *$[x]*) ;; esac", 'echo "${w:-$[x]}"'])}`;
      case 27:
        return `exec 0< <(echo ${this.simple(depth)}); bash`;
      case 28:
        return `echo hi >&${r.pick(["0x41", "64#zz", "2"])}`;
      case 29:
        return `ls=${subq}; echo "\${w:-$((ls))}"`;
      case 30:
        return `echo ${this.simple(depth)} > >(bash)`;
      case 0:
        return `printf -v ${subq} %s x`;
      case 1:
        return `test -v ${subq}`;
      case 2:
        return `[ -v ${subq} ]`;
      case 3:
        return `[[ -v a[${sub}] ]]`;
      case 4:
        return `let ${subq}`;
      case 5:
        return `(( a[${sub}] ))`;
      case 6:
        return `read ${subq} <<< x`;
      case 7:
        return `declare ${subq}=1`;
      case 8:
        return `declare -n r=${subq}; echo $r`;
      case 9:
        return `x=${subq}; echo $((x))`;
      case 10:
        return `x=${subq}; [[ $x -eq 1 ]]`;
      case 11:
        return `export ${subq}=1`;
      case 12:
        return `f() { local ${subq}=1; }; f`;
      case 13:
        return `shopt -s expand_aliases\nalias g=${this.r.pick(PROGRAMS)}\ng x`;
      case 14:
        return `enable -n echo; echo hi`;
      case 15:
        return `typeset -i n=${subq}`;
      case 16:
        return `mapfile -t -C ${quote(this.simple(depth), r)} -c 1 l < a.txt`;
      case 17:
        return `x=${this.r.pick(PROGRAMS)}; $x -rf y`;
      case 18:
        return `a=r; b=m; $a$b z`;
      case 19:
        return `declare -a 'q=([0]=${sub})'`;
      case 20:
        return `source <(echo ${this.r.pick(PROGRAMS)} s)`;
      case 21:
        return `hash -p /usr/local/bin/${this.r.pick(PROGRAMS)} ${this.r.pick(PROGRAMS)}; ${this.simple(depth)}`;
      default:
        return `printf -v v %s ${this.word(depth)}; echo $v`;
    }
  }
}

/** Quote shell text for one more round of parsing, in one of bash's quoting styles. */
function quote(text: string, r: Random): string {
  switch (r.int(4)) {
    case 0:
      return `"${text.replace(/["\\$`]/g, "\\$&")}"`;
    case 1:
      return `$'${text.replace(/[\\']/g, "\\$&").replace(/\n/g, "\\n")}'`;
    default:
      return `'${text.replace(/'/g, "'\\''")}'`;
  }
}
