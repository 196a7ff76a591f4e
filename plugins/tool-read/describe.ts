import { readdir } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { displayPath } from "../_kits/file-tools/index";

/** "12.3 MB"-style size for messages. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** "does not exist", with a near miss from the same folder when there is one (case or extension). */
export async function missingFileMessage(absolute: string, cwd: string): Promise<string> {
  const wanted = basename(absolute);
  const stem = (name: string) => basename(name, extname(name)).toLowerCase();
  const entries = await readdir(dirname(absolute)).catch(() => [] as string[]);
  const near =
    entries.find((e) => e.toLowerCase() === wanted.toLowerCase()) ?? entries.find((e) => stem(e) === stem(wanted));
  const hint = near ? ` Did you mean ${displayPath(cwd, join(dirname(absolute), near))}?` : "";
  return `File does not exist: ${absolute}.${hint} Check the path (relative paths start at ${cwd}).`;
}
