/**
 * The import path of a Python hook script. Hooks run with `PYTHONSAFEPATH=1` (a module planted in
 * the project's top folder must not be imported: red team p, P1), which also leaves out the
 * folder of the script Python runs — so `python3 "${CLAUDE_PLUGIN_ROOT}/hooks/x.py"` could not
 * import its own sibling modules (`from _base import …`), as it does in Claude Code, and the
 * hook failed (Anthropic's security-guidance plugin: every hook). Such a script's folder goes
 * back on the path through `PYTHONPATH`, only where nothing a sandboxed command writes can be
 * imported from it: a folder the sandbox keeps read-only at any depth (inside `.claude/`), a
 * plugin's folder outside the project, or the user's own `~/.claude`.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { isInside } from "../paths/index";
import { sandboxReason } from "../../permissions/api";

// A word of the command line naming a `.py` file: whole words, quoted or not (no shell parsing needed:
// a word this misses only keeps the path as it was).
const SCRIPT = /(?:^|[\s"'=])([^\s"'=;|&<>()`]+\.py)(?=$|[\s"';|&<>()`])/g;

/** The real folder of an existing file, or undefined. */
function folderOf(file: string): string | undefined {
  try {
    return statSync(file).isFile() ? dirname(realpathSync(file)) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether nothing a sandboxed command writes can be imported from `folder` (see the file's comment). */
function safeFolder(folder: string, cwd: string, pluginRoot: string | undefined): boolean {
  if (isInside(cwd, folder)) return sandboxReason(join(relative(cwd, folder), "module.py")) !== undefined;
  if (pluginRoot && existsSync(pluginRoot) && isInside(realpathSync(pluginRoot), folder)) return true;
  return isInside(join(homedir(), ".claude"), folder);
}

/**
 * The folders of the Python scripts `command` names (`${CLAUDE_PROJECT_DIR}` / `$CLAUDE_PROJECT_DIR`
 * standing for `cwd`) that may go on the import path: existing files, in safe folders.
 */
export function scriptFolders(command: string, cwd: string, pluginRoot?: string): string[] {
  const realCwd = existsSync(cwd) ? realpathSync(cwd) : cwd;
  const text = command.replace(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR(?![A-Za-z0-9_])/g, () => cwd);
  const folders = new Set<string>();
  for (const match of text.matchAll(SCRIPT)) {
    const folder = folderOf(resolve(cwd, match[1]!));
    if (folder && safeFolder(folder, realCwd, pluginRoot)) folders.add(folder);
  }
  return [...folders];
}

/** `env` with `folders` ahead of its `PYTHONPATH` (unchanged when there are none). */
export function withScriptFolders(env: Record<string, string>, folders: readonly string[]): Record<string, string> {
  if (folders.length === 0) return env;
  const rest = env.PYTHONPATH ? [env.PYTHONPATH] : [];
  return { ...env, PYTHONPATH: [...folders, ...rest].join(delimiter) };
}

/**
 * The folder of a Python script `command` names that holds the module `module` (as `<name>.py` or a
 * package `<name>/`) but was left off the import path (not a safe folder): the hook's "No module
 * named …" is then ubiquity's doing, which Claude Code, running the script with its folder on the
 * path, does not do (decider/claude-hooks keeps its dispatchers and their modules in the project's
 * `hooks/`). Undefined when no such folder is named.
 */
export function unimportedScriptFolder(
  command: string,
  cwd: string,
  module: string,
  pluginRoot?: string,
): string | undefined {
  const top = module.split(".")[0]!;
  const realCwd = existsSync(cwd) ? realpathSync(cwd) : cwd;
  const text = command.replace(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR(?![A-Za-z0-9_])/g, () => cwd);
  for (const match of text.matchAll(SCRIPT)) {
    const folder = folderOf(resolve(cwd, match[1]!));
    if (!folder || safeFolder(folder, realCwd, pluginRoot)) continue;
    if (existsSync(join(folder, `${top}.py`)) || existsSync(join(folder, top, "__init__.py"))) return folder;
  }
  return undefined;
}
