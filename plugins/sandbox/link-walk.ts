/**
 * Files of the writable folders that have more than one name (hard links), kept read-only in the
 * sandbox. A bind makes a folder writable, and a file in it is writable through it whatever other
 * names the same file has: pnpm links every file of `node_modules/.pnpm` to its store in the home,
 * uv and conda link a virtualenv's packages to their caches, `git clone --local` links the objects
 * of the repository it cloned. A sandboxed `echo … >> node_modules/.pnpm/…/index.js` (or any
 * program's write in place) changed the store's file, hidden in the sandbox and outside every
 * writable folder, and with it every other project on the machine that installed the package,
 * where it ran later, unsandboxed (red team zb, ZB3). The other names cannot be found (the kernel
 * keeps no list of them), so every file with more than one is judged one outside (fail closed).
 *
 * The walk enters every folder (`node_modules` and `.git` too) and keeps each folder's reading by
 * its stamp, as the secret walk does: a command's walk stats the folders, and reads only those that
 * changed (this repository's checkout, 5,800 folders: 8–22 ms a command, 23–44 before the readings
 * kept their paths and were no longer rebuilt at each walk).
 * A file given another name from outside later, its folder unchanged, is not seen until its folder
 * changes (no sandboxed process can: link(2) fails across the read-only binds).
 */
import { type Dirent, lstatSync, readdirSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { racyStamp } from "./secret-walk";

interface Folder {
  dev: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /** Read in the tick of its last change: read again at the next walk, whatever its stamp. */
  racy: boolean;
  /** Its regular files with more than one name (absolute). */
  linked: string[];
  /** Its folders (absolute). */
  dirs: string[];
  /** The walk that last saw it. */
  seen: number;
}

/** At most this many binds for linked files (each is a mount; bwrap takes at most ~9,000 arguments). */
export const MAX_LINK_BINDS = 400;
/** A folder holding more linked files than this, at any depth, is bound read-only whole rather than file by file. */
const LINKS_PER_FOLDER = 16;

/** The hard-linked files below the writable folders, each folder's reading kept between one run's commands. */
export class LinkWalk {
  #folders = new Map<string, Folder>();
  #walks = 0;
  readonly #racyMs: number | undefined;

  /** @param options.racyMs how old a folder's last change must be for its reading to be kept (tests: -1 keeps every reading). */
  constructor(options: { racyMs?: number } = {}) {
    this.#racyMs = options.racyMs;
  }

  /**
   * The files with more than one name below `root`, not entering `skip` (folders already read-only).
   * A command's walk with nothing changed is one lstat per folder (a workspace's node_modules has
   * thousands): the readings are kept with their paths made, and nothing is rebuilt.
   */
  walk(root: string, skip: ReadonlySet<string> = new Set()): string[] {
    const walk = ++this.#walks;
    const now = Date.now();
    const out: string[] = [];
    let changed = false;
    const pending = [root];
    while (pending.length > 0) {
      const dir = pending.pop()!;
      if (skip.has(dir)) continue;
      const info = lstatSync(dir, { throwIfNoEntry: false });
      if (!info?.isDirectory()) continue;
      let folder = this.#folders.get(dir);
      if (
        !folder ||
        folder.racy ||
        folder.ino !== info.ino ||
        folder.dev !== info.dev ||
        folder.mtimeMs !== info.mtimeMs ||
        folder.ctimeMs !== info.ctimeMs
      ) {
        changed = true;
        folder = readFolder(dir, info);
        if (!folder) {
          this.#folders.delete(dir);
          continue;
        }
        this.#folders.set(dir, folder);
      }
      // A reading in the tick of a change is used once, then read again (the secret walk's rule).
      folder.racy = racyStamp(info, now, this.#racyMs);
      folder.seen = walk;
      for (const path of folder.linked) out.push(path);
      // Reversed onto the stack: folders are visited in their reading's order, depth first.
      for (let i = folder.dirs.length - 1; i >= 0; i--) pending.push(folder.dirs[i]!);
    }
    // Folders gone (or now skipped) since the last walk: forgotten. Only a changed folder can have lost one.
    if (changed)
      for (const [path, folder] of this.#folders)
        if (folder.seen !== walk && (path === root || path.startsWith(`${root}/`))) this.#folders.delete(path);
    return out;
  }
}

function readFolder(dir: string, info: Stats): Folder | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined; // unreadable to this user: to the sandboxed command too
  }
  const folder: Folder = {
    dev: info.dev,
    ino: info.ino,
    mtimeMs: info.mtimeMs,
    ctimeMs: info.ctimeMs,
    racy: false,
    linked: [],
    dirs: [],
    seen: 0,
  };
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) folder.dirs.push(path);
    else if (entry.isFile() && (lstatSync(path, { throwIfNoEntry: false })?.nlink ?? 1) > 1) folder.linked.push(path);
  }
  return folder;
}

/**
 * What to bind read-only for `linked` files below `roots`: each file, but a folder holding more
 * than LINKS_PER_FOLDER of them directly is bound whole, and while more than MAX_LINK_BINDS remain,
 * the deepest are replaced by their folders, a level at a time (a package's folder, then a package
 * store's top, `node_modules/.pnpm`, before `node_modules` itself; never a root). What is bound
 * whole is read-only whole (fail closed). Undefined when they cannot be brought under the bound.
 */
export function linkBinds(linked: readonly string[], roots: readonly string[]): string[] | undefined {
  const isRoot = (p: string) => roots.includes(p);
  const depth = (p: string) => p.split("/").length;
  // Without the paths inside another one of them.
  const outermost = (paths: Iterable<string>) => {
    const sorted = [...new Set(paths)].sort((a, b) => depth(a) - depth(b));
    const out: string[] = [];
    for (const p of sorted) if (!out.some((o) => p.startsWith(`${o}/`))) out.push(p);
    return out;
  };
  const direct = new Map<string, number>();
  for (const p of linked) direct.set(dirname(p), (direct.get(dirname(p)) ?? 0) + 1);
  let binds = outermost(
    linked.map((p) => (!isRoot(dirname(p)) && direct.get(dirname(p))! > LINKS_PER_FOLDER ? dirname(p) : p)),
  );
  while (binds.length > MAX_LINK_BINDS) {
    const liftable = binds.filter((p) => !isRoot(dirname(p)));
    if (liftable.length === 0) return undefined;
    const deepest = Math.max(...liftable.map(depth));
    binds = outermost(binds.map((p) => (depth(p) === deepest && !isRoot(dirname(p)) ? dirname(p) : p)));
  }
  return binds;
}
