/**
 * `SessionStore`: the transcripts on disk, `<dir>/<project-slug>/<sessionId>.jsonl`. Listing,
 * reading, forking and deleting sessions; the plugin and the `ubiquity sessions` command both
 * go through it.
 */
import { randomUUID } from "node:crypto";
import { readdir, stat, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { UbiquityError } from "../../src/index";
import { readRegularFile } from "../../loader/index";
import { writeFileAtomic, projectSlug, storageRoot } from "../_kits/storage/index";
import type { ForkedSession, ListOptions, SessionAppender, SessionBackend } from "./backend";
import { FileAppender } from "./file-appender";
import { acquireLock, lockPathOf, releaseLock } from "./lock";
import { parseJsonl } from "./jsonl";
import { isNote, isRecord, withoutRole, type TranscriptNote, type TranscriptRecord } from "./records";

/** Options of `new SessionStore()`. */
export interface SessionStoreOptions {
  /** The sessions root [~/.ubiquity/sessions]; `~` is expanded, a relative path is against the process cwd. */
  dir?: string;
}

/** What `list()` says about one session. */
export interface SessionInfo {
  sessionId: string;
  /** The first prompt, whitespace collapsed, cut to 100 characters. */
  summary: string;
  /** ISO 8601: the first record's timestamp. */
  createdAt: string;
  /** ISO 8601: the last time the transcript was written. */
  updatedAt: string;
  /** How many records (messages) the transcript holds. */
  messageCount: number;
  /** The working directory the session ran in. */
  cwd: string;
}

/** A session with all its records, as `get()` returns it. */
export interface StoredSession extends SessionInfo {
  records: TranscriptRecord[];
  /** The transcript file. */
  path: string;
  /** 1-based numbers of corrupt lines in the middle of the file, skipped (empty when none). */
  corruptLines: number[];
  /** Plugins' notes kept beside the records (checkpoints), in file order. */
  notes: TranscriptNote[];
}

/** Options of `fork()`. */
export interface ForkOptions {
  /** The project the fork belongs to (its records get this cwd) [the source's cwd]. */
  cwd?: string;
  /** Copy records up to and including this one [all]. */
  upToUuid?: string;
  /** The new session's id [a fresh uuid]. */
  sessionId?: string;
}

/** A session id or record that does not exist; the message names it and how to find real ones. */
export class SessionNotFoundError extends UbiquityError {
  override name = "SessionNotFoundError";
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;
const SUMMARY_CHARS = 100;

/** True when `id` can name a transcript file (no path separators, no dots). */
export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

/** What `list()` shows of a session: its first prompt, whitespace collapsed, cut to 100 characters. */
export function summarize(records: readonly TranscriptRecord[]): string {
  const first = records.find((r) => r.message.type === "user" && r.message.agentId === undefined);
  const text = first?.message.type === "user" ? first.message.text.replace(/\s+/g, " ").trim() : "";
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text;
}

/** A transcript as read: its records, and the lines that could not be read. */
export interface TranscriptRead {
  records: TranscriptRecord[];
  /** 1-based numbers of lines in the middle of the file that are not records (a torn last line is not counted). */
  corruptLines: number[];
  /** Plugins' notes (not records), in file order. */
  notes: TranscriptNote[];
}

/** Transcripts larger than this are refused rather than read into memory (a 1,000-turn one is a few MB). */
export const MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024;

/** Read a transcript, noting corrupt lines. Undefined when the file is gone. */
export async function readTranscriptFile(path: string): Promise<TranscriptRead | undefined> {
  // Only a regular file, and not past the cap: a FIFO in the session folder must not hang a resume.
  const read = await readRegularFile(path, MAX_TRANSCRIPT_BYTES);
  if (!read.ok) {
    if (read.missing) return undefined;
    throw new UbiquityError(`the session transcript ${path} cannot be read: ${read.problem}`);
  }
  const parsed = parseJsonl(read.text);
  const records: TranscriptRecord[] = [];
  const corruptLines = [...parsed.corrupt];
  const notes: TranscriptNote[] = [];
  parsed.values.forEach((value, i) => {
    if (isRecord(value)) records.push(withoutRole(value));
    else if (isNote(value)) notes.push(value);
    else corruptLines.push(parsed.lines[i]!);
  });
  return { records, corruptLines: corruptLines.sort((a, b) => a - b), notes };
}

/** Read a transcript's records; a torn or corrupt line is skipped. Undefined when the file is gone. */
export async function readTranscript(path: string): Promise<TranscriptRecord[] | undefined> {
  return (await readTranscriptFile(path))?.records;
}

/**
 * The records a fork of `source` starts with (up to `upToUuid`, inclusive): every uuid and parent
 * link remapped, the session id replaced. Every store forks through this.
 */
export function forkCopy(
  source: StoredSession,
  options: ForkOptions = {},
): { sessionId: string; records: TranscriptRecord[]; cwd: string } {
  let records = source.records;
  if (options.upToUuid !== undefined) {
    const at = records.findIndex((r) => r.uuid === options.upToUuid);
    if (at < 0) {
      throw new SessionNotFoundError(
        `Session ${source.sessionId} has no record with uuid "${options.upToUuid}": pick one from ubiquity sessions show ${source.sessionId} --json`,
      );
    }
    records = records.slice(0, at + 1);
  }
  const newId = options.sessionId ?? randomUUID();
  const cwd = options.cwd ?? source.cwd;
  const uuids = new Map(records.map((r) => [r.uuid, randomUUID()] as const));
  const copied = records.map((r): TranscriptRecord => {
    const uuid = uuids.get(r.uuid)!;
    return {
      ...r,
      uuid,
      parentUuid: r.parentUuid === null ? null : (uuids.get(r.parentUuid) ?? null),
      sessionId: newId,
      cwd: options.cwd !== undefined ? cwd : r.cwd,
      message: { ...r.message, uuid, sessionId: newId },
    };
  });
  return { sessionId: newId, records: copied, cwd };
}

/** Session transcripts under one root folder: the default `SessionBackend`. */
export class SessionStore implements SessionBackend {
  /** The sessions root. */
  readonly dir: string;
  readonly kind = "jsonl";
  /** Two writers of one file are kept apart by a lock (lock.ts); the second forks. */
  readonly refusesStaleWriters = false;

  constructor(options: SessionStoreOptions = {}) {
    this.dir = storageRoot(options.dir, process.cwd(), "sessions");
  }

  /** The sessions root. */
  get location(): string {
    return this.dir;
  }

  /** True when a transcript of this id is stored under `cwd`'s folder. */
  async exists(sessionId: string, cwd: string): Promise<boolean> {
    return (await stat(this.pathFor(sessionId, cwd)).catch(() => undefined)) !== undefined;
  }

  /** The writer's handle on a transcript file (`path`, else where a session of `cwd` goes). */
  appender(sessionId: string, cwd: string, path?: string): SessionAppender {
    return new FileAppender(sessionId, path ?? this.pathFor(sessionId, cwd));
  }

  /** Where a new session of `cwd` is written. */
  pathFor(sessionId: string, cwd: string): string {
    if (!isSessionId(sessionId))
      throw new TypeError(`invalid session id ${JSON.stringify(sessionId)}: use letters, digits, "-" and "_"`);
    return join(this.dir, projectSlug(cwd), `${sessionId}.jsonl`);
  }

  /** Sessions, newest first: those of `cwd` only when given, at most `limit`. */
  async list(options: ListOptions = {}): Promise<SessionInfo[]> {
    const folders = options.cwd !== undefined ? [projectSlug(options.cwd)] : await this.#folders();
    const files: { path: string; sessionId: string; mtimeMs: number }[] = [];
    for (const folder of folders) {
      for (const name of await readdir(join(this.dir, folder)).catch(() => [] as string[])) {
        if (!name.endsWith(".jsonl")) continue;
        const path = join(this.dir, folder, name);
        const info = await stat(path).catch(() => undefined);
        if (info?.isFile()) files.push({ path, sessionId: name.slice(0, -".jsonl".length), mtimeMs: info.mtimeMs });
      }
    }
    files.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.sessionId < b.sessionId ? -1 : 1));
    const limit = options.limit ?? Infinity;
    const out: SessionInfo[] = [];
    for (const file of files) {
      if (out.length >= limit) break;
      const records = await readTranscript(file.path);
      if (!records || records.length === 0) continue;
      const info = this.#info(file.sessionId, records, file.mtimeMs);
      // The slug folder can in principle hold another folder's sessions; the records know.
      if (options.cwd !== undefined && info.cwd !== resolve(options.cwd)) continue;
      out.push(info);
    }
    return out;
  }

  /**
   * One session with its records, or undefined when no transcript has this id. `near` (a cwd)
   * is looked in first; every project folder is searched after it.
   */
  async get(sessionId: string, near?: string): Promise<StoredSession | undefined> {
    const path = await this.#locate(sessionId, near);
    if (!path) return undefined;
    const [read, info] = await Promise.all([readTranscriptFile(path), stat(path).catch(() => undefined)]);
    if (!read || !info || read.records.length === 0) return undefined;
    return {
      ...this.#info(sessionId, read.records, info.mtimeMs),
      records: read.records,
      path,
      corruptLines: read.corruptLines,
      notes: read.notes,
    };
  }

  /**
   * Copy a session (up to `upToUuid`, inclusive) into a new one: every uuid and parent link is
   * remapped, the session id replaced; the source is not touched. Returns the new session id.
   */
  async fork(sessionId: string, options: ForkOptions = {}): Promise<string> {
    return (await this.forkRecords(sessionId, options)).sessionId;
  }

  /** `fork()`, also returning the copied records (what the sessions plugin replays). */
  async forkRecords(sessionId: string, options: ForkOptions = {}): Promise<ForkedSession> {
    const source = await this.get(sessionId, options.cwd);
    if (!source)
      throw new SessionNotFoundError(
        `No stored session with id "${sessionId}" in ${this.location}: check the id (ubiquity sessions list)`,
      );
    const { sessionId: newId, records: copied, cwd } = forkCopy(source, options);
    const path = this.pathFor(newId, cwd);
    // Whole file through a temp + rename: a crash leaves no half fork behind.
    await writeFileAtomic(path, copied.map((r) => `${JSON.stringify(r)}\n`).join(""), { private: true });
    return { sessionId: newId, records: copied, path };
  }

  /**
   * Delete a session's transcript; false when there was none. Refused while a run writes it (in
   * this process or another): that run would go on appending to a file nobody could find.
   */
  async delete(sessionId: string): Promise<boolean> {
    const path = await this.#locate(sessionId);
    if (!path) return false;
    const holder = acquireLock(path);
    if (holder) {
      throw new UbiquityError(
        `session ${sessionId} is being written by a run (pid ${holder.pid} on ${holder.host}${holder.since ? ` since ${holder.since}` : ""}); ` +
          `delete it once that run ended (a lock a crashed run left is taken over: ${lockPathOf(path)})`,
      );
    }
    try {
      await unlink(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
    } finally {
      releaseLock(path);
    }
    return true;
  }

  #info(sessionId: string, records: readonly TranscriptRecord[], mtimeMs: number): SessionInfo {
    return {
      sessionId,
      summary: summarize(records),
      createdAt: records[0]!.timestamp,
      updatedAt: new Date(mtimeMs).toISOString(),
      messageCount: records.length,
      cwd: records[0]!.cwd,
    };
  }

  async #folders(): Promise<string[]> {
    const entries = await readdir(this.dir, { withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  }

  /** The transcript of `sessionId`: the folder of `near` (a cwd) first, then every project. */
  async #locate(sessionId: string, near?: string): Promise<string | undefined> {
    if (!isSessionId(sessionId)) return undefined;
    const folders = await this.#folders();
    if (near !== undefined) {
      const slug = projectSlug(near);
      folders.sort((a, b) => Number(b === slug) - Number(a === slug));
    }
    for (const folder of folders) {
      const path = join(this.dir, folder, `${sessionId}.jsonl`);
      if ((await stat(path).catch(() => undefined))?.isFile()) return path;
    }
    return undefined;
  }
}
