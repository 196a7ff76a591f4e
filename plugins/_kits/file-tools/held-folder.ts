/**
 * The folder of a judged path, reached without following any link. A judged path is fully
 * resolved (no link left in it), so a link met on the way means another process swapped a
 * folder on it since the judgement (for a link to `.git`, say): that is refused, never followed.
 *
 * On Linux the folders are walked one at a time from `/`, each opened with O_NOFOLLOW through the
 * `/proc/self/fd` entry of the one before: the `openat` walk Node does not offer, with no path
 * resolved twice. The last one stays open, and everything inside it is named through its
 * descriptor, so a swap after the walk cannot redirect what follows. Where /proc is missing
 * (macOS, Windows) each folder is checked with lstat instead, and checked again by the caller
 * around every step (a narrower window, not none).
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, readlinkSync, type Stats } from "node:fs";
import { join, parse, sep } from "node:path";
import { ToolFailure } from "./tool-failure";

/** Linux's O_PATH (the generic value; no platform Node runs on uses another): a folder held without reading it. */
const O_PATH = 0o10000000;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
/** O_NOFOLLOW where the platform has it (not Windows). */
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Test seam: force the lstat check used where /proc is missing. */
export const folderSeams: { portable?: boolean } = {};

/** What a call was doing, for its messages. */
export interface Judged {
  /** The path as the model wrote it. */
  shown: string;
  /** The path as judged, fully resolved. */
  real: string;
  /** "written" or "read". */
  verb: "written" | "read";
}

/** The path moved under a call: another process swapped a part of it between judgement and use. */
export class PathSwapped extends ToolFailure {
  override name = "PathSwapped";
}

/** A folder of a judged path: held open (Linux) or checked (elsewhere). */
export interface HeldFolder {
  /** Its judged path. */
  path: string;
  /** The path naming `name` inside this very folder (through its descriptor on Linux). */
  entry(name: string): string;
  /**
   * A path that leads to this very folder in a child process too (its descriptor under
   * /proc/<this process>: a child's /proc/self is its own); the judged path where /proc is missing.
   */
  shared: string;
  /** Where the file behind `fd` is now, when the platform can say (Linux). */
  whereIs(fd: number): string | undefined;
  /** Throws a PathSwapped when the folder no longer stands at its judged path. */
  check(): void;
  close(): void;
}

const fdPath = (fd: number) => `/proc/self/fd/${fd}`;
const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;

let procWorks: boolean | undefined;
/** True where descriptors have paths under /proc/self/fd (Linux with /proc mounted). */
function descriptorPaths(): boolean {
  if (folderSeams.portable) return false;
  if (procWorks === undefined) {
    procWorks = false;
    if (process.platform === "linux") {
      try {
        const fd = openSync("/", O_PATH | O_DIRECTORY);
        try {
          procWorks = readlinkSync(fdPath(fd)) === "/";
        } finally {
          closeSync(fd);
        }
      } catch {
        // no /proc: the lstat check below
      }
    }
  }
  return procWorks;
}

/** The refusal for a part of the path that is not the folder judged; `outcome` says what became of the call's file. */
export function notTheFolder(
  why: Judged,
  path: string,
  how: string,
  outcome = `Nothing was ${why.verb} there.`,
): PathSwapped {
  const action = why.verb === "written" ? "write" : "read";
  return new PathSwapped(
    `Not ${why.verb}: ${why.shown} was judged to be ${why.real}, but ${path} is no longer the folder that was judged: ${how}, ` +
      `by another process between the permission check and the ${action}. ${outcome} ` +
      `Find what is changing ${path} (a background command?), stop it, then try again.`,
  );
}

function replaced(path: string): string {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (!info) return "it was removed";
  if (!info.isSymbolicLink()) return "it was replaced by something else";
  let target = "";
  try {
    target = ` to ${readlinkSync(path)}`;
  } catch {
    // gone again
  }
  return `it was replaced by a link${target}`;
}

/**
 * Reach the folder `dir` of a judged path without following a link; with `create`, missing
 * folders are made on the way. Undefined when it does not exist (and `create` is off).
 */
export function holdFolder(dir: string, why: Judged, create: boolean): HeldFolder | undefined {
  return descriptorPaths() ? walkDescriptors(dir, why, create) : walkChecked(dir, why, create);
}

function walkDescriptors(dir: string, why: Judged, create: boolean): HeldFolder | undefined {
  let fd = openSync("/", O_PATH | O_DIRECTORY);
  let at = "/";
  try {
    for (const part of dir.split(sep).filter(Boolean)) {
      const next = join(at, part);
      const child = openChild(fd, part, next, why, create);
      closeSync(fd);
      if (child === undefined) return undefined;
      fd = child;
      at = next;
    }
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  const held = fd;
  const folder: HeldFolder = {
    path: dir,
    entry: (name) => `${fdPath(held)}/${name}`,
    shared: `/proc/${process.pid}/fd/${held}`,
    whereIs: (file) => readlinkSync(fdPath(file)),
    check() {
      const now = readlinkSync(fdPath(held));
      if (now !== dir) throw notTheFolder(why, dir, `it was moved to ${now}`);
    },
    close: () => closeSync(held),
  };
  try {
    folder.check();
  } catch (error) {
    folder.close();
    throw error;
  }
  return folder;
}

/** Open `part` inside the folder `parent` holds, never through a link; undefined when missing and not to be made. */
function openChild(parent: number, part: string, path: string, why: Judged, create: boolean): number | undefined {
  const entry = `${fdPath(parent)}/${part}`;
  for (let attempt = 0; ; attempt++) {
    try {
      return openSync(entry, O_PATH | O_DIRECTORY | O_NOFOLLOW);
    } catch (error) {
      const code = codeOf(error);
      if (code === "ENOENT" && !create) return undefined;
      if (code === "ENOENT" && attempt === 0) {
        try {
          mkdirSync(entry);
        } catch (made) {
          if (codeOf(made) !== "EEXIST") throw made;
        }
        continue;
      }
      if (code !== "ENOTDIR" && code !== "ELOOP" && code !== "ENOENT") throw error;
      const info = lstatSync(entry, { throwIfNoEntry: false });
      // A plain file where a folder is named was so when judged too: the usual "not a folder" error.
      if (info && !info.isSymbolicLink() && !info.isDirectory()) throw error;
      throw notTheFolder(why, path, replaced(entry));
    }
  }
}

function walkChecked(dir: string, why: Judged, create: boolean): HeldFolder | undefined {
  const check = (make: boolean): boolean => {
    const { root } = parse(dir);
    let at = root;
    for (const part of dir.slice(root.length).split(sep).filter(Boolean)) {
      at = join(at, part);
      let info: Stats | undefined = lstatSync(at, { throwIfNoEntry: false });
      if (!info && make) {
        try {
          mkdirSync(at);
        } catch (error) {
          if (codeOf(error) !== "EEXIST") throw error;
        }
        info = lstatSync(at, { throwIfNoEntry: false });
      }
      if (!info && !make) return false;
      if (!info || info.isSymbolicLink()) throw notTheFolder(why, at, replaced(at));
      if (!info.isDirectory())
        throw Object.assign(new Error(`ENOTDIR: not a directory, ${at}`), { code: "ENOTDIR", path: at });
    }
    return true;
  };
  if (!check(create)) return undefined;
  return {
    path: dir,
    entry: (name) => join(dir, name),
    shared: dir,
    whereIs: () => undefined,
    check() {
      if (!check(false)) throw notTheFolder(why, dir, "it was removed");
    },
    close() {},
  };
}
