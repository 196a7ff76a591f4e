import { existsSync } from "node:fs";

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
