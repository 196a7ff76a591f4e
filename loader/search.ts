/**
 * Where the config search looks: the start folder and its parents, up to and including the
 * nearest project root (a folder holding `.git` or `package.json`) or the user's home, whichever
 * comes first — never above. With neither above the start, only the start folder is searched:
 * walking up to `/` would pick up whatever another user left in `/tmp`; nor does the walk enter a
 * folder other users can write (a `.git` planted there would otherwise make it the project root).
 */
import { existsSync, type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../src/index";
import { describeFileKind } from "./safe-read";

/** Where `loadConfig` looks, in one folder (the first folder that has one wins). */
export const CONFIG_SEARCH_PLACES: readonly string[] = [
  "package.json",
  ...["ts", "mts", "cts", "js", "mjs", "cjs"].map((ext) => `ubiquity.config.${ext}`),
  ".ubiquityrc",
  ".ubiquityrc.json",
  ".ubiquityrc.yaml",
  ".ubiquityrc.yml",
  ...["", ".json", ".yaml", ".yml", ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"].map(
    (ext) => `.config/ubiquityrc${ext}`,
  ),
];

/**
 * True when users other than this one (and root) can put files in `dir`: it is writable by every
 * user (`/tmp`, sticky or not), or another user owns it. What such a folder holds is theirs, not
 * the project's: git stops its own upward search the same way (safe.directory, CVE-2022-24765).
 */
export function othersCanWrite(dir: string): boolean {
  const info = statSync(dir, { throwIfNoEntry: false });
  if (!info) return true;
  const uid = process.getuid?.();
  return (info.mode & 0o002) !== 0 || (uid !== undefined && info.uid !== uid && info.uid !== 0);
}

/**
 * The folders the config search visits, nearest first. Above the start folder, the walk never
 * enters a folder other users can write (`othersCanWrite`): a `.git` and a config planted in
 * `/tmp` by another user made a run in `/tmp/job` (no repository of its own) load that config,
 * and `--trust`, meant for the job's folder, ran it (red team zc, ZC5).
 */
export function configSearchFolders(cwd: string, home: string = homedir()): string[] {
  const start = resolve(cwd);
  const homeDir = resolve(home);
  const folders: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    if (dir !== start && othersCanWrite(dir)) return [start];
    folders.push(dir);
    if (dir === homeDir || existsSync(join(dir, ".git")) || existsSync(join(dir, "package.json"))) return folders;
    if (dirname(dir) === dir) return [start];
  }
}

/** The search places that exist in `folder`, as absolute paths, in search order (package.json only with a "ubiquity" key). */
export function configFilesIn(
  folder: string,
  places: readonly string[],
  packageHasKey: (file: string) => boolean,
): string[] {
  const out: string[] = [];
  for (const place of places) {
    const file = join(folder, place);
    let stats: Stats | undefined;
    try {
      // No exception for a missing place (most are): this runs at every permission decision on a path.
      stats = statSync(file, { throwIfNoEntry: false });
    } catch {
      continue;
    }
    if (!stats) continue;
    if (place === "package.json") {
      if (stats.isFile() && packageHasKey(file)) out.push(file);
      continue;
    }
    // A planted FIFO would hang the loader; a folder named like a config is a mistake to report.
    if (!stats.isFile())
      throw new ConfigError(
        `a config file must be a regular file, this is ${describeFileKind(stats)}; remove it`,
        file,
      );
    out.push(file);
  }
  return out;
}
