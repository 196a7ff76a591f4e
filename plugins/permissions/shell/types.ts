import type { ShellWord } from "./words";

/** One command bash would run, as permission rules see it. */
export interface ShellCandidate {
  /** The words joined by spaces, quoted where needed: what rule content is matched against. */
  text: string;
  /** The program as written (first word). */
  name: string;
  /** Each word's value as bash passes it; undefined where it is only known at run time. */
  argv: (string | undefined)[];
  /** An allow rule must cover this candidate before the command is auto-allowed. */
  required: boolean;
  /** Some argument is only known at run time (a variable, a substitution, a glob). */
  dynamic: boolean;
  /** More arguments are appended at run time (the target of `xargs` or `find -exec`). */
  open: boolean;
  /**
   * It runs code from the project (package scripts, a Makefile, a module): only a rule that names
   * more than the program (`Bash(npm test)`, `Bash(make build:*)`) covers it. The reason.
   */
  projectCode?: string;
  /** How it was reached when not written directly: `bash -c`, `eval`, `xargs`, `sudo`, … */
  via?: string;
  /**
   * The first word the engine does not understand (an option or sub-command its spec lacks, a
   * program it has no spec for) and why. An allow rule covers the candidate only if the rule's
   * literal text reaches past that word: the user named it.
   */
  unproven?: { at: number; why: string };
  /** It reads what the text feeds it (a pipe, a heredoc, a here-string, `>(…)`): a program that runs its input runs that. */
  fed?: boolean;
  /** Where the command starts in the top-level text (-1 inside `bash -c`/`eval` text). */
  offset?: number;
  /** For a program with a spec: the command in canonical form (spec-format.ts), and how many words of it are the program and sub-commands. */
  canonical?: string[];
  subDepth?: number;
}

/** A file the command writes (for the permitted-roots and sensitive-path checks). */
export interface WriteTarget {
  word: ShellWord;
  /**
   * `redirect` for `>`/`>>`/`&>`…; `output` for a file a program's option or operand names as its
   * output (tee, sort -o, curl -o, dd of=…: judged like a redirect); `argument` for a file
   * argument of a writing program (cp, rm, touch…: checked against the sensitive list).
   */
  kind: "redirect" | "output" | "argument";
  /** The candidate (index into `candidates`) whose operand or option it is; absent for a redirect. */
  from?: number;
  /** A redirect's place in the top-level text (absent inside `bash -c`/`eval` text). */
  at?: number;
}

/** Everything the analysis learned about one command string. */
export interface ShellAnalysis {
  source: string;
  /** Every simple command bash would run, wrappers and their targets included. No cap. */
  candidates: ShellCandidate[];
  /** Why the command cannot be proven safe (empty when it can): an allow rule never covers these. */
  unsafe: string[];
  writes: WriteTarget[];
  /** Files it reads: `<` redirects and the file operands of reading programs (cat, head, grep, …). */
  reads: ShellWord[];
  /** Targets of `cd`/`pushd` (relative paths after them may point elsewhere). */
  cdTargets: ShellWord[];
  /** `popd` or a `cd` without a literal target was seen. */
  cdUnknown: boolean;
  /**
   * Why some command that runs cannot be seen (a program name, `eval` text or script only known
   * at run time, code fed through stdin): under a Bash deny rule such a command is denied.
   */
  hidden: string[];
  /** Why a program the engine does not fully understand may read files it cannot name. */
  unknownReaders: string[];
  /** Why a program the engine does not fully understand may write files it cannot name. */
  unknownWriters: string[];
  /** Copies into a place (cp, mv, ln): where each source lands depends on whether the place is a folder. */
  copies: {
    sources: ShellWord[];
    dest: ShellWord;
    intoFolder: boolean;
    recursive: boolean;
    /** cp --parents: each source lands at dest/SOURCE (its path as written), not dest/its-name. */
    parents?: boolean;
    /** With -b/--backup: the suffix of the backup kept of each file a source lands on (red team zd, ZD2). */
    backup?: ShellWord;
    /** cp -p, -a, --preserve=mode: each copy gets its source's mode, the umask not applied (red team ze, ZE2). */
    modes?: boolean;
    from: number;
  }[];
  /** Folders named by a program's option (`git -C`, `make -C`, `npm --prefix`): where that program runs. */
  optionDirs: { dir: ShellWord; program: string }[];
  /**
   * The repositories git talks to (`git push REPO`, `fetch`, `pull`, `ls-remote`, `clone`,
   * `remote add NAME URL`): a local one runs git there (receive-pack, upload-pack) under its config.
   */
  gitRepos: { word: ShellWord; named: boolean }[];
  /** Commands that rewrite files of the work tree they do not name (`git reset --hard`, `git stash`). */
  treeWriters: string[];
  /**
   * Why it writes or removes work-tree files whose names and contents come from a repository's
   * stored objects (git checkout, reset --hard, merge, stash pop, clean): any path, the sensitive
   * set among them, which only the sandbox keeps read-only.
   */
  checkouts: string[];
  /** Why a command installs code to run later (crontab, at, systemd-run, git config core.fsmonitor, …). */
  persists: string[];
  /** Which of them give files a mode that lets other users write them: the sandbox would not hold those (red team ze, ZE5). */
  opensModes: string[];
  /** Exported variables the engine does not know to be harmless (they may change where a program writes). */
  exportsUnknown: string[];
  /**
   * Shell variables it sets without exporting them (`X=v; cmd`, `for X in …`, `read X`): a variable
   * the run's environment already exports stays exported, so the engine judges these against the
   * run's own `env` (red team zs, ZS3).
   */
  assigned: string[];
  /** The text could not be read as bash reads it (a parse error, a character the parser reads differently). */
  unreadable: boolean;
  /** Folders a command reads to the bottom (grep -r, rg): every file below them is read. */
  recursiveReads: ShellWord[];
  /** Operands of programs the engine has no spec for: each may be a file read or written. */
  maybe: { word: ShellWord; from: number }[];
  /** Candidates (indexes) that create links or move files, so other paths of the command may lead anywhere. */
  linkers: number[];
}
