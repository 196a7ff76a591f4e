/**
 * One simple command becomes one or more candidates: itself, and whatever it runs — the
 * command behind a wrapper (`env`, `nice`, `timeout`, `nohup`, `command`, `sudo`, …), the text
 * of `bash -c`/`eval`/`trap`/`watch` (parsed again), the target of `xargs` and of
 * `find -exec`. Deny and ask rules see all of them; an allow rule must cover every
 * candidate marked `required` (a transparent wrapper is not required, its target is).
 */
import { posix } from "node:path";
import { literalWord, renderWords, type ShellWord } from "./words";
import { scanOptions, hasOption } from "./options";
import { projectCodeRisk, riskyOptions } from "./risky";
import {
  assignedNames,
  builtinRisk,
  noteExports,
  noteShellOptions,
  RUN_TIME_NAME,
  turnsOnHistoryExpansion,
} from "./builtins";
import { outputTargets } from "./outputs";
import { readTargets } from "./reads";
import { CHANGES_DIR, SHELLS, SYSTEM_BIN, WRITES_ARGUMENTS, isInterpreter } from "./names";
import { joinWords, optionUnplaced, unwrap, wrapperKind, wrapperOptionsKnown } from "./wrappers";
import { gitRepositories, specOf, unspecifiedModes } from "./specs";
import { optionWords, readBySpec, type SpecReading } from "./spec-format";
import type { ShellAnalysis, ShellCandidate } from "./types";

// Programs whose input is a command language with a way out to the shell (ed's `!`, sqlite3's .shell, gdb's shell, sftp's `!`, dc's `!`).
const STDIN_COMMANDS = new Set([
  "ed",
  "ex",
  "sqlite3",
  "gdb",
  "sftp",
  "dc",
  "psql",
  "mysql",
  "ftp",
  "lftp",
  "vim",
  "vi",
  "nvim",
]);

const POSIX_SHELLS = new Set(["sh", "dash", "ash", "fish", "csh", "tcsh"]);

const RESERVED = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "case",
  "esac",
  "for",
  "select",
  "while",
  "until",
  "do",
  "done",
  "in",
  "function",
  "{",
  "}",
  "!",
  "[[",
  "]]",
]);

/** A `command` node, read. */
export interface SimpleCommand {
  words: ShellWord[];
  assignments: { name: string; literal: boolean }[];
  /** stdin comes from a pipe, heredoc, here-string or `<` redirect. */
  stdinFed: boolean;
  /** Where it starts in the top-level text (-1 inside `bash -c`/`eval` text: not comparable). */
  offset?: number;
}

/** The arguments xargs appends at run time, judged as one word whose value is not known here. */
const RUN_TIME_ARGUMENTS: ShellWord = { value: "", literal: false, text: "<arguments from its input>", tilde: false };

/** What expansion needs from the analysis around it. */
export interface ExpandContext {
  out: ShellAnalysis;
  depth: number;
  via: string | undefined;
  /** Analyse a piece of literal text as bash (for `bash -c`, `eval`, …). */
  nested(source: string, out: ShellAnalysis, depth: number, via: string): void;
}

interface Position {
  /** Where the command starts in the top-level text (-1: not known). */
  offset?: number;
  stdinFed: boolean;
  open: boolean;
  required: boolean;
  via: string | undefined;
}

/** Add the candidates of one simple command (and of everything it runs) to `ctx.out`. */
export function expandCommand(command: SimpleCommand, ctx: ExpandContext): void {
  expand(
    command.words,
    {
      stdinFed: command.stdinFed,
      open: false,
      required: true,
      via: ctx.via,
      offset: ctx.depth === 0 ? (command.offset ?? -1) : -1,
    },
    ctx,
  );
}

function expand(words: ShellWord[], at: Position, ctx: ExpandContext): void {
  const out = ctx.out;
  const name = words[0]!;
  const candidate: ShellCandidate = {
    offset: at.offset ?? -1,
    text: renderWords(words),
    name: name.value,
    // `~` is the home folder at run time: not a value the analysis knows.
    argv: words.map((w) => (w.literal && !w.tilde ? w.value : undefined)),
    required: at.required,
    dynamic: words.some((w) => !w.literal),
    open: at.open,
    ...(at.via ? { via: at.via } : {}),
    ...(at.stdinFed ? { fed: true } : {}),
  };
  const index = out.candidates.push(candidate) - 1;
  if (!name.literal) {
    out.hidden.push(`the program name ${name.text} is only known at run time`);
    return;
  }
  const program = posix.basename(name.value);
  const projectCode = projectCodeRisk(program, words);
  if (projectCode) Object.assign(candidate, { projectCode });
  // The parser misses reserved words after `time`, `!` and a few other places (`! { a; }`,
  // `time for …`), and reads them as a command name; bash does not.
  if (RESERVED.has(name.text))
    out.unsafe.push(`the parser read the reserved word ${name.text} as a command, so its structure is not known`);
  // `./env` or `/tmp/x/sudo` could be anything: only the real wrapper is seen through.
  const trusted = !name.value.includes("/") || SYSTEM_BIN.test(name.value);
  // An option that runs a program or writes a file (sed `e`/`w`, awk system(), rg --pre): what it
  // runs or writes is no candidate and no path, so it may read and write anything.
  const risk = riskyOptions(program, words, at.open);
  if (risk) out.hidden.push(risk);
  const evaluates = builtinRisk(program, words);
  // A builtin that evaluates hidden code runs what no candidate shows; a variable name only known
  // at run time (`test "$a" "$b"`) is unknown, not hidden.
  if (evaluates) (evaluates.includes(RUN_TIME_NAME) ? out.unsafe : out.hidden).push(evaluates);
  // `builtin export NAME`, `command declare -x NAME`: the same export as the declaration's.
  noteExports(program, words, out);
  noteShellOptions(program, words, out);
  out.assigned.push(...assignedNames(program, words));
  // `xargs cat`, `xargs cp notes.txt`: the arguments appended at run time are files too (read,
  // written, or the target of a copy), so the proof judges them as one word only known then.
  const judged = at.open ? [...words, RUN_TIME_ARGUMENTS] : words;
  noteWrites(program, judged, out, index, trusted && specOf(program) !== undefined);
  judgeBySpec(program, judged, trusted, candidate, index, out);
  judgeModule(program, judged, trusted, candidate, index, out);

  const inner = (rest: ShellWord[], via: string, required = at.required, open = at.open) => {
    if (rest.length > 0) expand(rest, { stdinFed: at.stdinFed, open, required, via, offset: at.offset ?? -1 }, ctx);
  };
  const nested = (word: ShellWord | undefined, via: string) => {
    if (!word) return;
    if (!word.literal) out.hidden.push(`the text run by ${via} (${word.text}) is only known at run time`);
    else ctx.nested(word.value, out, ctx.depth + 1, via);
  };

  const wrapper = wrapperKind(program);
  // `exec 3>f`, `exec >log`: no command, only redirections that every later command inherits.
  // `exec < f`, `exec 0< <(…)`: every later command reads f, and an interpreter runs what it holds.
  if (program === "exec" && words.length === 1 && at.stdinFed)
    out.hidden.push("exec with a redirection of stdin, which every later command reads (an interpreter runs it)");
  else if (program === "exec" && words.length === 1)
    out.unsafe.push("exec with only redirections, which changes the files of every later command");
  if (wrapper) {
    const target = unwrap(program, words, out);
    // A transparent wrapper adds nothing to allow: what it runs is what must be covered. Given an
    // option it does not know (`env -a ls rm …`: -a takes a value in newer coreutils), the word
    // after it may not be the command: the wrapper itself must be covered then.
    const known = specOf(program) ? !candidate.unproven : wrapperOptionsKnown(program, words);
    if (wrapper === "transparent" && trusted && known && (target.words.length > 0 || target.text))
      candidate.required = false;
    inner(target.words, program);
    if (target.text) nested(target.text, `${program} -c`);
  } else if (program === "coproc") {
    // `coproc NAME { …; }` parses badly; run what follows, and let deny rules look at the raw text too.
    out.hidden.push("coproc, whose command the parser does not read reliably");
    inner(words.slice(words[2]?.value === "{" ? 3 : 1), program);
  } else if (program === "parallel") {
    out.hidden.push("GNU parallel builds its command lines at run time");
    const scan = scanOptions(words, 1);
    const end = words.findIndex((w, k) => k >= scan.index && /^:::+$/.test(w.value));
    inner(words.slice(scan.index, end === -1 ? undefined : end), program, at.required, true);
  } else if (SHELLS.has(program)) {
    shell(program, words, at, out, nested);
  } else if (program === "eval") {
    nested(joinWords(words.slice(1)), "eval");
  } else if (program === "trap") {
    const scan = scanOptions(words, 1);
    const action = words[scan.index];
    if (action && action.value !== "-" && !hasOption(scan, [], "lp")) nested(action, "trap");
  } else if (program === "watch") {
    const spec = { short: "nq", long: ["--interval"] };
    const scan = scanOptions(words, 1, spec);
    const rest = words.slice(scan.index);
    if (hasOption(scan, ["--exec"], "x", spec)) inner(rest, "watch");
    else nested(joinWords(rest), "watch");
  } else if (program === "xargs") {
    xargs(words, at, out, inner);
  } else if (program === "find" || program === "fd" || program === "fdfind") {
    execTargets(program, words, inner);
  } else if (isInterpreter(program)) {
    interpreter(program, words, at, out);
  } else if (STDIN_COMMANDS.has(program) && at.stdinFed) {
    out.hidden.push(
      `${program} runs the commands fed to it through a pipe, heredoc or here-string (${program === "sqlite3" ? ".shell" : "!command"})`,
    );
  }
  if (CHANGES_DIR.has(program)) {
    const target = words.slice(1).find((w) => !w.literal || !w.value.startsWith("-"));
    if (target?.literal && program !== "popd") out.cdTargets.push(target);
    else out.cdUnknown = true;
  }
}

/** `bash -c 'text'`: the text is parsed again; a shell reading its commands from stdin is fed blind. */
function shell(
  program: string,
  words: ShellWord[],
  at: Position,
  out: ShellAnalysis,
  nested: (word: ShellWord | undefined, via: string) => void,
) {
  const spec = { short: "oO", long: ["--rcfile", "--init-file"] };
  // bash also takes +o/+O; treat a leading + like a - for the scan.
  const normalized = words.map((w, k) =>
    k > 0 && w.literal && /^\+[oO]$/.test(w.value) ? { ...w, value: `-${w.value.slice(1)}` } : w,
  );
  const scan = scanOptions(normalized, 1, spec);
  // Unknown, not hidden: a variable from the environment; `bash <(…)` and stdin are judged below.
  if (scan.dynamic) out.unsafe.push(optionUnplaced(program, scan));
  // bash and dash give each o or O of a cluster the next word as its name, wherever it stands
  // (`-oe errexit -c TEXT` is `-o errexit -e -c TEXT`), where the scan reads the rest of the
  // cluster as the value (getopt's way) and took `errexit` for a script, leaving TEXT unread
  // (red team m, M2). A cluster with an o or O before its last letter, or with two, is not read.
  const cluster = scan.seen.find(
    (w) => /^[-+][^-]/.test(w.value) && (/[oO]./.test(w.value.slice(1)) || /[oO].*[oO]/.test(w.value)),
  );
  if (cluster)
    out.unsafe.push(
      `${program} ${cluster.text}: an option cluster whose o or O names are not read as ${program} reads them`,
    );
  // -a (allexport) and -k (keyword) export the text's plain assignments (`bash -a -c 'X=…; tar …'`),
  // which the analysis of the text judges as the shell's own; so do -o allexport and -o keyword,
  // also at the end of a cluster (`-eo keyword`), and an -o whose name is only known at run time.
  const exporting = scan.seen.some(
    (w, k) =>
      (/^[-+][a-zA-Z]*[ak]/.test(w.value) && !w.value.startsWith("--")) ||
      (/^-[a-zA-Z]*o$/.test(w.value) &&
        (!scan.seen[k + 1]?.literal || /^(allexport|keyword)$/.test(scan.seen[k + 1]?.value ?? ""))),
  );
  if (exporting) {
    out.unsafe.push(`${program} -a/-k exports every assignment of its text to the programs it runs`);
    out.exportsUnknown.push("allexport");
  }
  if (turnsOnHistoryExpansion(scan.seen, 0))
    out.hidden.push(`${program} -H turns on history expansion, which rewrites its text's lines before it reads them`);
  const operand = words[scan.index];
  if (hasOption(scan, [], "c", spec)) {
    if (!operand) return;
    // $'…' and $"…" are bash's: sh (dash) reads `$` and a quoted string.
    if (POSIX_SHELLS.has(program) && operand.literal && /\$['"]/.test(operand.value))
      out.unsafe.push(`${program} does not read $'…' or $"…" quoting as bash does`);
    nested(operand, `${program} -c`);
    return;
  }
  readsStdin(program, operand, hasOption(scan, [], "s", spec), at, out);
}

/** python, node, perl, …: the script or code they run must be literal, and not arrive on stdin. */
function interpreter(program: string, words: ShellWord[], at: Position, out: ShellAnalysis) {
  if (program === "source" || program === ".") {
    readsStdin(program, words[1], false, at, out);
    return;
  }
  const spec = { short: "cemErWX", long: ["--eval", "--print", "--require", "--import"] };
  const scan = scanOptions(words, 1, spec);
  // Code given inline (-c, -e, -m module): it must be literal, and stdin is only data; what follows it is its arguments.
  if (hasOption(scan, ["--eval", "--print"], "ceEmr", spec)) {
    const value = scan.seen.find((w) => !w.literal);
    if (value) out.hidden.push(`the code run by ${program} (${value.text}) is only known at run time`);
    return;
  }
  if (scan.dynamic) out.unsafe.push(optionUnplaced(program, scan));
  readsStdin(program, words[scan.index], false, at, out);
}

function readsStdin(program: string, script: ShellWord | undefined, forced: boolean, at: Position, out: ShellAnalysis) {
  if (script && !script.literal) {
    // `bash <(curl …)` runs what arrives through a pipe: hidden code. A script path from a variable is a file, unknown.
    if (/^[<>]\(/.test(script.text))
      out.hidden.push(`${program} runs code that arrives through a pipe (${script.text})`);
    else out.unsafe.push(`the script run by ${program} (${script.text}) is only known at run time`);
    return;
  }
  // A descriptor as the script (`bash /dev/fd/0 <<< …`, `/proc/self/fd/3`) is code from a pipe or a redirection.
  if (script && /^\/dev\/(fd\/\d+|stdin)$|^\/proc\/[^/]+\/fd\/\d+$/.test(script.value)) {
    out.hidden.push(`${program} runs code from the file descriptor ${script.value}`);
    return;
  }
  const fromStdin = forced || !script || script.value === "-";
  if (fromStdin && at.stdinFed)
    out.hidden.push(`${program} runs code fed to it through a pipe, heredoc or here-string`);
}

function xargs(
  words: ShellWord[],
  at: Position,
  out: ShellAnalysis,
  inner: (rest: ShellWord[], via: string, required?: boolean, open?: boolean) => void,
) {
  const spec = {
    short: "adEILnPs",
    long: [
      "--arg-file",
      "--delimiter",
      "--max-lines",
      "--max-args",
      "--max-procs",
      "--max-chars",
      "--process-slot-var",
      "--replace",
      "--eof",
    ],
  };
  const scan = scanOptions(words, 1, spec);
  if (scan.dynamic) out.hidden.push(optionUnplaced("xargs", scan));
  const target = words.slice(scan.index);
  const run = target.length > 0 ? target : [literalWord("echo")];
  const program = posix.basename(run[0]!.value);
  if (run[0]!.literal && isInterpreter(program))
    out.hidden.push(`xargs feeds its input to ${program}, which runs it as code`);
  inner(run, "xargs", at.required, true);
}

/** `find … -exec cmd {} ;` and `fd -x cmd`: the target runs once per file found. */
function execTargets(
  program: string,
  words: ShellWord[],
  inner: (rest: ShellWord[], via: string, required?: boolean, open?: boolean) => void,
) {
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    const isExec = program === "find" ? /^-(exec|execdir|ok|okdir)$/.test(v) : /^(-x|-X|--exec|--exec-batch)$/.test(v);
    if (!isExec) continue;
    const target: ShellWord[] = [];
    for (k++; k < words.length && words[k]!.value !== ";" && words[k]!.value !== "+"; k++) {
      const w = words[k]!;
      // `{}` becomes each file name found: not known here.
      target.push(w.literal && w.value.includes("{}") ? { ...w, literal: false } : w);
    }
    if (target.length > 0) inner(target, `${program} ${v}`);
  }
}

/**
 * Judge the words by the program's spec (specs.ts): what it does not understand leaves the
 * candidate unproven, and the spec's reads, writes and folders join the analysis. A program
 * without a spec is unproven at its name (only a rule naming it covers it), and its operands
 * may be files it reads or writes.
 */
function judgeBySpec(
  program: string,
  words: ShellWord[],
  trusted: boolean,
  candidate: ShellCandidate,
  index: number,
  out: ShellAnalysis,
) {
  const spec = trusted ? specOf(program) : undefined;
  const persists = PERSISTS[program]?.(words);
  if (persists) out.persists.push(persists);
  if (!spec) {
    // install -m, mkfifo -m, mknod -m: a mode letting others write, or a set-ID bit, asks as chmod's does (red team zg, ZG2).
    const modes = unspecifiedModes(program, words);
    if (modes?.opens) out.opensModes.push(modes.opens);
    const installs = modes?.setsId ?? modes?.opens;
    if (installs) out.persists.push(installs);
    // A rule that names it covers it (issue 35: the user vouches for the program); what it is given is still judged as paths.
    candidate.unproven = {
      at: 0,
      why: `${program} is not a program the engine knows, so only a rule that names it covers it`,
    };
    for (const word of words.slice(1)) out.maybe.push({ word, from: index });
    // Said first when a Read rule denies it (melodic-software's `Read(./.env)` denied `python3 x.py`
    // as "it makes links or moves files", which named nothing the command does).
    out.unknownReaders.push(`${program} is not a program the engine knows, so it may read any file`);
    // A program the engine does not know may make links or move files: later paths may lead anywhere.
    out.linkers.push(index);
    return;
  }
  const reading = readBySpec(spec, words, program);
  if (reading.unproven) candidate.unproven = reading.unproven;
  // A word it does not understand may be an option that reads or writes any of its arguments, or files it names elsewhere.
  if (reading.unproven) {
    for (const word of words.slice(1)) out.maybe.push({ word, from: index });
    out.unknownReaders.push(`${reading.unproven.why}, so it may read files the engine cannot name`);
    out.unknownWriters.push(`${reading.unproven.why}, so it may write files the engine cannot name`);
  }
  if (reading.copy) {
    out.copies.push({ ...reading.copy, from: index });
    // Red team zd (ZD3): every source of a copy is read, whatever place the operand table gives it:
    // with -t/--target-directory the last operand is a source too (`cp -t pub secrets/key` read a
    // `Read`-denied key, judged as a file written). A recursive copy reads every file below.
    const unread = reading.copy.sources.filter((s) => !reading.reads.includes(s));
    out.reads.push(...unread);
    if (reading.copy.recursive) out.recursiveReads.push(...reading.copy.sources);
    // Red team zd (ZD6): a backup moves the file a source replaces to its name plus a suffix, a
    // name no rule may cover (`cp -b x secrets/token.txt` leaves `token.txt~`): each place a
    // source may land is read.
    if (reading.copy.backup !== undefined) out.reads.push(...backedUp(reading.copy));
  }
  // Commands that rewrite the work tree (git checkout, reset, stash, clone) may check out links: later paths may lead anywhere.
  if (reading.tree) out.linkers.push(index);
  for (const dir of reading.dirs) out.optionDirs.push({ dir, program });
  if (program === "git") out.gitRepos.push(...gitRepositories(words));
  if (reading.tree) out.treeWriters.push(`${renderWords(words)} rewrites files of the work tree that it does not name`);
  // git's come from the repository's objects: names a branch, a stash or a fetched commit holds.
  if (reading.tree && program === "git")
    out.checkouts.push(
      `${renderWords(words)} writes or removes files of the work tree whose names the repository holds`,
    );
  candidate.canonical = reading.canonical;
  candidate.subDepth = reading.subDepth;
  for (const word of reading.writes) out.writes.push({ word, kind: "argument", from: index });
  // An output file named by the option table, in any spelling: an edit, as a redirect is.
  for (const word of reading.outputs) out.writes.push({ word, kind: "output", from: index });
  if (reading.persists) out.persists.push(reading.persists);
  if (reading.opensModes) out.opensModes.push(reading.opensModes);
  out.reads.push(...reading.reads);
  // grep -r and rg read every file below their folders, `.` when they name none (a file an option names is no folder: `grep -r -f pats`).
  if (reading.recursive)
    out.recursiveReads.push(
      ...(reading.readOperands.length > 0 ? reading.readOperands : [literalWord(".")]).map((w) =>
        reading.stored ? { ...w, stored: true } : w,
      ),
    );
  out.recursiveReads.push(...reading.below);
  for (const dir of reading.dirs) {
    if (dir.literal) out.cdTargets.push(dir);
    else out.cdUnknown = true;
  }
  if (reading.links) out.linkers.push(index);
}

/** The files a copy with a backup may replace: DEST, or DEST/name (DEST/SOURCE under --parents), for each source. */
function backedUp(copy: NonNullable<SpecReading["copy"]>): ShellWord[] {
  const { dest } = copy;
  const at = (value: string, source: ShellWord): ShellWord => ({
    ...dest,
    value,
    text: value,
    literal: dest.literal && source.literal,
  });
  const base = dest.value.replace(/\/+$/, "");
  return copy.sources.flatMap((source) => {
    const inside = at(
      `${base}/${copy.parents ? source.value.replace(/^\/+/, "") : posix.basename(source.value)}`,
      source,
    );
    return copy.intoFolder ? [inside] : [dest, inside];
  });
}

/**
 * `python3 -m pytest …` runs pytest: when the module has a spec, the words after it are judged by
 * that spec as well (`-p`, `-c`, `--rootdir` load other code however pytest is started), and the
 * rule must name the first word the module's spec does not understand.
 */
function judgeModule(
  program: string,
  words: ShellWord[],
  trusted: boolean,
  candidate: ShellCandidate,
  index: number,
  out: ShellAnalysis,
) {
  const module = words[2];
  if (!/^python[0-9.]*$/.test(program) || words[1]?.value !== "-m" || !module?.literal) return;
  if (!trusted || !specOf(module.value)) return;
  const probe: ShellCandidate = { ...candidate, unproven: undefined };
  judgeBySpec(module.value, words.slice(2), trusted, probe, index, out);
  if (probe.unproven && probe.unproven.at + 2 > (candidate.unproven?.at ?? -1))
    candidate.unproven = { at: probe.unproven.at + 2, why: probe.unproven.why };
}

/**
 * Programs that install code to run later, outside any command's lifetime and outside the
 * sandbox: schedulers, service managers, approvals of start-up files. Asked like a write to a
 * sensitive file, in every mode.
 */
const PERSISTS: Record<string, (words: readonly ShellWord[]) => string | undefined> = {
  crontab: (w) =>
    w.slice(1).every((x) => x.literal && /^-[lu]/.test(x.value)) && w.length > 1
      ? undefined
      : "crontab installs commands to run on a schedule",
  at: () => "at schedules a command to run later",
  batch: () => "batch schedules a command to run later",
  "systemd-run": () => "systemd-run starts a command as a service, outside this run",
  systemctl: (w) =>
    w.some((x) => /^(enable|link|edit|set-property|preset|revert|add-wants|add-requires)$/.test(x.value))
      ? "systemctl enables a service to start later"
      : undefined,
  launchctl: () => "launchctl loads a job that runs later",
  loginctl: (w) =>
    w.some((x) => x.value === "enable-linger") ? "loginctl enable-linger keeps the user's services running" : undefined,
  direnv: (w) =>
    w.some((x) => /^(allow|permit|grant)$/.test(x.value))
      ? "direnv allow approves an .envrc to run in every later shell"
      : undefined,
  pip: (w) =>
    w[1]?.value === "config" && !/^(get|list|debug)$/.test(w[2]?.value ?? "")
      ? "pip config changes where pip fetches and builds packages"
      : undefined,
  pip3: (w) =>
    w[1]?.value === "config" && !/^(get|list|debug)$/.test(w[2]?.value ?? "")
      ? "pip config changes where pip fetches and builds packages"
      : undefined,
  "update-rc.d": () => "update-rc.d installs a start-up script",
  chkconfig: () => "chkconfig installs a start-up service",
};

/**
 * The folder a copy names with -t, read as getopt reads it: `-t DIR`, `-tDIR` and `-vtDIR` (a
 * cluster; a letter that takes a value before it ends the cluster), `--target-directory DIR`,
 * `--target-directory=DIR`, and any start of that name (`--targ=DIR`). `install -t/tmp/x f` and
 * `--targ=/tmp/x` were read as copying into the project (red team zr, ZR4).
 */
function copyTarget(seen: readonly ShellWord[]): ShellWord | undefined {
  const next = (k: number) => seen[k + 1] ?? { ...literalWord("(the next word)"), literal: false };
  for (let k = 0; k < seen.length; k++) {
    const v = seen[k]!.value;
    const long = /^(--[A-Za-z-]+)(?:=([\s\S]*))?$/.exec(v);
    if (long) {
      if (long[1]!.length >= 3 && "--target-directory".startsWith(long[1]!))
        return long[2] === undefined ? next(k) : literalWord(long[2]);
      if (long[2] === undefined && /^--(suffix|mode|owner|group)$/.test(long[1]!)) k++;
      continue;
    }
    if (!/^-[^-]/.test(v)) continue;
    for (let i = 1; i < v.length; i++) {
      if (v[i] === "t") return i < v.length - 1 ? literalWord(v.slice(i + 1)) : next(k);
      if ("Smog".includes(v[i]!)) {
        if (i === v.length - 1) k++;
        break;
      }
    }
  }
  return undefined;
}

/** Files a command writes: cp/rm/… operands and sed -i files (sensitive check), and the outputs of outputs.ts. */
function noteWrites(program: string, words: ShellWord[], out: ShellAnalysis, from: number, specified: boolean) {
  if (WRITES_ARGUMENTS.has(program)) {
    const copies = program === "install" || program === "cp" || program === "mv" || program === "ln";
    const scan = scanOptions(
      words,
      1,
      copies ? { short: "tSmog", long: ["--target-directory", "--suffix", "--mode", "--owner", "--group"] } : {},
    );
    const operands = words.slice(scan.index);
    // A program with a spec says itself which operands it writes (cp's sources are reads, ln's target is not written).
    if (!specified)
      for (const w of [...scan.seen.filter((s) => !s.value.startsWith("-")), ...operands])
        out.writes.push({ word: w, kind: "argument", from });
    if (copies) {
      // Where a copy lands is its output: the -t folder, or the last operand.
      const target = copyTarget(scan.seen);
      if (target) out.writes.push({ word: target, kind: "output", from });
      else if (operands.length >= 2) out.writes.push({ word: operands.at(-1)!, kind: "output", from });
    }
  } else if (program === "sed" && words.some((w) => /^(-i|--in-place)/.test(w.value) || /^-[a-zA-Z]*i/.test(w.value))) {
    const spec = { short: "efl", long: ["--expression", "--file", "--line-length"] };
    const scan = scanOptions(words, 1, spec);
    // Without -e/-f the first operand is the script, not a file.
    const files = words.slice(hasOption(scan, ["--expression", "--file"], "ef", spec) ? scan.index : scan.index + 1);
    for (const w of files) out.writes.push({ word: w, kind: "output", from });
  }
  // Read as the program parses them, as its spec reads them (red team zr, ZR2): `curl --upload F
  // file:///x` is `--upload-file`, `-sT F` is `-s -T F`; a pattern for one spelling missed the rest.
  const spec = specified ? specOf(program) : undefined;
  const parsed = spec ? optionWords(spec, words, 1).words : words;
  for (const w of outputTargets(program, parsed)) out.writes.push({ word: w, kind: "output", from });
  out.reads.push(...readTargets(program, words));
}
