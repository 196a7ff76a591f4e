/**
 * The configuration files this process was started with by path: the config file `loadConfig`
 * loaded (found by the search or given with `--config`) and a `--settings` file. Their contents
 * decide what runs outside the sandbox the next time the same command starts (a hook, a plugin, an
 * MCP server), wherever they lie. The search's own file names are protected by name; a file given
 * by path can be called anything (`--config ci/agent.config.mjs`), so the sandbox keeps each one
 * read-only and the permission engine treats a write to it as sensitive, like the found config.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";

const files = new Set<string>();

/** Note a configuration file this process read its settings from (its path and where links lead). */
export function rememberRunConfigFile(path: string): void {
  const absolute = resolve(path);
  files.add(absolute);
  try {
    files.add(realpathSync(absolute));
  } catch {
    // not there: its absolute path is what a command would make
  }
}

/** Every configuration file this process read its settings from by path, in both spellings. */
export function runConfigFiles(): readonly string[] {
  return [...files];
}
