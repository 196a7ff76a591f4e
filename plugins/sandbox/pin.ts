/**
 * Writable folders are bound by descriptor, not by path. A path checked now and bound by bwrap a
 * moment later can be swapped for a symlink in between, and the bind then lands where the link
 * leads. So each folder is held open (its descriptor names the same folder whatever happens to
 * the path), the path is checked against it before each spawn, and bwrap gets the descriptor
 * (`--bind-fd`): the launcher reopens it through `/proc/<our pid>/fd/<n>`, a link to the open
 * folder itself rather than a path looked up again, and bwrap refuses to start ("Race condition
 * binding dirfd") unless what it mounted is that folder.
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync, realpathSync } from "node:fs";
import { which } from "./availability";
import { FILTER_FD } from "./seccomp";

/** A folder held open since it was granted (or first seen). */
export interface FolderPin {
  path: string;
  fd: number;
  dev: bigint;
  ino: bigint;
}

/**
 * `path` opened as the folder it is now, or undefined when it is not a folder. `exact`: the
 * folder must really be there, with no symlink anywhere on the way (one not pinned when granted).
 */
export function pinFolder(path: string, exact = false): FolderPin | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | (exact ? constants.O_NOFOLLOW : 0));
  } catch {
    return undefined;
  }
  try {
    if (exact && whereOpen(fd, path) !== path) throw new Error("not its real path");
    const info = fstatSync(fd, { bigint: true });
    return { path, fd, dev: info.dev, ino: info.ino };
  } catch {
    closeSync(fd);
    return undefined;
  }
}

/** The real path of the folder open on `fd` (opened from `path`); where there is no /proc (macOS: Seatbelt binds nothing), `path`'s. */
function whereOpen(fd: number, path: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return realpathSync(path);
  }
}

/** Let go of a pin. */
export function unpin(pin: FolderPin | undefined): void {
  if (!pin) return;
  try {
    closeSync(pin.fd);
  } catch {
    // already closed
  }
}

/**
 * Where `pin`'s path leads now, when that is the pinned folder (compared on a descriptor opened
 * now: dev and inode, which a swap cannot fake while the pin holds the inode); else why it is not bound.
 */
export function pinnedAt(pin: FolderPin): { dest: string } | { refused: string } {
  const now = pinFolder(pin.path);
  if (!now) return { refused: `${pin.path} is gone or no longer a folder, so it is not writable` };
  try {
    if (now.dev !== pin.dev || now.ino !== pin.ino)
      return {
        refused: `${pin.path} is no longer the folder it was when it was granted (replaced, or swapped for a symlink), so it is not writable`,
      };
    return { dest: whereOpen(now.fd, pin.path) };
  } finally {
    unpin(now);
  }
}

/** The first descriptor number the launcher gives bwrap (below it: stdio, the bridge's and the filter's, 3-9). */
export const FOLDER_FD_BASE = 10;

let bash: string | undefined;

/** bash, from the system folders (never PATH). */
export function systemBash(): string {
  bash ??= which("bash", "/run/current-system/sw/bin");
  if (!bash)
    throw new Error(
      "ubiquity:sandbox: bash is needed to hand the writable folders to bubblewrap, and none is in /usr/bin or /bin; install bash",
    );
  return bash;
}

/** bash's flags here: no start-up file (a socket on stdin makes bash read ~/.bashrc), no BASH_ENV, no functions from the environment. */
export const BASH_FLAGS = ["--norc", "--noprofile", "-p"];

/**
 * The spawn that starts `argv` (bwrap, or a launcher that ends in bwrap) with `pins` open on
 * FOLDER_FD_BASE, FOLDER_FD_BASE + 1, … (for `--bind-fd`, which closes them) and again on the
 * next as many (for the check inside, `innerCommand`, which closes them), the seccomp `filter`
 * (a path) on FILTER_FD when given, and `notes` printed on stderr first. bash, as dash
 * redirects descriptors 0-9 only; from the system folders, never PATH. The descriptors stay
 * open here (the pins) until the launcher has reopened them: a spawn may come later than its
 * wrap (an MCP server starts when connected).
 */
export function folderLaunch(
  pins: readonly FolderPin[],
  notes: readonly string[],
  argv: readonly string[],
  filter?: string,
): { command: string; args: string[] } {
  const opens = [
    ...(filter ? [`${FILTER_FD}<"$f"`] : []),
    ...[...pins, ...pins].map((p, i) => `${FOLDER_FD_BASE + i}<"/proc/${process.pid}/fd/${p.fd}"`),
  ].join(" ");
  return {
    command: systemBash(),
    args: [
      ...BASH_FLAGS,
      "-c",
      `[ -z "$0" ] || printf '%s\\n' "$0" >&2\n${filter ? "f=$1; shift; " : ""}exec "$@" ${opens}`,
      notes.join("\n"),
      ...(filter ? [filter] : []),
      ...argv,
    ],
  };
}

/**
 * The spawn of `argv` (bwrap) with no launcher: the same descriptors as `folderLaunch` gives
 * (each pin on FOLDER_FD_BASE + i and again on the next as many, the filter on FILTER_FD), for a
 * caller that hands them to the child itself (child_process spawn's stdio array: `fds[n]` is the
 * parent's descriptor the child gets as n). The pins stay open here until the sandbox closes;
 * the filter is opened afresh (bwrap reads it to its end, and a description shared between
 * spawns would be read from where the last left off), and `release` closes it once the child is
 * started: spawn() returns after the child's exec, when it holds its own copy.
 */
export function folderDescriptors(
  pins: readonly FolderPin[],
  argv: readonly string[],
  filter?: string,
): { command: string; args: string[]; fds: (number | undefined)[]; release: () => void } {
  const fds: (number | undefined)[] = [];
  [...pins, ...pins].forEach((p, i) => {
    fds[FOLDER_FD_BASE + i] = p.fd;
  });
  let opened = filter === undefined ? undefined : openSync(filter, constants.O_RDONLY);
  if (opened !== undefined) fds[FILTER_FD] = opened;
  return {
    command: argv[0]!,
    args: argv.slice(1),
    fds,
    release: () => {
      if (opened !== undefined) closeSync(opened);
      opened = undefined;
    },
  };
}
