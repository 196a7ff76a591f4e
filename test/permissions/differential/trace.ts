/**
 * Reading an `strace -f -v -xx -y` log: which programs started (path and argv, as the kernel
 * got them) and which paths were opened for writing, created, renamed, linked or removed. With
 * `-xx` every string is hex-escaped and with `-y` every descriptor (AT_FDCWD included) carries
 * its path, so no quoting rules or working-directory bookkeeping are needed.
 */
import { resolve } from "node:path";

/** A program bash (or a wrapper it ran) started. */
export interface Exec {
  path: string;
  argv: string[];
}

/** What one command string did. */
export interface Observation {
  execs: Exec[];
  /** Absolute paths written, created or removed (attempts refused by the read-only system count too). */
  writes: string[];
  /** Exit status of the traced bash (137 when the time limit killed it). */
  status: number;
}

const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/;
// A write that would land on a real system: it worked, or only the sandbox's read-only root refused it.
const LANDED = /^= (?:\d+|-1 (?:EROFS|EACCES|EPERM))/;

// Which arguments of each syscall name a path that changes: [dirfd index | -1, path index] pairs.
const PATH_ARGS: Record<string, [number, number][]> = {
  creat: [[-1, 0]],
  truncate: [[-1, 0]],
  rename: [
    [-1, 0],
    [-1, 1],
  ],
  renameat: [
    [0, 1],
    [2, 3],
  ],
  renameat2: [
    [0, 1],
    [2, 3],
  ],
  link: [[-1, 1]],
  linkat: [[2, 3]],
  symlink: [[-1, 1]],
  symlinkat: [[1, 2]],
  unlink: [[-1, 0]],
  unlinkat: [[0, 1]],
  mkdir: [[-1, 0]],
  mkdirat: [[0, 1]],
  rmdir: [[-1, 0]],
  mknod: [[-1, 0]],
  mknodat: [[0, 1]],
};

/** Parse one trace. The first exec (the traced bash itself) is left out. */
export function parseTrace(text: string, status: number): Observation {
  const execs: Exec[] = [];
  const writes: string[] = [];
  const pending = new Map<string, string>();
  // The last working directory seen per process, for the few syscalls that take no dirfd.
  const cwd = new Map<string, string>();
  let first = true;
  for (const raw of text.split("\n")) {
    const m = /^(\d+)\s+(.*)$/.exec(raw);
    if (!m) continue;
    const pid = m[1]!;
    let line = m[2]!;
    if (line.endsWith("<unfinished ...>")) {
      pending.set(pid, line.slice(0, -"<unfinished ...>".length));
      continue;
    }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(line);
    if (resumed) {
      line = (pending.get(pid) ?? "") + resumed[1]!;
      pending.delete(pid);
    }
    const call = /^(\w+)\((.*)\)\s+(= .*)$/.exec(line);
    if (!call) continue;
    const [, name, argText, result] = call as unknown as [string, string, string, string];
    const args = splitArgs(argText);
    const at = /^AT_FDCWD<(.*)>$/.exec(args[0] ?? "") ?? /^AT_FDCWD<(.*)>$/.exec(args[2] ?? "");
    if (at) cwd.set(pid, unhex(at[1]!));
    if (name === "execve" || name === "execveat") {
      if (!/^= 0/.test(result)) continue;
      if (first) {
        first = false;
        continue;
      }
      const pathArg = name === "execve" ? args[0]! : args[1]!;
      const argvArg = name === "execve" ? args[1]! : args[2]!;
      execs.push({ path: unhex(stringArg(pathArg)), argv: arrayArg(argvArg).map((a) => unhex(stringArg(a))) });
      continue;
    }
    if (!LANDED.test(result)) continue;
    if (name === "open" || name === "openat" || name === "openat2") {
      const flags = name === "open" ? args[1] : args[2];
      if (!flags || !WRITE_FLAGS.test(flags)) continue;
      // `-y` decorates a returned descriptor with the path it really opened.
      const opened = /^= \d+<(.*)>$/.exec(result);
      if (opened) writes.push(unhex(opened[1]!));
      else writes.push(joinAt(name === "open" ? undefined : args[0], args[name === "open" ? 0 : 1]!, cwd.get(pid)));
      continue;
    }
    for (const [dirIndex, pathIndex] of PATH_ARGS[name] ?? []) {
      const p = args[pathIndex];
      if (p !== undefined) writes.push(joinAt(dirIndex >= 0 ? args[dirIndex] : undefined, p, cwd.get(pid)));
    }
  }
  return { execs, writes: [...new Set(writes)], status };
}

/** Split the top-level, comma-separated arguments of a syscall (strings and arrays kept whole). */
function splitArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === "[" || c === "{" || c === "(" || c === "<") depth++;
    else if (c === "]" || c === "}" || c === ")" || c === ">") depth--;
    else if (c === "," && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out;
}

function stringArg(arg: string): string {
  const m = /^"(.*)"(?:\.\.\.)?$/.exec(arg);
  return m ? m[1]! : "";
}

function arrayArg(arg: string): string[] {
  const m = /^\[(.*)\]$/.exec(arg);
  return m && m[1]!.trim() !== "" ? splitArgs(m[1]!) : [];
}

/** `\x72\x6d` → `rm` (strace -xx escapes every byte). */
function unhex(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\" && text[i + 1] === "x") {
      bytes.push(parseInt(text.slice(i + 2, i + 4), 16));
      i += 3;
    } else bytes.push(text.charCodeAt(i));
  }
  return Buffer.from(bytes).toString("utf8");
}

/** A path argument made absolute against its dirfd (`3</dir>` or `AT_FDCWD</cwd>`) or the last known cwd. */
function joinAt(dirArg: string | undefined, pathArg: string, fallback: string | undefined): string {
  const path = unhex(stringArg(pathArg));
  if (path.startsWith("/")) return resolve(path);
  const dir = dirArg ? /<(.*)>$/.exec(dirArg)?.[1] : undefined;
  return resolve(dir !== undefined ? unhex(dir) : (fallback ?? "/"), path);
}
