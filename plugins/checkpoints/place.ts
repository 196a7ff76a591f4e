/** Where a project's checkpoint store is: apart from the store's code, which loads with the first snapshot. */
import { join } from "node:path";
import { projectSlug, storageRoot } from "../_kits/storage/index";

/** The store folder of a project: `<root>/<project slug>`, the root being `dir` or ~/.ubiquity/checkpoints. */
export function storeDirFor(cwd: string, dir?: string): string {
  return join(storageRoot(dir, cwd, "checkpoints"), projectSlug(cwd));
}
