import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

const found = new Map<string, string>();

/** The shell that runs commands: `bash` from PATH's absolute folders (a relative one is the folder's), else `/bin/sh`. */
export function findShell(path = process.env.PATH ?? ""): string {
  let shell = found.get(path);
  if (!shell) {
    shell = "/bin/sh";
    for (const dir of path.split(delimiter)) {
      if (!isAbsolute(dir)) continue;
      try {
        accessSync(join(dir, "bash"), constants.X_OK);
        shell = join(dir, "bash");
        break;
      } catch {
        // not in this folder
      }
    }
    found.set(path, shell);
  }
  return shell;
}

/**
 * The options before `-c` for `shell`: bash gets `--norc`. Bash runs ~/.bashrc even without a
 * terminal when its stdin is a socket (it takes itself for a shell started by sshd) and SHLVL is
 * unset — which is how a command with stdin (a background shell, a hook) starts with the
 * allow-listed environment: the user's start-up file would run first, and may wait on stdin.
 */
export function shellFlags(shell: string): string[] {
  return shell.endsWith("/bash") ? ["--norc"] : [];
}
