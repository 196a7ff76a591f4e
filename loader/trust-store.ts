/**
 * The user's trust store: which folders' own files (config, settings, MCP servers, agents,
 * skills, memory) may apply, and the digest of each file approved (see trust-pins.ts). One JSON
 * file under the user's home, keyed by real path, written atomically under a lock so concurrent
 * writers lose no entry. A folder's trust covers everything below it. A store that exists but
 * cannot be read trusts nothing (fail closed), says which file is broken and is never overwritten.
 */
import { randomBytes } from "node:crypto";
import {
  mkdirSync,
  openSync,
  closeSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, sep } from "node:path";
import { z } from "zod";
import { ConfigError } from "../src/index";
import { describeJsonError, readRegularFileSync } from "./safe-read";
import { realFolder, TrustPins } from "./trust-pins";
import { digestsOf, findFilesToPin } from "./project-files";

export { realFolder } from "./trust-pins";

/** One remembered answer: trusted, or "run without its files" (which stops the prompt asking again). */
export interface TrustEntry {
  path: string;
  trusted: boolean;
  at: string;
  /**
   * The digest of each file approved with the folder, by real path (`sha256:…`). Absent in entries
   * written before files were pinned: such an entry approves no file until the folder is trusted again.
   */
  files?: Record<string, string>;
}

const StoreSchema = z.object({
  version: z.union([z.literal(1), z.literal(2)]),
  folders: z.array(
    z.object({
      path: z.string().min(1),
      trusted: z.boolean(),
      at: z.string(),
      files: z.record(z.string(), z.string().regex(/^sha256:[0-9a-f]{64}$/)).optional(),
    }),
  ),
});

const MAX_STORE_BYTES = 4 * 1024 * 1024;

/** The trust store's file: `~/.ubiquity/trusted-folders.json`. */
export function trustStorePath(home: string = homedir()): string {
  return join(home, ".ubiquity", "trusted-folders.json");
}

/** Every entry of the store; a missing store is empty, a broken one is a `ConfigError` naming it. */
export function readTrustStore(home?: string): TrustEntry[] {
  const file = trustStorePath(home);
  const read = readRegularFileSync(file, MAX_STORE_BYTES);
  if (!read.ok) {
    if (read.missing) return [];
    throw new ConfigError(
      `the trust store cannot be read: ${read.problem}; fix or delete it (then trust folders again with \`ubiquity trust <dir>\`)`,
      file,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(read.text);
  } catch (error) {
    throw new ConfigError(
      `the trust store is not valid JSON (${describeJsonError(error, read.text)}); fix or delete it`,
      file,
    );
  }
  const parsed = StoreSchema.safeParse(data);
  if (!parsed.success)
    throw new ConfigError(
      `the trust store does not have the expected shape (${z.prettifyError(parsed.error)}); fix or delete it`,
      file,
    );
  return parsed.data.folders;
}

/** How long a writer waits for another's lock before giving up, in milliseconds. */
const LOCK_WAIT_MS = 15_000;
/** A lock older than this is a crashed writer's (a write takes milliseconds). */
const STALE_LOCK_MS = 60_000;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** True when the process that wrote a lock is gone, or the lock is old: a crashed writer's. */
function staleLock(lock: string): boolean {
  try {
    const pid = Number(readFileSync(lock, "utf8").trim());
    if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) return true;
    if (!Number.isInteger(pid) || pid <= 0) return false; // being written: wait for it
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Read, change and write the store while holding its lock (`trusted-folders.json.lock`), so two
 * `ubiquity trust` runs at once both keep their entry. A store that cannot be read is not written.
 */
function updateTrustStore<T>(
  home: string | undefined,
  change: (entries: TrustEntry[]) => { entries?: TrustEntry[]; result: T },
): T {
  const file = trustStorePath(home);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const lock = `${file}.lock`;
  const started = Date.now();
  let fd: number | undefined;
  while (fd === undefined) {
    try {
      fd = openSync(lock, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (staleLock(lock)) {
        try {
          unlinkSync(lock);
        } catch {
          // Another writer removed it first.
        }
        continue;
      }
      if (Date.now() - started > LOCK_WAIT_MS) {
        throw new ConfigError(
          `the trust store is locked by another ubiquity process (${lock}); if none is running, delete the lock file`,
          file,
        );
      }
      sleepSync(25);
    }
  }
  try {
    writeSync(fd, String(process.pid));
    closeSync(fd);
    removeOrphanedTemps(file);
    const { entries, result } = change(readTrustStore(home));
    if (entries) writeTrustStore(entries, home);
    return result;
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // Removed as stale by a writer that waited too long: nothing to release.
    }
  }
}

/** Temp files a writer killed mid-write left behind (under the lock no write is in progress). */
function removeOrphanedTemps(file: string): void {
  const prefix = `${basename(file)}.`;
  try {
    for (const name of readdirSync(dirname(file))) {
      if (name.startsWith(prefix) && name.endsWith(".tmp")) unlinkSync(join(dirname(file), name));
    }
  } catch {
    // Best effort: an orphan only takes space.
  }
}

function writeTrustStore(entries: TrustEntry[], home?: string): void {
  const file = trustStorePath(home);
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify({ version: 2, folders: entries }, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    renameSync(temp, file);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Nothing was written.
    }
    throw error;
  }
}

function covers(folder: string, path: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/** The entry deciding `dir`: the nearest remembered folder at or above its real path. */
export function trustEntryFor(dir: string, entries: readonly TrustEntry[]): TrustEntry | undefined {
  const real = realFolder(dir);
  // A trusted parent covers its children, whatever a child's own remembered answer says.
  const trusted = entries.filter((e) => e.trusted && covers(e.path, real));
  if (trusted.length > 0) return trusted.reduce((a, b) => (b.path.length > a.path.length ? b : a));
  const declined = entries.filter((e) => !e.trusted && covers(e.path, real));
  return declined.length > 0 ? declined.reduce((a, b) => (b.path.length > a.path.length ? b : a)) : undefined;
}

/**
 * True when `dir` (by real path) is in a trusted folder of the user's store. Its files still apply
 * one by one, each only while unchanged since it was approved: see `trustPinsFor`.
 */
export function isFolderTrusted(dir: string, home?: string): boolean {
  return trustEntryFor(dir, readTrustStore(home))?.trusted === true;
}

/** The approved digests that apply to `dir`, from every trusted folder covering it. */
export interface FolderPins {
  pins: TrustPins;
  /** A covering entry was written before files were pinned: its files need approving again (`ubiquity trust .`). */
  legacy: boolean;
}

/** The digests approved for `dir` and the folders above it; undefined when no trusted folder covers it. */
export function trustPinsFor(
  dir: string,
  entries: readonly TrustEntry[],
  home: string = homedir(),
): FolderPins | undefined {
  const real = realFolder(dir);
  const covering = entries.filter((e) => e.trusted && covers(e.path, real));
  if (covering.length === 0) return undefined;
  const digests = new Map<string, string>();
  // Nearest last: a folder trusted again more recently has the newer digests.
  for (const entry of covering.sort((a, b) => a.at.localeCompare(b.at)))
    for (const [path, digest] of Object.entries(entry.files ?? {})) digests.set(path, digest);
  const roots = covering.map((e) => e.path);
  return { pins: new TrustPins(digests, home, roots), legacy: covering.some((e) => e.files === undefined) };
}

/**
 * Remember an answer for `dir` (its real path); returns that path. A trusted answer records
 * `files`, the digest of each file approved (by `pinKey`) — by default the config files the
 * loader finds in and below `dir` (the runner passes every plugin's files too); a file not
 * recorded does not apply.
 */
export function rememberTrust(dir: string, trusted: boolean, home?: string, files?: Record<string, string>): string {
  const real = realFolder(dir);
  const approved = trusted ? (files ?? digestsOf(findFilesToPin(real, home ?? homedir()))) : undefined;
  return updateTrustStore(home, (current) => {
    const entries = current.filter((e) => e.path !== real);
    entries.push({ path: real, trusted, at: new Date().toISOString(), ...(approved ? { files: approved } : {}) });
    entries.sort((a, b) => a.path.localeCompare(b.path));
    return { entries, result: real };
  });
}

/**
 * Approve `files` (digests by `pinKey`) for the trusted folder `dir`: added to what its entry
 * already approves (an entry is made when it has none). What the trust question records.
 */
export function approveFiles(dir: string, files: Record<string, string>, home?: string): string {
  const real = realFolder(dir);
  return updateTrustStore(home, (current) => {
    const own = current.find((e) => e.path === real && e.trusted);
    const entries = current.filter((e) => e.path !== real);
    entries.push({ path: real, trusted: true, at: new Date().toISOString(), files: { ...own?.files, ...files } });
    entries.sort((a, b) => a.path.localeCompare(b.path));
    return { entries, result: real };
  });
}

/** Forget `dir`'s entry (trusted or declined); returns whether there was one. */
export function revokeTrust(dir: string, home?: string): boolean {
  const real = realFolder(dir);
  return updateTrustStore(home, (entries) => {
    const kept = entries.filter((e) => e.path !== real);
    return kept.length === entries.length ? { result: false } : { entries: kept, result: true };
  });
}
