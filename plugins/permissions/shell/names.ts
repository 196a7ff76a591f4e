/** The program and variable names the shell analysis knows about, in one place. */
import { isPassedName, isUtf8Locale } from "../../_kits/env-names/index";

/** Shells whose `-c` text is parsed as bash (zsh/fish syntax is close enough to find commands). */
export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh"]);

/** Programs that run code they read: fed by a pipe or heredoc, they run whatever arrives. */
export const INTERPRETERS = new Set([
  ...SHELLS,
  "python",
  "python2",
  "python3",
  "pypy",
  "pypy3",
  "node",
  "nodejs",
  "deno",
  "bun",
  "perl",
  "ruby",
  "irb",
  "php",
  "lua",
  "luajit",
  "tclsh",
  "wish",
  "Rscript",
  "osascript",
  "pwsh",
  "powershell",
  "julia",
  "groovy",
  "jshell",
  "source",
  ".",
]);

/** True for interpreter names, including versioned ones like `python3.12`. */
export function isInterpreter(name: string): boolean {
  return INTERPRETERS.has(name) || /^(python|pypy|ruby|perl|php|lua|node)[0-9.]+$/.test(name);
}

/** Folders whose programs are trusted to be the real wrapper (a `./env` could be anything). */
export const SYSTEM_BIN = /^\/(?:usr\/(?:local\/)?)?s?bin\/[^/]+$/;

/**
 * The options of `set -o` (and `shopt -o`) that only set the shell's own behaviour: not allexport
 * or keyword (they export every later assignment), onecmd or posix (aliases expand in it).
 */
export const SHELL_SET_OPTIONS: ReadonlySet<string> = new Set([
  "pipefail",
  "errexit",
  "nounset",
  "xtrace",
  "verbose",
  "noclobber",
  "noglob",
  "errtrace",
  "functrace",
  "notify",
  "monitor",
  "hashall",
  "braceexpand",
  "ignoreeof",
  "interactive-comments",
  "physical",
  "history",
  "histexpand",
  "noexec",
  "vi",
  "emacs",
  "nolog",
]);

/** Shell builtins that change the working directory (relative paths after them are unknown). */
export const CHANGES_DIR = new Set(["cd", "pushd", "popd"]);

/** Commands whose plain arguments are files they write (for the sensitive-path check). */
export const WRITES_ARGUMENTS = new Set([
  "cp",
  "mv",
  "install",
  "ln",
  "rm",
  "rmdir",
  "unlink",
  "shred",
  "touch",
  "mkdir",
  "truncate",
  "chmod",
  "chown",
  "chgrp",
]);

const DANGEROUS_ENV = new Set([
  "PATH",
  "BASH_ENV",
  "ENV",
  "IFS",
  "PS1",
  "PS2",
  "PS3",
  "PS4",
  "PROMPT_COMMAND",
  "SHELLOPTS",
  "BASHOPTS",
  "CDPATH",
  "HOME",
  "XDG_CONFIG_HOME",
  "ZDOTDIR",
  "PAGER",
  "MANPAGER",
  "GIT_PAGER",
  "EDITOR",
  "VISUAL",
  "BROWSER",
  "LESSOPEN",
  "LESSCLOSE",
  "NODE_OPTIONS",
  "NODE_PATH",
  "PYTHONPATH",
  "PYTHONSTARTUP",
  "PYTHONHOME",
  "PYTHONINSPECT",
  "PERL5OPT",
  "PERL5LIB",
  "PERLLIB",
  "RUBYOPT",
  "RUBYLIB",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
  "RUSTC_WRAPPER",
  "TERMINFO",
]);
const DANGEROUS_ENV_PREFIX = /^(?:LD_|DYLD_|GIT_|BASH_FUNC_|YARN_|NPM_CONFIG_)/i;

/**
 * True for variables that make the next program run something else: the search path, the
 * dynamic loader, shell start-up files, pagers and editors, interpreter options, git's own.
 */
export function isDangerousVariable(name: string): boolean {
  return DANGEROUS_ENV.has(name) || DANGEROUS_ENV_PREFIX.test(name) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

/**
 * Variables a program's environment may carry without changing what it runs: data-only settings
 * (locale, colour, build mode, log levels, commit identity). An exported variable not listed
 * here — by `X=v cmd`, `env X=v`, `export`, `declare -x` — leaves the command uncovered: the
 * engine cannot know what each program reads from its environment (NODE_OPTIONS, RUSTFLAGS,
 * GOFLAGS, TAR_OPTIONS, LUA_INIT, DJANGO_SETTINGS_MODULE and many more name code to run).
 */
const HARMLESS_ENV = new Set([
  "CI",
  "NODE_ENV",
  "DEBUG",
  "LANG",
  "LANGUAGE",
  "TZ",
  "FORCE_COLOR",
  "NO_COLOR",
  "CLICOLOR",
  "CLICOLOR_FORCE",
  "TERM",
  "COLUMNS",
  "LINES",
  "PORT",
  "RUST_BACKTRACE",
  "RUST_LOG",
  "RUST_TEST_THREADS",
  "PYTHONUNBUFFERED",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONHASHSEED",
  "PYTHONIOENCODING",
  "PYTHONUTF8",
  "GOOS",
  "GOARCH",
  "CGO_ENABLED",
  "GO111MODULE",
  "NODE_NO_WARNINGS",
  "VERBOSE",
  "LOG_LEVEL",
  "LOGLEVEL",
  "SOURCE_DATE_EPOCH",
  "CARGO_TERM_COLOR",
  "CARGO_INCREMENTAL",
  "MIX_ENV",
  "RAILS_ENV",
  "RACK_ENV",
  "APP_ENV",
  "FLASK_ENV",
  "DEBIAN_FRONTEND",
  "HUSKY",
  "GIT_TERMINAL_PROMPT",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "GIT_COMMITTER_DATE",
  "TERM_PROGRAM",
  "UPDATE_SNAPSHOTS",
  "SNAPSHOT_UPDATE",
  "TZDIR_UNUSED",
  "NODE_DEBUG",
  "NEXT_TELEMETRY_DISABLED",
  "DO_NOT_TRACK",
  "PIP_DISABLE_PIP_VERSION_CHECK",
]);

/**
 * The locale variables that choose the character set bash reads its own text in (LC_ALL over
 * LC_CTYPE over LANG): bash sets it again when one is assigned, and parses every later line of the
 * command, and a shell the command starts reads all of its text, in it.
 */
const CHARSET_LOCALES = new Set(["LC_ALL", "LC_CTYPE", "LANG"]);

/**
 * Why setting a locale variable to `value` (undefined: only known at run time) changes how bash
 * reads the rest of the command, if it does (red team zg, ZG1): in a character set whose multibyte
 * characters may end in `\` (GBK's 0x81 0x5C), `echo "丁\" ; touch x ; echo "丁\"` — one echo to the
 * analysis — is two echoes and a touch to bash. Only a locale known to be UTF-8 (or C) is read alike.
 */
export function charsetRisk(name: string, value: string | undefined): string | undefined {
  if (!CHARSET_LOCALES.has(name) || (value !== undefined && isUtf8Locale(value))) return undefined;
  const what = value === undefined ? "a locale only known at run time" : `the locale ${JSON.stringify(value)}`;
  return `it sets ${name} to ${what}, whose character set may read the rest of the command otherwise than the engine does (a multibyte character taking in a quote or a backslash)`;
}

/**
 * True for a variable that may be exported to the programs a command runs without changing what
 * they run; a locale variable only with a UTF-8 (or C) value (`value`: the text after `=`,
 * undefined when none is given or it is only known at run time).
 */
export function isHarmlessExport(name: string, value?: string): boolean {
  if (charsetRisk(name, value)) return false;
  return HARMLESS_ENV.has(name) || /^LC_[A-Z]+$/.test(name);
}

// The variables bash itself reads or sets (bash(1), "Shell Variables"): assigning one changes the
// shell's own behaviour for every later command (PATH, IFS, BASH_ENV, PS4, PROMPT_COMMAND, …).
const SHELL_VARIABLES = new Set([
  "CDPATH",
  "HOME",
  "IFS",
  "MAIL",
  "MAILPATH",
  "OPTARG",
  "OPTIND",
  "PS0",
  "PS1",
  "PS2",
  "PS3",
  "PS4",
  "PATH",
  "BASH",
  "BASHOPTS",
  "BASHPID",
  "BASH_ALIASES",
  "BASH_ARGC",
  "BASH_ARGV",
  "BASH_ARGV0",
  "BASH_CMDS",
  "BASH_COMMAND",
  "BASH_COMPAT",
  "BASH_ENV",
  "BASH_EXECUTION_STRING",
  "BASH_LINENO",
  "BASH_LOADABLES_PATH",
  "BASH_MONOSECONDS",
  "BASH_REMATCH",
  "BASH_SOURCE",
  "BASH_SUBSHELL",
  "BASH_TRAPSIG",
  "BASH_VERSINFO",
  "BASH_VERSION",
  "BASH_XTRACEFD",
  "CHILD_MAX",
  "COMPREPLY",
  "COPROC",
  "DIRSTACK",
  "EMACS",
  "ENV",
  "EPOCHREALTIME",
  "EPOCHSECONDS",
  "EUID",
  "EXECIGNORE",
  "FCEDIT",
  "FIGNORE",
  "FUNCNAME",
  "FUNCNEST",
  "GLOBIGNORE",
  "GLOBSORT",
  "GROUPS",
  "histchars",
  "HISTCMD",
  "HISTCONTROL",
  "HISTFILE",
  "HISTFILESIZE",
  "HISTIGNORE",
  "HISTSIZE",
  "HISTTIMEFORMAT",
  "HOSTFILE",
  "HOSTNAME",
  "HOSTTYPE",
  "IGNOREEOF",
  "INPUTRC",
  "INSIDE_EMACS",
  "LINENO",
  "MACHTYPE",
  "MAILCHECK",
  "MAPFILE",
  "OLDPWD",
  "OPTERR",
  "OSTYPE",
  "PIPESTATUS",
  "POSIXLY_CORRECT",
  "PPID",
  "PROMPT_COMMAND",
  "PROMPT_DIRTRIM",
  "PWD",
  "RANDOM",
  "READLINE_ARGUMENT",
  "READLINE_LINE",
  "READLINE_MARK",
  "READLINE_POINT",
  "REPLY",
  "SECONDS",
  "SHELL",
  "SHELLOPTS",
  "SHLVL",
  "SRANDOM",
  "TIMEFORMAT",
  "TMOUT",
  "TMPDIR",
  "UID",
]);

/**
 * Why assigning `name` in the shell (not exported) changes what later commands run, if it does;
 * `value` is the value assigned when it is a literal word (undefined: only known at run time).
 */
export function shellAssignmentRisk(name: string, value?: string): string | undefined {
  const charset = charsetRisk(name, value);
  if (charset) return charset;
  if (isHarmlessExport(name, value)) return undefined;
  if (SHELL_VARIABLES.has(name) || /^COMP_/.test(name) || isDangerousVariable(name))
    return `it sets ${name}, which changes what later commands run`;
  // Red team zg (ZG3): a variable the run's environment passes to the shell (HTTPS_PROXY,
  // SSL_CERT_FILE, XDG_CACHE_HOME, TMP, …) came in exported, and a plain assignment keeps it so:
  // `HTTPS_PROXY=…; gh pr list` reaches gh as `HTTPS_PROXY=… gh pr list` does, which asks.
  if (isPassedName(name))
    return `it sets ${name}, which the run's environment exports, so every later program gets it, and ${name} is not a variable the engine knows to be harmless to them`;
  return undefined;
}
