/**
 * The one `~` expansion, shared by the kernel (a run's roots) and the plugins (exported from
 * `src/index.ts`). "Is this path inside that folder" and symlink resolution are the paths kit's
 * (`plugins/_kits/paths`): only plugins ask them.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Absolute form of a written path: `~` and `~/x` are the home folder, relative is against `cwd`. */
export function absolutePath(cwd: string, path: string, home: string = homedir()): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return resolve(cwd, path);
}
