/**
 * The walk of the permitted folders for secret files by name (`.env`, `*.pem`, …: SECRET_PATTERNS),
 * kept between one run's commands. A folder's entries change only with its stamp (device, inode,
 * modification and status-change times: an entry added, removed or renamed changes the folder's
 * mtime), so a folder whose stamp is the one it had when it was read is not read again; every
 * folder is still statted at every walk, and one changed, replaced (a new inode) or turned into a
 * link is read afresh. Without it, every change anywhere in the workspace (each Edit renames a file
 * into its folder) walked the whole tree again before the next command (~6 ms of CPU on 2,800 files;
 * bench/lean-profile.md, "The sandbox's cost per command").
 *
 * What a link matching a pattern leads to is resolved at every walk (its target may change without
 * any folder of the workspace changing). A folder changed within a clock tick of the walk is not
 * kept (RACY_MS): a second change in the same tick would leave its stamp as it was.
 */
import { type Dirent, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { picomatch } from "../_kits/lazy/index";

/**
 * One folder as the walk last read it: its stamp (with whether it lies in a folder named like a
 * secret, where every file matches), its matching files and links, and its folders to walk
 * (names). Only these are kept, not every file name of the workspace.
 */
interface Folder {
  stamp: string;
  files: string[];
  links: string[];
  dirs: string[];
}

/**
 * File times tick coarsely (the kernel's coarse clock: 1–10 ms a tick), so a folder changed within
 * a tick of its reading may change again unseen, its stamp the same: such a reading is used once,
 * not kept. Times in whole seconds look like a file system that keeps no finer ones (FAT's 2 s,
 * ext3's 1 s): two seconds there.
 */
const RACY_MS = 50;
const RACY_COARSE_MS = 2000;

/**
 * True when `info`'s last change may share a clock tick with `now` (read before `info` was): a
 * stamp read then can stay the same through a second change, so it proves nothing about the next
 * reading. `racyMs` replaces both windows (tests: -1 trusts every stamp).
 */
export function racyStamp(info: { mtimeMs: number; ctimeMs: number }, now: number, racyMs?: number): boolean {
  const coarse = info.mtimeMs % 1000 === 0 || info.ctimeMs % 1000 === 0;
  return now - Math.max(info.mtimeMs, info.ctimeMs) <= (racyMs ?? (coarse ? RACY_COARSE_MS : RACY_MS));
}

/** Folders the walk does not enter (as the glob's `ignore` and the link walk before it). */
const SKIPPED = new Set(["node_modules", ".git"]);

/** What one walk found: the matching files (absolute) and where the matching links lead (real paths). */
export interface SecretWalkResult {
  files: string[];
  linkTargets: string[];
}

/** The secret-name walk of one run's permitted folders, with each folder's reading kept by its stamp. */
export class SecretWalk {
  readonly #matches: (name: string) => boolean;
  #folders = new Map<string, Folder>();

  readonly #racyMs: number | undefined;

  /**
   * @param patterns globs of the form `**` + `/<name glob>` (a name at any depth), as SECRET_PATTERNS.
   * @param options.racyMs how old a folder's last change must be for its reading to be kept (tests: -1 keeps every reading).
   */
  constructor(patterns: readonly string[], options: { racyMs?: number } = {}) {
    this.#racyMs = options.racyMs;
    const names = patterns.map((p) => {
      const name = p.replace(/^\*\*\//, "");
      if (name === p || name.includes("/")) throw new Error(`SecretWalk: ${p} is not a name at any depth`);
      return name;
    });
    // A name with a line break matches too (the `s` flag, as LINE_BREAKS gives micromatch: `*` is compiled to `.`).
    this.#matches = picomatch()(names, { dot: true, flags: "s" });
  }

  /** The matching files under `root` and where its matching links lead; folders it cannot read are left out. */
  walk(root: string): SecretWalkResult {
    const now = Date.now();
    const out: SecretWalkResult = { files: [], linkTargets: [] };
    const kept = new Map<string, Folder>();
    // Every file below a folder whose name matches is a match too, at any depth (the glob matches
    // `<pattern>/**` as well: a folder named `.env` or `certs.pem` is hidden file by file).
    const visit = (dir: string, top: boolean, within: boolean) => {
      let info: ReturnType<typeof lstatSync>;
      try {
        // The root as a walk from it reads it (through a link); below it, links are not followed.
        info = top ? statSync(dir) : lstatSync(dir);
      } catch {
        return;
      }
      if (!info.isDirectory()) return;
      const stamp = `${info.dev}:${info.ino}:${info.mtimeMs}:${info.ctimeMs}:${within ? "all" : "named"}`;
      let folder = this.#folders.get(dir);
      if (folder?.stamp !== stamp) {
        folder = this.#read(dir, stamp, within);
        if (!folder) return;
      }
      if (!racyStamp(info, now, this.#racyMs)) kept.set(dir, folder);
      for (const name of folder.files) out.files.push(join(dir, name));
      for (const name of folder.links) {
        try {
          out.linkTargets.push(realpathSync(join(dir, name)));
        } catch {
          // a dangling link: nothing to read through it
        }
      }
      for (const name of folder.dirs) visit(join(dir, name), false, within || this.#matches(name));
    };
    visit(root, true, false);
    // Only what this walk saw is kept for the next one (per root: the others' stay).
    for (const path of [...this.#folders.keys()])
      if (path === root || path.startsWith(`${root}/`)) this.#folders.delete(path);
    for (const [path, folder] of kept) this.#folders.set(path, folder);
    return out;
  }

  /** `dir`'s entries; `within`: it lies in a folder named like a secret, so every file in it matches. */
  #read(dir: string, stamp: string, within: boolean): Folder | undefined {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined; // unreadable to this user: to the sandboxed command too
    }
    const folder: Folder = { stamp, files: [], links: [], dirs: [] };
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) folder.dirs.push(entry.name);
      } else if (entry.isFile()) {
        if (within || this.#matches(entry.name)) folder.files.push(entry.name);
      } else if (entry.isSymbolicLink() && this.#matches(entry.name)) folder.links.push(entry.name);
    }
    return folder;
  }
}
