export { findShell } from "../_kits/process/index";

/**
 * The options before `-c` for `shell`: bash gets `--norc`. Bash runs ~/.bashrc even without a
 * terminal when its stdin is a socket (it takes itself for a shell started by sshd) and SHLVL is
 * unset — which is how a command with stdin (a background shell, a hook) starts with the
 * allow-listed environment: the user's start-up file would run first, and may wait on stdin.
 */
export function shellFlags(shell: string): string[] {
  return shell.endsWith("/bash") ? ["--norc"] : [];
}
