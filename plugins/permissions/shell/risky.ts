/**
 * The table of program facts: for each program, the option forms that make it run other
 * programs or write files unseen, one entry each with the reason. (Its companions: outputs.ts
 * for the files a program writes as its output, reads.ts for the files it reads, wrappers.ts for
 * programs that run a command given to them, builtins.ts for builtins that evaluate names.)
 * Option forms that make an otherwise ordinary program run other programs or write files:
 * `git -c core.pager=…`, `--upload-pack`, `rg --pre` (CVE-2025-58764), sed `e`/`w`
 * (CVE-2025-64755), awk `system()`, `find -exec`/`-delete` (CVE-2026-24887), and kin. A rule
 * like `Bash(git:*)` never auto-allows these. For the programs listed here, an argument that is
 * only known at run time counts as risky too: it could be any of these forms.
 */
import type { ShellWord } from "./words";
import { sedScriptRisk } from "./sed";
import { awkProgramRisk } from "./awk";
import { hasOption, scanOptions } from "./options";
import { LANGUAGE_CHECKS } from "./languages";

type Check = (words: readonly ShellWord[]) => string | undefined;

const AWKS = ["awk", "gawk", "mawk", "nawk"];
/** The long options of gawk that bring in program text, a program file or a library. */
const AWK_CODE = ["file", "exec", "source", "include", "load"];
/** gawk's long options that write a file they name, or run the debugger's commands. */
const AWK_WRITES = ["profile", "pretty-print", "dump-variables", "debug"];

// git config keys that only set data. Any other key may name a program (core.pager,
// core.sshCommand, alias.*, *.textconv, filter.*.clean, credential.helper, include.path, …).
const SAFE_GIT_CONFIG =
  /^(user\.(name|email)|init\.defaultbranch|pull\.(rebase|ff)|push\.(default|autosetupremote|followtags)|fetch\.prune|rebase\.(autosquash|autostash)|merge\.conflictstyle|color\..*|advice\..*|core\.(autocrlf|filemode|ignorecase|quotepath|eol|safecrlf)|branch\.[^.]+\.(remote|merge|rebase)|log\..*|status\..*|diff\.(algorithm|renames|colormoved)|commit\.verbose|column\..*|help\.autocorrect)$/i;

// git's own commands: anything else is looked up as an alias (or a git-<name> program on PATH).
const GIT_COMMANDS = new Set([
  "add",
  "am",
  "annotate",
  "apply",
  "archive",
  "bisect",
  "blame",
  "branch",
  "bundle",
  "cat-file",
  "check-attr",
  "check-ignore",
  "check-ref-format",
  "checkout",
  "cherry",
  "cherry-pick",
  "clean",
  "clone",
  "commit",
  "commit-tree",
  "config",
  "count-objects",
  "describe",
  "diff",
  "diff-files",
  "diff-index",
  "diff-tree",
  "difftool",
  "fetch",
  "filter-branch",
  "for-each-ref",
  "format-patch",
  "fsck",
  "gc",
  "grep",
  "hash-object",
  "help",
  "init",
  "log",
  "ls-files",
  "ls-remote",
  "ls-tree",
  "merge",
  "merge-base",
  "mergetool",
  "mv",
  "name-rev",
  "notes",
  "pull",
  "push",
  "range-diff",
  "rebase",
  "reflog",
  "remote",
  "repack",
  "replace",
  "reset",
  "restore",
  "rev-list",
  "rev-parse",
  "revert",
  "rm",
  "send-email",
  "shortlog",
  "show",
  "show-branch",
  "show-ref",
  "sparse-checkout",
  "stash",
  "status",
  "submodule",
  "switch",
  "symbolic-ref",
  "tag",
  "update-index",
  "update-ref",
  "var",
  "verify-commit",
  "verify-tag",
  "version",
  "whatchanged",
  "worktree",
  "write-tree",
  "maintenance",
  "bugreport",
  "credential",
  "init-db",
]);

const GIT_GLOBAL_VALUE = [
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
  "--list-cmds",
];

function git(words: readonly ShellWord[]): string | undefined {
  let i = 1;
  for (; i < words.length; i++) {
    const v = words[i]!.value;
    if (!v.startsWith("-")) break;
    if (v === "-c" || v.startsWith("-c"))
      return "git -c sets configuration, and configuration can name programs to run (core.pager, alias.*)";
    if (v.startsWith("--config-env"))
      return "git --config-env sets configuration, and configuration can name programs to run";
    if (v.startsWith("--exec-path=")) return "git --exec-path= makes git run its helpers from another folder";
    if (GIT_GLOBAL_VALUE.includes(v)) i++;
  }
  const sub = words[i]?.value;
  const args = words.slice(i + 1).map((w) => w.value);
  for (const a of args) {
    if (/^--(upload-pack|receive-pack|exec)(=|$)/.test(a))
      return `git ${a.split("=")[0]} names a program for git to run`;
    if (/^--(template|config)(=|$)/.test(a) && (sub === "clone" || sub === "init"))
      return `git ${sub} ${a.split("=")[0]} can bring in hooks or configuration that run programs`;
  }
  // Diff and merge drivers named in the repository's config run on these.
  if (args.some((a) => /^--(ext-diff|textconv)$/.test(a)))
    return `git ${sub} --ext-diff/--textconv runs the diff programs the configuration names`;
  // An unknown subcommand may be an alias, and `alias.x = !cmd` runs a shell command.
  if (sub !== undefined && !GIT_COMMANDS.has(sub))
    return `git ${sub} is not a git command, so it may be an alias, which can run a shell command`;
  switch (sub) {
    case "config":
      if (args.some((a) => /^(-f|--file|--blob)(=|$)/.test(a) || /^-[a-zA-Z]*f/.test(a)))
        return "git config --file edits or reads a configuration file that was not checked";
      return gitConfigRisk(args);
    case "clone":
      if (args.some((a) => a === "-u" || a === "-c"))
        return "git clone -u/-c names a program or configuration for git to use";
      break;
    case "rebase":
      if (args.some((a) => a === "-x" || /^-[a-zA-Z]*x/.test(a)))
        return "git rebase -x runs a shell command after each commit";
      break;
    case "difftool":
    case "mergetool":
      if (args.some((a) => /^(-x|-t|--extcmd|--tool)/.test(a))) return `git ${sub} -x/--tool names a program to run`;
      break;
    case "grep":
      if (args.some((a) => /^(-O|--open-files-in-pager)/.test(a))) return "git grep -O opens a pager program";
      break;
    case "submodule":
      if (args.includes("foreach")) return "git submodule foreach runs a shell command";
      break;
    case "bisect":
      if (args[0] === "run") return "git bisect run runs a program";
      break;
    case "filter-branch":
      return "git filter-branch runs shell snippets";
    case "send-email":
      if (args.some((a) => /^--(to-cmd|cc-cmd|sendmail-cmd|smtp-server)/.test(a)))
        return "git send-email names a program to run";
      break;
  }
  return undefined;
}

/** Why `git config ARGS` sets a key that can name a program for git to run later, if it does. */
export function gitConfigRisk(args: string[]): string | undefined {
  if (args.some((a) => a === "-e" || a === "--edit")) return "git config --edit opens an editor program";
  const operands = args.filter((a) => !a.startsWith("-"));
  const verbs = new Set(["get", "list", "get-regexp", "get-all", "get-urlmatch", "get-color", "get-colorbool"]);
  if (verbs.has(operands[0] ?? "")) return undefined;
  const setting = operands[0] === "set" || operands[0] === "unset" ? operands.slice(1) : operands;
  const reading = setting.length < 2 && !args.some((a) => /^--(add|replace-all)$/.test(a));
  if (reading) return undefined;
  const key = setting[0] ?? "";
  if (SAFE_GIT_CONFIG.test(key)) return undefined;
  return `git config ${key} may name a program for git to run later`;
}

/**
 * GNU sed reads its options wherever they stand (`sed p notes.txt -e 'e cmd'` runs cmd: with an
 * -e anywhere, every operand is a file), and compiles each -e/-f script as it reaches it: --sandbox
 * refuses e/r/w only in the scripts after it (`sed -e '1e cmd' --sandbox` runs cmd), and in the
 * operand script (compiled after every option).
 */
function sedRisk(words: readonly ShellWord[]): string | undefined {
  let sandbox = false;
  let given = false;
  let operand: ShellWord | undefined;
  const scripts: string[] = [];
  const script = (value: string) => {
    given = true;
    if (!sandbox) scripts.push(value);
  };
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    if (v === "--") {
      operand ??= words[k + 1];
      break;
    }
    if (v.startsWith("--")) {
      const name = v.split("=")[0]!;
      const value = () => (v.includes("=") ? v.slice(name.length + 1) : (words[++k]?.value ?? ""));
      if (name === "--sandbox") sandbox = true;
      else if (name === "--expression") script(value());
      else if (name === "--file") {
        value();
        given = true;
        if (!sandbox) return "sed -f reads its script from a file that was not checked";
      } else if (name === "--line-length") value();
      continue;
    }
    if (v.startsWith("-") && v !== "-") {
      for (let i = 1; i < v.length; i++) {
        const c = v[i]!;
        if (c === "i") break; // -iSUFFIX: the rest is the suffix
        if (c !== "e" && c !== "f" && c !== "l") continue;
        const value = v.length > i + 1 ? v.slice(i + 1) : (words[++k]?.value ?? "");
        if (c === "e") script(value);
        if (c === "f") given = true;
        if (c === "f" && !sandbox) return "sed -f reads its script from a file that was not checked";
        break;
      }
      continue;
    }
    operand ??= words[k];
  }
  if (!given && operand && !sandbox) scripts.push(operand.value);
  for (const text of scripts) {
    const risk = sedScriptRisk(text);
    if (risk) return risk;
  }
  return undefined;
}

const checks: Record<string, Check> = {
  // git: -c/--config-env/--exec-path, --upload-pack/--receive-pack, config keys that name programs, aliases, drivers (see git()).
  git,
  // rg --pre runs a preprocessor program on every file (CVE-2025-58764).
  rg(words) {
    if (words.some((w) => /^--pre(=|$)/.test(w.value))) return "rg --pre runs a program on every file it searches";
    return undefined;
  },
  // sed: the e command and s///e run the shell, w/W and s///w write files, -f brings an unchecked script (CVE-2025-64755).
  sed: sedRisk,
  // find: -exec/-execdir/-ok/-okdir run programs, -delete removes, -fprint*/-fls write (CVE-2026-24887).
  find(words) {
    const bad = words.find((w) => /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(w.value));
    return bad
      ? `find ${bad.value} ${/delete|^-f/.test(bad.value) ? "deletes or writes files" : "runs a program on every file it finds"}`
      : undefined;
  },
  // fd -x/-X run a program per match.
  fd(words) {
    const bad = words.find((w) => /^(-x|-X|--exec|--exec-batch)$/.test(w.value));
    return bad ? `fd ${bad.value} runs a program on every file it finds` : undefined;
  },
  // env -S splits a string into a new command line.
  env(words) {
    if (words.some((w) => /^(-S|--split-string)/.test(w.value) || /^-[a-zA-Z]*S/.test(w.value)))
      return "env -S splits a string into a command line";
    return undefined;
  },
  // tar --to-command, -I/--use-compress-program, --checkpoint-action, -F/--info-script run programs.
  tar(words) {
    const bad = words.find(
      (w, i) =>
        /^--(to-command|use-compress-program|checkpoint-action|info-script|new-volume-script|rsh-command|rmt-command)(=|$)/.test(
          w.value,
        ) ||
        (/^-[a-zA-Z]*[IF]/.test(w.value) && !w.value.startsWith("--")) ||
        (i === 1 && /^[a-zA-Z]*[IF][a-zA-Z]*$/.test(w.value)),
    );
    return bad ? `tar ${bad.value} names a program for tar to run` : undefined;
  },
  // rsync -e/--rsh/--rsync-path name the remote shell or program to run.
  rsync(words) {
    const bad = words.find((w) => longOptionNamed(w.value, ["rsh", "rsync-path"]) || /^-[a-zA-Z]*e/.test(w.value));
    return bad ? `rsync ${bad.value} names a program for rsync to run` : undefined;
  },
  // sort --compress-program runs a program (its -o output is in outputs.ts).
  sort(words) {
    return words.some((w) => w.value.startsWith("--compress-program"))
      ? "sort --compress-program runs a program"
      : undefined;
  },
  // zip -TT/--unzip-command runs the test program it names.
  zip(words) {
    return words.some((w) => /^-TT/.test(w.value) || longOptionNamed(w.value, ["unzip-command"]))
      ? "zip -TT runs a program"
      : undefined;
  },
  // vim -c/+cmd/-S/--cmd run editor commands, and `:!` runs a shell.
  vim: editorRisk,
  vi: editorRisk,
  nvim: editorRisk,
  ex: editorRisk,
  view: editorRisk,
  // emacs --eval/-l/-f run Lisp, which can run anything.
  emacs(words) {
    return words.some(
      (w) =>
        /^-[lfx]/.test(w.value) ||
        longOptionNamed(w.value, ["eval", "execute", "load", "funcall", "batch", "script"], true),
    )
      ? "emacs --eval/--load runs Lisp code"
      : undefined;
  },
  // curl -K/--config reads options (an output file, a command) from a file that was not checked.
  curl(words) {
    return words.some((w) => /^(-K|--config)/.test(w.value) || /^-[a-zA-Z]*K/.test(w.value))
      ? "curl -K reads options from a file that was not checked"
      : undefined;
  },
  // wget -e runs wgetrc commands, and --use-askpass names a program.
  wget(words) {
    return words.some((w) => /^(-e|--execute|--use-askpass|--config)/.test(w.value))
      ? "wget -e/--config runs wgetrc commands that were not checked"
      : undefined;
  },
  // mapfile/readarray -C run a callback command every N lines.
  mapfile: mapfileRisk,
  readarray: mapfileRisk,
  // enable -f loads builtins from a shared library.
  enable(words) {
    return words.some((w) => /^-[a-zA-Z]*f/.test(w.value))
      ? "enable -f loads shell builtins from a shared library"
      : undefined;
  },
  // man -P/--pager and -H/--html name a program to run.
  man(words) {
    return words.some(
      (w) => /^-[a-zA-Z]*[PHC]/.test(w.value) || longOptionNamed(w.value, ["pager", "html", "config-file"]),
    )
      ? "man -P/-H names a program to run (-C, a configuration that names the pager)"
      : undefined;
  },
};
for (const name of AWKS) checks[name] = awkRisk;
// Red team zw: programs with a command language of their own (sqlite3, dc, m4, ssh's keywords, socat, netcat, lldb, openssl).
Object.assign(checks, LANGUAGE_CHECKS);
for (const name of ["gcc", "g++", "cc", "c++", "clang", "clang++", "tcc"]) checks[name] = compilerRisk;
// gdb runs commands from -x files, -ex text and its init files.
checks.gdb = (words) =>
  words.some(
    (w) =>
      /^-x/.test(w.value) ||
      longOptionNamed(
        w.value,
        ["x", "ex", "ix", "iex", "command", "eval-command", "init-command", "init-eval-command", "batch"],
        true,
      ),
  )
    ? "gdb -x/-ex runs debugger commands, which can run a shell"
    : undefined;
checks["ssh-keygen"] = (words) =>
  words.some((w) => /^-[a-zA-Z]*[Dw]/.test(w.value)) ? "ssh-keygen -D/-w loads a PKCS#11 or FIDO library" : undefined;
// perl's rename takes Perl code as its first argument.
checks.rename = (words) =>
  words.slice(1).some((w) => !w.value.startsWith("-") && /[(;`${}@]|\/e[a-z]*$/.test(w.value))
    ? "rename's expression is Perl code, which can run programs"
    : undefined;
// patch writes the files its diff names, which are not known before it runs.
checks.patch = (words) =>
  words.some((w) => /^(--dry-run|-C|--check)$/.test(w.value))
    ? undefined
    : "patch writes the files its diff names, which are not known before it runs";
checks.split = (words) =>
  words.some((w) => longOptionNamed(w.value, ["filter"])) ? "split --filter runs a shell command" : undefined;
// install -s runs the strip program --strip-program names (red team zr, ZR4).
checks.install = (words) =>
  words.some((w) => longOptionNamed(w.value, ["strip-program"]))
    ? "install --strip-program names a program for install to run"
    : undefined;
// Red team zs (ZS5): psql runs a shell through its backslash commands (`\! cmd`, `\copy … to program
// 'cmd'`, `\o |cmd`, `\g |cmd`) in -c text as well as on stdin, a -f file may hold them, and -o/-L
// write the file (or pipe to the command) they name. getopt_long: any start of a long option.
checks.psql = (words) => {
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    if (v === "--" || !v.startsWith("-")) continue;
    const option = psqlOption(v, words[k + 1]?.value);
    if (option?.name === "f" || option?.name === "o" || option?.name === "L")
      return `psql -${option.name} reads commands from a file or writes one it names (\\! and \\o |cmd run programs)`;
    if (option?.name === "c" && option.value.includes("\\"))
      return "psql -c holds a backslash command (\\!, \\copy … program, \\o |cmd run programs)";
  }
  return undefined;
};
// ed and ex run `!command` from their input.
checks.ed = () => "ed runs `!command` lines of its input";
checks.fdfind = checks.fd!;
checks.gtar = checks.bsdtar = checks.tar!;

/**
 * Whether a word names one of the long options `names` (written without dashes) as the program's
 * parser reads it: `--name`, `--name=value`, or any start of the name, which getopt_long, argp and
 * zip's parser take for the option (`split --f=CMD` is `--filter`, `zip --unzip CMD` is
 * `--unzip-command`: red team zr, ZR3). With `single`, also written with one dash and two letters
 * or more (getopt_long_only, gdb's `-eval-command`, emacs's `-eval`). A start shared with another
 * option counts too: the program refuses an ambiguous one, and the check asks.
 */
function longOptionNamed(value: string, names: readonly string[], single = false): boolean {
  const m = /^(--?)([A-Za-z][A-Za-z0-9-]*)(?:=|$)/.exec(value);
  if (!m) return false;
  if (m[1] === "-" && (!single || m[2]!.length < 2)) return false;
  return names.some((n) => n.startsWith(m[2]!));
}

/** psql's options that take a value, short and long (getopt_long's, any unambiguous start). */
const PSQL_VALUED = "cdfhLopPRTUvF";
const PSQL_LONG: Record<string, string> = { command: "c", file: "f", output: "o", "log-file": "L" };

/** The first of psql's -c, -f, -o or -L that `word` is, with its value (`next`: the word after it). */
function psqlOption(word: string, next = ""): { name: string; value: string } | undefined {
  if (word.startsWith("--")) {
    const named = Object.keys(PSQL_LONG).find((n) => longOptionNamed(word, [n]));
    if (!named) return undefined;
    const eq = word.indexOf("=");
    return { name: PSQL_LONG[named]!, value: eq === -1 ? next : word.slice(eq + 1) };
  }
  for (let i = 1; i < word.length; i++) {
    if (!PSQL_VALUED.includes(word[i]!)) continue;
    const value = i === word.length - 1 ? next : word.slice(i + 1);
    return "cfoL".includes(word[i]!) ? { name: word[i]!, value } : undefined;
  }
  return undefined;
}

// vi and friends: every option may run editor commands (-c, +cmd, -S, -s, -u vimrc, --cmd, clusters such as -sc).
function editorRisk(words: readonly ShellWord[]): string | undefined {
  return words.some((w, i) => i > 0 && /^[-+]./.test(w.value) && w.value !== "--")
    ? `${words[0]!.value} ${words.find((w, i) => i > 0 && /^[-+]./.test(w.value))!.value}: an editor's options run editor commands (-c, +cmd, -S, -u), which can run a shell`
    : undefined;
}

// C compilers: options that name a program or plugin to run, or read more options from a file.
function compilerRisk(words: readonly ShellWord[]): string | undefined {
  const bad = words.find(
    (w, i) =>
      i > 0 &&
      /^(-wrapper|-B|-fplugin|@|-specs|--specs|-fuse-ld|-Xlinker|-Wl,.*plugin|-iplugindir|--sysroot|-no-integrated-as|-fintegrated-as|--ld-path|-ccc-)/.test(
        w.value,
      ),
  );
  return bad
    ? `${words[0]!.value} ${bad.value} names a program, plugin or options file for the compiler to use`
    : undefined;
}

function mapfileRisk(words: readonly ShellWord[]): string | undefined {
  return words.some((w) => /^-[a-zA-Z]*C/.test(w.value)) ? "mapfile -C runs its callback as a command" : undefined;
}

function awkRisk(words: readonly ShellWord[]): string | undefined {
  const spec = {
    short: "FvfEeilW",
    long: ["--field-separator", "--assign", "--file", "--exec", "--source", "--include", "--load"],
  };
  const scan = scanOptions(words, 1, spec);
  // Red team zs (ZS4): gawk takes any unambiguous start of a long option (`--ex FILE`, `--so=TEXT`,
  // `--lo LIB`), and mawk's -W (gawk's too) names an implementation's option (`-W exec FILE`,
  // `-Wexec`, `-W e`, gawk's `-W source=TEXT`): each may bring in a program that was not checked
  // (`-` or /dev/stdin: a here-string's). Only the options' full names are read below.
  if (scan.dynamic) return "an awk option only known at run time, or one written as the start of its name";
  const abbreviated = scan.seen.find(
    (w) => /^--[^=]/.test(w.value) && !spec.long.includes(w.value.split("=")[0]!) && longOptionNamed(w.value, AWK_CODE),
  );
  if (abbreviated)
    return `awk ${abbreviated.text}: the start of an option that brings in a program (${AWK_CODE.join(", ")})`;
  // Red team zw: gawk's -p, -o and -d take a file only attached (`-p/tmp/x`, `--prof=/tmp/x`) and
  // write it wherever it is, and -D (--debug) runs the debugger's commands from a file or stdin.
  const writes = scan.seen.find(
    (w) =>
      (/^-[^-]/.test(w.value) && /^[^FvfEeilW]*[pdoD]/.test(w.value.slice(1))) || longOptionNamed(w.value, AWK_WRITES),
  );
  if (writes)
    return `awk ${writes.text}: gawk's profile, pretty-print or variable dump writes the file it names, and its debugger runs commands`;
  if (hasOption(scan, [], "W", spec))
    return "awk -W names an implementation's option (mawk's -W exec, gawk's -W source=), which may bring in a program";
  // gawk opens `/inet/tcp/LPORT/HOST/PORT` (and /inet4, /inet6, udp) as a network connection,
  // an operand as much as a redirection, --sandbox or not.
  const network = words.slice(scan.index).find((w) => w.literal && /^\/+inet[46]?\//.test(w.value));
  if (network) return `gawk opens ${network.text} as a network connection`;
  if (hasOption(scan, ["--sandbox"], "S", spec)) return undefined;
  if (hasOption(scan, ["--file", "--exec", "--include", "--load"], "fEil", spec))
    return "awk -f/-E/-i/-l brings in a program that was not checked";
  const sources = scan.seen.flatMap((w, k) =>
    w.value === "-e" || w.value === "--source" ? [scan.seen[k + 1]?.value ?? ""] : [],
  );
  if (sources.length === 0) sources.push(words[scan.index]?.value ?? "");
  for (const program of sources) {
    const risk = awkProgramRisk(program);
    if (risk) return risk;
  }
  return undefined;
}

/** Programs whose option forms are checked here (so their run-time arguments are risky too). */
export const CHECKED_PROGRAMS: ReadonlySet<string> = new Set(Object.keys(checks));

/**
 * Why this command's options make it run other programs or write files, if they do. `open`
 * means more arguments arrive at run time (xargs), which could be any option.
 */
export function riskyOptions(program: string, words: readonly ShellWord[], open: boolean): string | undefined {
  const check = checks[program];
  if (!check) return undefined;
  if (open) return `${program} gets more arguments at run time, which could include options that run programs`;
  const dynamic = words.find((w) => !w.literal);
  if (dynamic)
    return `an argument of ${program} (${dynamic.text}) is only known at run time, and could be an option that runs programs`;
  return check(words);
}

// Package managers' commands that only read (everything else may run the package's scripts).
const PM_READS = new Set([
  "view",
  "info",
  "show",
  "ls",
  "list",
  "outdated",
  "search",
  "help",
  "whoami",
  "ping",
  "doctor",
  "why",
  "explain",
  "root",
  "prefix",
  "bin",
  "config",
  "get",
  "--version",
  "-v",
]);
/**
 * Python's (and Ruby's) environment runners and the sub-command that runs any command in the project's
 * environment, as `npx` and `npm exec` do: `Bash(uv:*)` (a Python developer's usual rule) covered
 * `uv run rm -rf ~` and `uv run ./x.sh` as a program the user vouched for (trial zg).
 */
const ENV_RUNNERS: Record<string, string> = {
  uv: "run",
  poetry: "run",
  pipenv: "run",
  pdm: "run",
  hatch: "run",
  rye: "run",
  pixi: "run",
  conda: "run",
  bundle: "exec",
};
const SUBCOMMAND_RUNS: Record<string, ReadonlySet<string> | "all"> = {
  // go generate runs //go:generate commands; go's tests and cgo builds are project code.
  go: new Set(["run", "test", "generate", "build", "install", "vet"]),
};

/**
 * Why a command runs code from the project (package scripts, a Makefile, a module, a sourced
 * file) rather than a fixed program: a rule naming only the program (`Bash(npm:*)`) does not
 * cover it; a rule naming what it runs (`Bash(npm test)`, `Bash(make build:*)`) does.
 */
export function projectCodeRisk(program: string, words: readonly ShellWord[]): string | undefined {
  const sub = words.slice(1).find((w) => !w.literal || !w.value.startsWith("-"));
  switch (program) {
    case "npm":
    case "pnpm":
    case "yarn":
    case "bun":
      // install and friends run lifecycle scripts; run/test/start/exec run package scripts or binaries.
      return sub?.literal && PM_READS.has(sub.value)
        ? undefined
        : `${program} ${sub?.text ?? ""} runs scripts from the project's package.json`.replace("  ", " ");
    case "npx":
    case "pnpx":
    case "bunx":
    case "uvx":
      return `${program} runs a package's code`;
    case "make":
    case "gmake":
    case "just":
    case "rake":
      return `${program} runs the recipes of the project's ${program === "make" || program === "gmake" ? "Makefile" : "build file"}`;
    case "pytest":
    case "tox":
    case "nox":
      return `${program} runs the project's test and configuration code`;
    // cargo runs the programs the project's .cargo/config.toml names (build.rustc, rustc-wrapper,
    // runners) whatever the sub-command: `cargo tree`, `metadata`, `fetch`, `update` and `clean`
    // ask rustc for its version through the wrapper, and build scripts and tests run besides. And
    // rustup's cargo is the toolchain the project's rust-toolchain.toml names (`path = "/proc/self/cwd/tc"`
    // runs ./tc/bin/cargo, also for `cargo --version`). Every cargo command is the project's code.
    case "cargo":
      return `cargo ${sub?.text ?? ""} runs the toolchain and the programs the project's rust-toolchain.toml and .cargo/config.toml name`.replace(
        "  ",
        " ",
      );
    // Red team zw: cmake configures by running the project's CMakeLists.txt (execute_process), and
    // -P, -C, a toolchain file (-D) and `-E env`/`-E time` run scripts and programs; ctest runs the
    // project's tests, cpack its packaging scripts.
    case "cmake":
    case "ctest":
    case "cpack":
      return words.length === 2 && /^--(version|help)$/.test(words[1]!.value)
        ? undefined
        : `${program} runs the project's CMake code and the programs it names`;
    case "source":
    case ".":
      return `${program} runs the commands in ${words[1]?.text ?? "its file"}`;
  }
  if (/^python[0-9.]*$/.test(program) && words.some((w) => w.value === "-m" || /^-[a-zA-Z]*m/.test(w.value)))
    return `${program} -m runs a module, which may be the project's own`;
  const env = ENV_RUNNERS[program];
  if (env && sub && (!sub.literal || sub.value === env))
    return `${program} ${sub.text} runs a command in the project's environment (its scripts, its virtualenv's programs)`;
  const runs = SUBCOMMAND_RUNS[program];
  if (runs && sub && (runs === "all" || !sub.literal || runs.has(sub.value)))
    return `${program} ${sub.text} runs the project's build or test code`;
  return undefined;
}
