/** The program and variable names the shell analysis knows about, in one place. */

/** Shells whose `-c` text is parsed as bash (zsh/fish syntax is close enough to find commands). */
export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh"]);

/** Programs that run code they read: fed by a pipe or heredoc, they run whatever arrives. */
export const INTERPRETERS = new Set([
  ...SHELLS,
  "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "perl", "ruby", "irb", "php",
  "lua", "luajit", "tclsh", "wish", "Rscript", "osascript", "pwsh", "powershell", "julia", "groovy", "jshell",
  "source", ".",
]);

/** True for interpreter names, including versioned ones like `python3.12`. */
export function isInterpreter(name: string): boolean {
  return INTERPRETERS.has(name) || /^(python|pypy|ruby|perl|php|lua|node)[0-9.]+$/.test(name);
}

/** Folders whose programs are trusted to be the real wrapper (a `./env` could be anything). */
export const SYSTEM_BIN = /^\/(?:usr\/(?:local\/)?)?s?bin\/[^/]+$/;

/** Shell builtins that change the working directory (relative paths after them are unknown). */
export const CHANGES_DIR = new Set(["cd", "pushd", "popd"]);

/** Commands whose plain arguments are files they write (for the sensitive-path check). */
export const WRITES_ARGUMENTS = new Set([
  "cp", "mv", "install", "ln", "rm", "rmdir", "unlink", "shred", "touch", "mkdir", "truncate", "chmod", "chown", "chgrp",
]);

const DANGEROUS_ENV = new Set([
  "PATH", "BASH_ENV", "ENV", "IFS", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "CDPATH",
  "HOME", "XDG_CONFIG_HOME", "ZDOTDIR", "PAGER", "MANPAGER", "GIT_PAGER", "EDITOR", "VISUAL", "BROWSER", "LESSOPEN", "LESSCLOSE",
  "NODE_OPTIONS", "NODE_PATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONINSPECT", "PERL5OPT", "PERL5LIB", "PERLLIB",
  "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "SSH_ASKPASS", "SUDO_ASKPASS", "RUSTC_WRAPPER", "TERMINFO",
]);
const DANGEROUS_ENV_PREFIX = /^(?:LD_|DYLD_|GIT_|BASH_FUNC_|YARN_|NPM_CONFIG_)/i;

/**
 * True for variables that make the next program run something else: the search path, the
 * dynamic loader, shell start-up files, pagers and editors, interpreter options, git's own.
 */
export function isDangerousVariable(name: string): boolean {
  return DANGEROUS_ENV.has(name) || DANGEROUS_ENV_PREFIX.test(name) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}
