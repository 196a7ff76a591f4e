import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/**
 * How a one-line shell command is started (command hooks, MCP `headersHelper`): bash when the
 * system has it, else sh. Bash gets `--norc --noprofile`: a non-interactive `bash -c` whose stdin
 * is a socket (Node's pipes are socket pairs) and whose environment has no SHLVL (the allow-list
 * drops it) takes itself for a remote shell and sources ~/.bashrc — the user's prompt setup
 * (pyenv, nvm, conda) would run on every hook, and hang it when that setup waits on a lock.
 */
export function shellSpawn(command: string): { command: string; args: string[] } {
  if (existsSync("/bin/bash")) return { command: "/bin/bash", args: ["--norc", "--noprofile", "-c", command] };
  return { command: "/bin/sh", args: ["-c", command] };
}

const found = new Map<string, string>();

/** The shell that runs the Bash tool's commands: `bash` from PATH's absolute folders (a relative one is the folder's), else `/bin/sh`. */
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
