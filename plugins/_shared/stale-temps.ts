/**
 * Temp files left by a crash between writing and renaming (`writeFileAtomic` names them
 * `.<name>.<pid>.<random>.tmp`). Only old ones are removed: a young one may belong to a writer
 * in another process that is about to rename it.
 */
import { readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";

const TEMP = /^\..+\.tmp$/;

/** Age after which a temp file is certainly orphaned: no write takes this long. */
export const STALE_TEMP_MS = 60_000;

/** True for a name `writeFileAtomic` gives its temp files. */
export function isTempName(name: string): boolean {
  return TEMP.test(name);
}

/** Remove temp files in `dir` older than `maxAgeMs`; returns how many went. Never throws. */
export async function removeStaleTemps(dir: string, maxAgeMs = STALE_TEMP_MS, now = Date.now()): Promise<number> {
  let removed = 0;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!isTempName(name)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile() || now - info.mtimeMs < maxAgeMs) continue;
    if (await unlink(path).then(() => true, () => false)) removed++;
  }
  return removed;
}
