/**
 * A copy that keeps its sources' modes (cp -p, -a, --preserve=mode) gives each file it writes the
 * mode of the file it reads, the umask not applied: `cp -p /dev/null run.sh` (a device every user
 * may write, 0666) leaves a world-writable run.sh, and `cp --attributes-only -p /dev/null
 * .git/…`-style copies change an existing file's mode and nothing else (red team ze, ZE2). The
 * sources are judged on disk as every other path is: a mode that lets the group or others write,
 * or a set-ID bit, installs code to run later as `chmod o+w` and `chmod u+s` do (red teams zb, z);
 * what is no plain file or folder (a device, a FIFO), or is not there to be read, has a mode only
 * known at run time.
 */
import { lstatSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";

/** Bits that let the group or others write, and the set-ID bits. */
const OPENING = 0o6022;

/** A copy's mode judged: why it asks, and whether other users may write the copy (the sandbox would not hold that). */
export interface CopiedMode {
  why: string;
  /** Not only a set-ID bit (which the sandbox's seccomp filter refuses). */
  opens: boolean;
}

/** Why copying `paths` (one source; for a recursive copy, the entries `below` it too) with its modes opens a file to others, if it does. */
export function copiedModeReason(
  paths: readonly string[],
  below: readonly string[],
  text: string,
): CopiedMode | undefined {
  const found = paths.flatMap((path) => {
    const info = statOf(path, statSync);
    return info ? [{ path, info }] : [];
  });
  if (found.length === 0)
    return {
      why: `it copies ${text} with its mode, which is only known at run time (it is not there now)`,
      opens: true,
    };
  for (const { path, info } of found) {
    const why = judge(info, text);
    if (why) return why;
    if (!info.isDirectory()) continue;
    for (const rel of below) {
      // An entry copied as a link keeps no mode of its own; judged by what it leads to all the same.
      const entry = statOf(join(path, rel), lstatSync);
      const led = entry?.isSymbolicLink() ? statOf(join(path, rel), statSync) : entry;
      const inner = led && judge(led, `${text}/${rel}`);
      if (inner) return inner;
    }
  }
  return undefined;
}

function judge(info: Stats, text: string): CopiedMode | undefined {
  if (!info.isFile() && !info.isDirectory())
    return {
      why: `it copies ${text} with its mode, and ${text} is no plain file or folder (a device's mode is the device's: /dev/null lets every user write)`,
      opens: true,
    };
  const mode = info.mode & 0o7777;
  if ((mode & OPENING) === 0) return undefined;
  if ((mode & 0o022) !== 0)
    return {
      why: `it copies ${text} with its mode ${mode.toString(8)}, which lets other users of the machine write the copy, which may be code that runs later`,
      opens: true,
    };
  return {
    why: `it copies ${text} with its mode ${mode.toString(8)}, a set-ID bit that makes the copy run with its owner's rights for whoever starts it`,
    opens: false,
  };
}

function statOf(path: string, how: typeof statSync | typeof lstatSync): Stats | undefined {
  try {
    return how(path, { throwIfNoEntry: false }) ?? undefined;
  } catch {
    return undefined;
  }
}
