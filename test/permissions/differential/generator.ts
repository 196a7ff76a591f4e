/**
 * A seeded generator of bash command strings: words in every kind of quoting, escapes and line
 * continuations, parameter / command / arithmetic / process substitution, brace and tilde
 * expansion, every redirection operator, here-docs and here-strings, pipelines and lists,
 * compound commands, functions, wrappers (env, nice, timeout, xargs, find -exec, bash -c,
 * eval), interpreters with -c/-e, and the builtins that evaluate their arguments as code.
 * The same seed gives the same strings on every machine (mulberry32, no Math.random).
 */

/** A small, fast, seedable PRNG. */
export class Random {
  private state: number;
  constructor(seed: number) {
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
const PROGRAMS = ["git", "rm", "cat", "ls", "curl", "sed", "tee", "cp", "grep", "python3", "node", "npm", "make", "touch", "sort", "tar", "dd", "head", "evil", "id"];
const ARGS = ["-rf", "x", "a.txt", "sub", "status", "-n", "1", "--", "-c", "log", "-e", "o.txt", "-", "sub/b.txt", "--force", "-o", "push", "origin", "=", "%s"];
const WRITE_TARGETS = [
  "o.txt", "sub/o.txt", "../up.txt", "/tmp/t.txt", "~/.bashrc", ".git/hooks/pre-commit", "tmp-link/x", "/dev/null", "'o u.txt'",
  "\"$HOME/h.txt\"", "$(echo f.txt)", "$'o\\x74.txt'", "o\\ t.txt", "\"o\".txt", ".env", "sub/../p.txt", "~/x.txt",
];
const READ_TARGETS = ["a.txt", "sub/b.txt", "/etc/hostname", ".env", "$f"];
const WRITE_OPS = [">", ">>", ">|", "&>", "&>>", "<>", "2>", "2>>", "1>", "3>", ">&", "1>>", "9<>"];

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
    for (let i = 1; i < n; i++) out += this.r.pick(["; ", " && ", " || ", " & ", "\n", ";", " &&\n"]) + this.pipeline(depth);
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
    return this.simple(depth);
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
      case 0: return `${a}\\${b}`;
      case 1: return `'${a}'${b}`;
      case 2: return `"${a}"${b}`;
      case 3: return `$'\\x${p.charCodeAt(0).toString(16)}${p.slice(1)}'`;
      case 4: return `${a}""${b}`;
      case 5: return `\\${p}`;
      case 6: return `${a}\\\n${b}`;
      case 7: return `$"${p}"`;
      case 8: return `/usr/local/bin/${p}`;
      case 9: return `/usr/bin/${p}`;
      case 10: return depth < 2 ? `$(echo ${p})` : p;
      case 11: return `\`echo ${p}\``;
      case 12: return `{${p},${r.pick(ARGS)}}`;
      case 13: return `${p}\r`;
      case 14: return `$'${a}'${b}`;
      case 15: return `${a}$'\\${(b.charCodeAt(0)).toString(8)}'${b.slice(1)}`;
      default: return p;
    }
  }

  word(depth: number): string {
    const r = this.r;
    const w = r.pick(ARGS);
    switch (r.int(30)) {
      case 0: return `'${w} ${r.pick(ARGS)}'`;
      case 1: return `"${w}"`;
      case 2: return `$'${w}\\t'`;
      case 3: return `$"${w}"`;
      case 4: return `${w}\\\n${r.pick(ARGS)}`;
      case 5: return `"$HOME"`;
      case 6: return "${x:-rm}";
      case 7: return "$((1+2))";
      case 8: return depth < 3 ? `$(${this.simple(depth + 1)})` : w;
      case 9: return depth < 3 ? `\`${this.simple(depth + 1)}\`` : w;
      case 10: return depth < 3 ? `<(${this.simple(depth + 1)})` : w;
      case 11: return "{a,b}";
      case 12: return "~";
      case 13: return "~/k";
      case 14: return "*.txt";
      case 15: return "\\;";
      case 16: return "\\|";
      case 17: return "a\\ b";
      case 18: return `"${w}"'${r.pick(ARGS)}'`;
      case 19: return `\\${w}`;
      case 20: return "$x";
      case 21: return depth < 3 ? `"$(${this.simple(depth + 1)})"` : w;
      case 22: return "\\&";
      case 23: return `${w}\\`;
      default: return w;
    }
  }

  redirect(depth: number): string {
    const r = this.r;
    switch (r.int(8)) {
      case 0: return ` < ${r.pick(READ_TARGETS)}`;
      case 1: return ` <<< ${this.word(depth)}`;
      case 2: return r.pick([" 2>&1", " >&2", " 2>&-", " 1>&2"]);
      case 3: return depth < 3 ? ` > >(${this.simple(depth + 1)})` : " >/dev/null";
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
    const body = r.pick(["hello", `$(${this.simple(depth + 1)})`, `  \`${this.simple(depth + 1)}\``, "$HOME", `\t$(${this.simple(depth + 1)})`]);
    return ` <<${dash ? "-" : ""}${delim}\n${body}\n${dash ? "\t" : ""}EOF\n`;
  }

  compound(depth: number): string {
    const r = this.r;
    const inner = () => this.list(depth);
    switch (r.int(11)) {
      case 0: return `(${inner()})`;
      case 1: return `{ ${inner()}; }`;
      case 2: return `if ${inner()}; then ${inner()}; else ${inner()}; fi`;
      case 3: return `for v in a b; do ${inner()}; done`;
      case 4: return `while false; do ${inner()}; done; until true; do ${inner()}; done`;
      case 5: return `case a.txt in *.txt) ${inner()} ;; esac`;
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
      case 8: return `[[ -n ${this.word(depth)} ]] && ${inner()}`;
      case 9: return `(( 1 )) && ${inner()}`;
      default: return `${inner()} ${this.redirect(depth)}`.replace(/\n /, "\n");
    }
  }

  wrapper(depth: number): string {
    const r = this.r;
    const inner = () => this.simple(depth);
    const text = () => this.list(depth);
    switch (r.int(20)) {
      case 0: return `env ${r.pick(["", "-i ", "A=1 ", "-u A ", "-- "])}${inner()}`;
      case 1: return `nice ${r.pick(["", "-n 1 ", "-5 "])}${inner()}`;
      case 2: return `timeout ${r.pick(["1", "-k 1 2", "--signal=KILL 1"])} ${inner()}`;
      case 3: return `nohup ${inner()}`;
      case 4: return `echo a | xargs ${r.pick(["", "-I{} ", "-n 1 ", "-0 "])}${inner()}`;
      case 5: return `find . -name '*.txt' ${r.pick(["-exec", "-execdir", "-ok"])} ${inner()} {} ${r.pick(["\\;", "+", "';'"])}`;
      case 6: return `bash -c ${quote(text(), r)}`;
      case 7: return `sh -c ${quote(text(), r)}`;
      case 8: return `eval ${quote(text(), r)}`;
      case 9: return `eval ${inner()}`;
      case 10: return `command ${r.pick(["", "-p ", "-v "])}${inner()}`;
      case 11: return `builtin eval ${quote(text(), r)}`;
      case 12: return `(exec ${r.pick(["", "-a n "])}${inner()})`;
      case 13: return `bash ${r.pick(["-e ", "-x ", "-o pipefail ", "--norc ", ""])}-c ${quote(text(), r)} ${r.pick(["", "_ a"])}`;
      case 14: return `${r.pick(["python3", "node", "perl"])} ${r.pick(["-c", "-e"])} ${quote("print(1)", r)}`;
      case 15: return `trap ${quote(text(), r)} EXIT`;
      case 16: return `bash <<< ${quote(text(), r)}`;
      case 17: return `echo ${quote(text(), r)} | ${r.pick(["bash", "sh", "bash -s"])}`;
      case 18: return `. /dev/stdin <<< ${quote(text(), r)}`;
      default: return `find . ${r.pick(["-name '*.txt'", "-type f", "-maxdepth 1"])} ${r.pick(["-print", "-delete", "-fprint o.txt", "-ls"])}`;
    }
  }

  /** Builtins and keywords that evaluate text as code or arithmetic, or change what runs. */
  builtin(depth: number): string {
    const r = this.r;
    const sub = `$(${this.simple(Math.max(depth, 2))})`;
    const subq = `'a[${sub}]'`;
    switch (r.int(23)) {
      case 0: return `printf -v ${subq} %s x`;
      case 1: return `test -v ${subq}`;
      case 2: return `[ -v ${subq} ]`;
      case 3: return `[[ -v a[${sub}] ]]`;
      case 4: return `let ${subq}`;
      case 5: return `(( a[${sub}] ))`;
      case 6: return `read ${subq} <<< x`;
      case 7: return `declare ${subq}=1`;
      case 8: return `declare -n r=${subq}; echo $r`;
      case 9: return `x=${subq}; echo $((x))`;
      case 10: return `x=${subq}; [[ $x -eq 1 ]]`;
      case 11: return `export ${subq}=1`;
      case 12: return `f() { local ${subq}=1; }; f`;
      case 13: return `shopt -s expand_aliases\nalias g=${this.r.pick(PROGRAMS)}\ng x`;
      case 14: return `enable -n echo; echo hi`;
      case 15: return `typeset -i n=${subq}`;
      case 16: return `mapfile -t -C ${quote(this.simple(depth), r)} -c 1 l < a.txt`;
      case 17: return `x=${this.r.pick(PROGRAMS)}; $x -rf y`;
      case 18: return `a=r; b=m; $a$b z`;
      case 19: return `declare -a 'q=([0]=${sub})'`;
      case 20: return `source <(echo ${this.r.pick(PROGRAMS)} s)`;
      case 21: return `hash -p /usr/local/bin/${this.r.pick(PROGRAMS)} ${this.r.pick(PROGRAMS)}; ${this.simple(depth)}`;
      default: return `printf -v v %s ${this.word(depth)}; echo $v`;
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
