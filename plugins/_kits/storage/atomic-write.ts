/**
 * Crash-safe file replacement: write a temp file beside the target, flush it, rename it over
 * the target. A reader (or a crash) sees the old file or the new one, never half of one.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** The temp file an atomic write of `name` goes through: `.<name>.<pid>.<8 hex>.tmp`, beside it (what the start-of-run sweep removes). */
export function atomicTempName(name: string): string {
  return `.${name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
}

/**
 * Write `data` to `path` atomically, creating parent folders and keeping an existing file's mode.
 * `private: true` makes a new file 0600 and new folders 0700 (a transcript, a token).
 */
export async function writeFileAtomic(
  path: string,
  data: Uint8Array | string,
  options: { private?: boolean } = {},
): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, ...(options.private ? { mode: 0o700 } : {}) });
  const mode = await stat(path).then(
    (s) => s.mode & 0o7777,
    () => (options.private ? 0o600 : undefined),
  );
  // Same folder as the target: rename is only atomic within one filesystem.
  const temp = join(dir, atomicTempName(basename(path)));
  try {
    const handle = await open(temp, "wx", mode ?? 0o666);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // open() applies the umask; an existing file keeps exactly the mode it had.
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}
