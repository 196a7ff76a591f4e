/**
 * What this process was told by path to take its configuration and code from: the config file
 * `loadConfig` loaded (found by the search or given with `--config`), a `--settings` file, and the
 * scripts the hooks of any settings file run. Their contents decide what runs outside the sandbox
 * the next time the same command starts (a hook, a plugin, an MCP server), wherever they lie. The
 * search's own file names are protected by name; a file given by path can be called anything
 * (`--config ci/agent.config.mjs`, a hook's `sh scripts/guard.sh`), so the sandbox keeps each one
 * read-only and the permission engine treats a write to it as sensitive, like the found config.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";

const configs = new Set<string>();
const code = new Set<string>();

/** `path` and where its links lead, in `into`. */
function add(into: Set<string>, path: string): void {
  const absolute = resolve(path);
  into.add(absolute);
  try {
    into.add(realpathSync(absolute));
  } catch {
    // not there: its absolute path is what a command would make
  }
}

/** Note a configuration file this process read its settings from. */
export function rememberRunConfigFile(path: string): void {
  add(configs, path);
}

/** Note a file a configuration names as code to run (a hook's script). */
export function rememberConfiguredCode(path: string): void {
  add(code, path);
}

/** Every configuration file this process read its settings from by path, in both spellings. */
export function runConfigFiles(): readonly string[] {
  return [...configs];
}

/** Those and the code they name: what neither a sandboxed command nor an unasked write may change. */
export function configuredFiles(): readonly string[] {
  return [...configs, ...code];
}
