/**
 * Where a process the SDK starts on the user's behalf runs (a stdio MCP server from the user's
 * own config, a command hook). In a folder the user has not trusted it must not run inside it:
 * programs look up from their working folder for what to run and how (npx runs the folder's
 * `node_modules` package of the name asked for and reads its `.npmrc`, so its registry; git reads
 * its `.git/config`, with `core.fsmonitor` a command). No variable turns that off (npx finds its
 * project by walking up from the working folder whatever `npm_config_*` says), so such a process
 * starts in the user's home folder instead, or in `/` when home is inside the folder.
 */
import { homedir } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** True when `inner` is `outer` or inside it. */
function within(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The folder a process started without trust runs in: home, or the root when home is inside `cwd`. */
export function untrustedSpawnFolder(cwd: string, home = homedir()): string {
  return home && !within(resolve(home), resolve(cwd)) ? resolve(home) : resolve("/");
}

/**
 * The working folder of a process the SDK starts for the run in `cwd`: `cwd` (or `wanted`,
 * relative to it) when the folder is trusted; otherwise an absolute `wanted` (the user's own
 * config named it), else `untrustedSpawnFolder`.
 */
export function spawnFolder(cwd: string, trusted: boolean, wanted?: string, home?: string): string {
  if (trusted) return wanted ? resolve(cwd, wanted) : cwd;
  return wanted && isAbsolute(wanted) ? wanted : untrustedSpawnFolder(cwd, home);
}

/**
 * Whether the run's folder is trusted, from the `trust` option: the runner sets it to false for a
 * folder the user has not trusted; unset means the code that built the run decided (as for settings).
 */
export function folderTrusted(options: Readonly<Record<string, unknown>>): boolean {
  return options.trust !== false;
}

/**
 * The environment of a program the configuration starts in a folder (a stdio MCP server, a
 * command hook), with Python kept from importing the folder's own files. Python puts the folder
 * it starts in first on its import path for `-m`, `-c`, a script on standard input and its
 * prompt, so a module a sandboxed command planted at the project's top (`json/__init__.py`,
 * `ruff/__main__.py`: names no list protects) ran as the user's `python3 -m some_server` at its
 * next start, with the server's network and environment, or as a hook (`python -m ruff check`),
 * whose answer approves calls (red team p, P1). `PYTHONSAFEPATH=1` (Python 3.11 and later) leaves
 * that entry out. Fail closed: it is set whatever the program is (a wrapper, `uv run`, a shell
 * line start Python as well), and whatever the folder holds (what a module's name finds there
 * is what a command may have planted), unless the configuration's own `env` names the variable
 * (`"PYTHONSAFEPATH": ""` keeps the folder on the path, for a server that is the project's module).
 */
export function withoutFolderImports(env: Readonly<Record<string, string>>): Record<string, string> {
  return env.PYTHONSAFEPATH !== undefined ? { ...env } : { ...env, PYTHONSAFEPATH: "1" };
}
