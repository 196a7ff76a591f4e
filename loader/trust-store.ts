/**
 * The user's trust store: which folders' own files (config, settings, MCP servers, agents,
 * skills, memory) may apply. One JSON file under the user's home, keyed by real path, written
 * atomically. A folder's trust covers everything below it. A store that exists but cannot be
 * read trusts nothing (fail closed) and says which file is broken.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, realpathSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { z } from "zod";
import { ConfigError } from "../src/index";
import { describeJsonError, readRegularFileSync } from "./safe-read";

/** One remembered answer: trusted, or "run without its files" (which stops the prompt asking again). */
export interface TrustEntry {
  path: string;
  trusted: boolean;
  at: string;
}

const StoreSchema = z.object({
  version: z.literal(1),
  folders: z.array(z.object({ path: z.string().min(1), trusted: z.boolean(), at: z.string() })),
});

const MAX_STORE_BYTES = 4 * 1024 * 1024;

/** The trust store's file: `~/.ubiquity/trusted-folders.json`. */
export function trustStorePath(home: string = homedir()): string {
  return join(home, ".ubiquity", "trusted-folders.json");
}

/** The real path of `dir` (symlinks resolved), or its absolute path when it does not exist. */
export function realFolder(dir: string): string {
  const abs = resolve(dir);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/** Every entry of the store; a missing store is empty, a broken one is a `ConfigError` naming it. */
export function readTrustStore(home?: string): TrustEntry[] {
  const file = trustStorePath(home);
  const read = readRegularFileSync(file, MAX_STORE_BYTES);
  if (!read.ok) {
    if (read.missing) return [];
    throw new ConfigError(`the trust store cannot be read: ${read.problem}; fix or delete it (then trust folders again with \`ubiquity trust <dir>\`)`, file);
  }
  let data: unknown;
  try {
    data = JSON.parse(read.text);
  } catch (error) {
    throw new ConfigError(`the trust store is not valid JSON (${describeJsonError(error, read.text)}); fix or delete it`, file);
  }
  const parsed = StoreSchema.safeParse(data);
  if (!parsed.success) throw new ConfigError(`the trust store does not have the expected shape (${z.prettifyError(parsed.error)}); fix or delete it`, file);
  return parsed.data.folders;
}

function writeTrustStore(entries: TrustEntry[], home?: string): void {
  const file = trustStorePath(home);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify({ version: 1, folders: entries }, null, 2)}\n`, { mode: 0o600, flag: "wx" });
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

/** True when `dir` (by real path) is trusted in the user's store. */
export function isFolderTrusted(dir: string, home?: string): boolean {
  return trustEntryFor(dir, readTrustStore(home))?.trusted === true;
}

/** Remember an answer for `dir` (its real path); returns that path. */
export function rememberTrust(dir: string, trusted: boolean, home?: string): string {
  const real = realFolder(dir);
  const entries = readTrustStore(home).filter((e) => e.path !== real);
  entries.push({ path: real, trusted, at: new Date().toISOString() });
  entries.sort((a, b) => a.path.localeCompare(b.path));
  writeTrustStore(entries, home);
  return real;
}

/** Forget `dir`'s entry (trusted or declined); returns whether there was one. */
export function revokeTrust(dir: string, home?: string): boolean {
  const real = realFolder(dir);
  const entries = readTrustStore(home);
  const kept = entries.filter((e) => e.path !== real);
  if (kept.length === entries.length) return false;
  writeTrustStore(kept, home);
  return true;
}
