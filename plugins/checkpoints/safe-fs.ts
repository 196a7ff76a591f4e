/**
 * Writing and removing workspace files for a rewind without leaving the permitted folder: each
 * path's parent is walked component by component from the folder's real path, and a symlink
 * among them that resolves outside the folder stops the change (a link the agent planted in the
 * workspace must not carry a rewind's write out of it). The last component is never followed:
 * a file is written to a temp file beside it and renamed over it (a symlink there is replaced,
 * not written through), and a removal unlinks the entry itself.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { UbiquityError } from "../../src/index";
import { isInside } from "../_kits/paths/index";

/** A change a rewind refused to make, and why. */
export class UnsafePathError extends UbiquityError {
  override name = "UnsafePathError";
}

function parts(rel: string): string[] {
  const list = rel.split("/");
  if (rel.startsWith("/") || list.some((p) => p === "" || p === "." || p === ".."))
    throw new UnsafePathError(`${rel}: not a plain relative path`);
  // git never snapshots a `.git` entry: one in a checkpoint's tree is forged, and would write hooks or config.
  if (list.some((p) => p.toLowerCase() === ".git"))
    throw new UnsafePathError(`${rel}: inside a .git folder, never written by a rewind`);
  return list;
}

/**
 * The real folder `rel` lives in, inside `realRoot`. Missing folders are created one at a time
 * when `create` is set (undefined is returned for a missing one otherwise).
 */
export function safeParent(realRoot: string, rel: string, create: boolean): string | undefined {
  const list = parts(rel);
  let dir = realRoot;
  for (const part of list.slice(0, -1)) {
    const next = join(dir, part);
    const info = lstatSync(next, { throwIfNoEntry: false });
    if (!info) {
      if (!create) return undefined;
      mkdirSync(next);
      dir = next;
      continue;
    }
    if (info.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync.native(next);
      } catch {
        throw new UnsafePathError(`${join(realRoot, rel)}: its folder ${next} is a dangling symlink`);
      }
      if (!isInside(realRoot, real))
        throw new UnsafePathError(
          `${join(realRoot, rel)}: its folder ${next} is a symlink to ${real}, outside ${realRoot}`,
        );
      dir = real;
      continue;
    }
    if (!info.isDirectory()) throw new UnsafePathError(`${join(realRoot, rel)}: ${next} is not a folder`);
    dir = next;
  }
  // The walk resolved every link itself; this says the same once more from the kernel's view.
  const real = realpathSync.native(dir);
  if (!isInside(realRoot, real))
    throw new UnsafePathError(`${join(realRoot, rel)}: its folder resolves to ${real}, outside ${realRoot}`);
  return real;
}

const base = (rel: string) => rel.slice(rel.lastIndexOf("/") + 1);
// The file's own name in the temp name while it fits the 255-byte limit of a name.
const tempBeside = (dir: string, name: string) =>
  join(dir, `.${Buffer.byteLength(name) > 200 ? "" : `${name}.`}ubq-rewind-${randomBytes(4).toString("hex")}.tmp`);

/**
 * The mode a restored file gets: git keeps only the executable bit, so a file still there keeps
 * its own permissions (a 0600 secret stays 0600) with the bit set or cleared as the checkpoint
 * had it, the way git sets it on checkout; a recreated file gets 0644 or 0755.
 */
export function fileMode(current: number | undefined, executable: boolean): number {
  if (current === undefined) return executable ? 0o755 : 0o644;
  return executable ? current | ((current & 0o444) >> 2) : current & ~0o111;
}

/** Write `data` at `rel` (mode from git: 100644, 100755, or 120000 for a symlink whose target is `data`). */
export function safeWrite(realRoot: string, rel: string, data: Buffer, mode: string): void {
  const dir = safeParent(realRoot, rel, true)!;
  const name = base(rel);
  const target = join(dir, name);
  const existing = lstatSync(target, { throwIfNoEntry: false });
  if (existing?.isDirectory())
    throw new UnsafePathError(`${target}: a folder is there now; move it away to restore the file`);
  const temp = tempBeside(dir, name);
  try {
    if (mode === "120000") symlinkSync(data.toString("utf8"), temp);
    else {
      const fd = openSync(temp, "wx", 0o600);
      try {
        writeSync(fd, data);
      } finally {
        closeSync(fd);
      }
      chmodSync(temp, fileMode(existing?.isFile() ? existing.mode & 0o7777 : undefined, mode === "100755"));
    }
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // never made
    }
    throw error;
  }
}

/** Remove the file or symlink at `rel`, then the folders above it left empty that `keep` does not name. */
export function safeRemove(realRoot: string, rel: string, keep: (relDir: string) => boolean): void {
  const dir = safeParent(realRoot, rel, false);
  if (dir === undefined) return; // its folder is gone already
  const target = join(dir, base(rel));
  const info = lstatSync(target, { throwIfNoEntry: false });
  if (!info) return;
  if (info.isDirectory()) throw new UnsafePathError(`${target}: is a folder now; left alone`);
  unlinkSync(target);
  // Folders the removed files were created in go too, while empty (never the root, never one the checkpoint had).
  const list = parts(rel).slice(0, -1);
  while (list.length > 0) {
    const relDir = list.join("/");
    if (keep(relDir)) break;
    const path = safeParent(realRoot, `${relDir}/x`, false);
    if (path === undefined || lstatSync(join(realRoot, relDir), { throwIfNoEntry: false })?.isSymbolicLink()) break;
    try {
      rmdirSync(path);
    } catch {
      break; // not empty
    }
    list.pop();
  }
}
