/**
 * A folder given with `--add-dir` or `additionalDirectories` that does not exist, or is a file,
 * is most likely a typo, and without a word the user only meets the refusals later
 * (Claude Code is silent on a missing one too: anthropics/claude-code#91197). Said once, at start.
 */
import { statSync } from "node:fs";
import { dirname } from "node:path";
import { absolutePath } from "../../src/index";

/** One warning per additional folder that is missing or not a folder (none when all are folders). */
export function missingDirectoryWarnings(cwd: string, directories: readonly string[] | undefined): string[] {
  return (directories ?? []).flatMap((given) => {
    const path = absolutePath(cwd, given);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) return [];
    const what = stat ? `is a file, not a folder (did you mean ${dirname(path)}?)` : "does not exist (a typo?)";
    return [`the additional folder ${path} (--add-dir, additionalDirectories) ${what}`];
  });
}
