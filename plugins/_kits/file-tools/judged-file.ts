/**
 * Read and write exactly the file that was judged: through its folder held by `holdFolder` (no
 * link followed on the way), the file itself opened with O_NOFOLLOW, and, after the write, a
 * check of where the file really landed; what landed anywhere else is removed and the call fails
 * naming the swap. Nothing outside the judged path is restored: a file the swap made us replace
 * there is gone, which is why the folder is checked again right before the rename.
 *
 * Hard links: a write never goes into an existing inode (it renames a new file over the name),
 * so a name hard-linked to a file in `.git` is replaced and the `.git` file keeps its content. A
 * read through such a name reads the shared content; the name is what was judged, and a hard
 * link is a file in its own right (it cannot be told from "the" original), so reads are not refused.
 */
import { constants, type BigIntStats, type Stats } from "node:fs";
import { lstat, open, rename, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { atomicTempName } from "../storage/index";
import { holdFolder, notTheFolder, O_NOFOLLOW, PathSwapped, type HeldFolder, type Judged } from "./held-folder";
import { ToolFailure } from "./tool-failure";

const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Points between judgement and use where a test swaps a path, to make a race deterministic. */
export type RacePoint = "judged" | "held" | "written" | "renamed";

/** Test seam: `at` runs at each race point. */
export const raceSeams: { at?: (point: RacePoint, real: string) => void } = {};

/** A judged file as read: its bytes and its stat. */
export interface JudgedRead {
  bytes: Buffer;
  info: Stats;
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;
const sameFile = (a: BigIntStats | undefined, b: BigIntStats) => a !== undefined && a.ino === b.ino && a.dev === b.dev;
const lstatBig = (path: string) => lstat(path, { bigint: true }).catch(() => undefined);

function linkAtEnd(why: Judged): PathSwapped {
  const action = why.verb === "written" ? "write" : "read";
  return new PathSwapped(
    `Not ${why.verb}: ${why.shown} was judged to be the file ${why.real}, but it was replaced by a link by another process ` +
      `between the permission check and the ${action}. Nothing was ${why.verb}. Find what is changing it (a background command?), stop it, then try again.`,
  );
}

function notRegular(
  shown: string,
  info: { isDirectory(): boolean },
  verb: "read" | "written" = "written",
): ToolFailure {
  return new ToolFailure(
    info.isDirectory()
      ? `${shown} is a directory; give the path of a file.`
      : `${shown} is not a regular file (a device, socket or pipe); only regular files can be ${verb}.`,
  );
}

/** Throws when the file behind `handle` is not the one at `path`, judged (what the descriptor says on Linux, inodes elsewhere). */
async function assertAt(folder: HeldFolder, handle: FileHandle, path: string, why: Judged): Promise<void> {
  const where = folder.whereIs(handle.fd);
  if (where !== undefined) {
    if (where !== path) throw notTheFolder(why, folder.path, `the file opened is ${where}`);
    return;
  }
  folder.check();
  if (!sameFile(await lstatBig(path), await handle.stat({ bigint: true }))) throw linkAtEnd(why);
}

/** A judged file opened for reading: the open handle (the caller closes it) and its stat. */
export interface JudgedHandle {
  handle: FileHandle;
  info: Stats;
}

/**
 * Open the judged file `real` for reading: through its held folder, the file itself with
 * O_NOFOLLOW, checked to be a regular file at `real`. Undefined when it does not exist. Every
 * later read goes through the handle: a path opened again may lead elsewhere by then (a link
 * swapped in by another process), and the handle cannot.
 */
export async function openJudged(real: string, shown: string): Promise<JudgedHandle | undefined> {
  const why: Judged = { shown, real, verb: "read" };
  raceSeams.at?.("judged", real);
  const folder = holdFolder(dirname(real), why, false);
  if (!folder) return undefined;
  try {
    raceSeams.at?.("held", real);
    let handle: FileHandle;
    try {
      // O_NONBLOCK: a pipe standing there must not hang the call before it is refused.
      handle = await open(folder.entry(basename(real)), constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      if (codeOf(error) === "ENOENT") return undefined;
      if (codeOf(error) === "ELOOP") throw linkAtEnd(why);
      if (codeOf(error) === "ENXIO") throw notRegular(shown, { isDirectory: () => false }, "read"); // a socket
      throw error;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw notRegular(shown, info, "read");
      await assertAt(folder, handle, real, why);
      return { handle, info };
    } catch (error) {
      await handle.close();
      throw error;
    }
  } finally {
    folder.close();
  }
}

/** Read the judged file `real` whole; undefined when it does not exist. */
export async function readJudged(real: string, shown: string): Promise<JudgedRead | undefined> {
  const opened = await openJudged(real, shown);
  if (!opened) return undefined;
  try {
    return { bytes: await opened.handle.readFile(), info: opened.info };
  } finally {
    await opened.handle.close();
  }
}

/**
 * Write `bytes` to the judged file `real` atomically (a temp file beside it, renamed over it),
 * making missing folders and keeping an existing file's mode. Returns the written file's stat.
 */
export async function writeJudged(real: string, bytes: Uint8Array, shown: string): Promise<Stats> {
  const why: Judged = { shown, real, verb: "written" };
  raceSeams.at?.("judged", real);
  const folder = holdFolder(dirname(real), why, true)!;
  const name = basename(real);
  try {
    raceSeams.at?.("held", real);
    const now = await lstat(folder.entry(name)).catch((error: unknown) => {
      if (codeOf(error) === "ENOENT") return undefined;
      throw error;
    });
    if (now?.isSymbolicLink()) throw linkAtEnd(why);
    if (now && !now.isFile()) throw notRegular(shown, now);
    const mode = now ? now.mode & 0o7777 : undefined;
    const tempName = atomicTempName(name);
    const temp = folder.entry(tempName);
    // O_EXCL: a link planted under the temp's name is never followed.
    const handle = await open(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW,
      mode ?? 0o666,
    ).catch((error: unknown) => {
      // The folder held (or checked) was removed since: something replaced it.
      throw codeOf(error) === "ENOENT" ? notTheFolder(why, folder.path, "it was removed or replaced") : error;
    });
    let renamed = false;
    try {
      await handle.writeFile(bytes);
      await handle.sync();
      // open() applies the umask; an existing file keeps exactly the mode it had.
      if (mode !== undefined) await handle.chmod(mode);
      raceSeams.at?.("written", real);
      // Right before the rename, which replaces whatever has the name where the temp is.
      await assertAt(folder, handle, join(folder.path, tempName), why);
      await rename(temp, folder.entry(name));
      renamed = true;
      raceSeams.at?.("renamed", real);
      await landed(folder, handle, name, why);
      return await handle.stat();
    } catch (error) {
      if (!renamed) await unlink(temp).catch(() => {});
      throw error;
    } finally {
      await handle.close();
    }
  } finally {
    folder.close();
  }
}

/** After the rename: the file must be at the judged path; if it is not, remove it where it landed, and fail. */
async function landed(folder: HeldFolder, handle: FileHandle, name: string, why: Judged): Promise<void> {
  const mine = await handle.stat({ bigint: true });
  const where = folder.whereIs(handle.fd);
  if (where === why.real) return;
  if (where === undefined) {
    let still = true;
    try {
      folder.check();
    } catch {
      still = false;
    }
    if (still && sameFile(await lstatBig(why.real), mine)) return;
  }
  // On Linux the held folder names exactly where the rename put it; elsewhere the path does, if it is still ours.
  const entry = folder.entry(name);
  const removed =
    sameFile(await lstatBig(entry), mine) &&
    (await unlink(entry).then(
      () => true,
      () => false,
    ));
  const at = where ?? "where the link led";
  throw notTheFolder(
    why,
    folder.path,
    where === undefined ? "it was replaced during the write" : `it was moved, and the file landed at ${where}`,
    removed
      ? `What landed ${where === undefined ? at : `at ${at}`} was removed again.`
      : `The file may have landed ${at}, and could not be removed: check it.`,
  );
}

/**
 * Remove the judged file `real` (a patch's `*** Delete File`): through its held folder, only a
 * regular file (never a link, whose target would stay, nor a folder). Returns false when it was
 * already gone.
 */
export async function removeJudged(real: string, shown: string): Promise<boolean> {
  const why: Judged = { shown, real, verb: "written" };
  raceSeams.at?.("judged", real);
  const folder = holdFolder(dirname(real), why, false);
  if (!folder) return false;
  try {
    raceSeams.at?.("held", real);
    const entry = folder.entry(basename(real));
    const now = await lstat(entry).catch((error: unknown) => {
      if (codeOf(error) === "ENOENT") return undefined;
      throw error;
    });
    if (!now) return false;
    if (now.isSymbolicLink()) throw linkAtEnd(why);
    if (!now.isFile()) throw notRegular(shown, now);
    folder.check();
    await unlink(entry);
    return true;
  } finally {
    folder.close();
  }
}
