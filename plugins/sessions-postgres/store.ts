/**
 * `PostgresSessionStore`: sessions in two tables (`ubiquity_sessions`, one row per session with
 * its last record; `ubiquity_records`, one row per record or note, in order). It keeps the JSONL
 * store's behaviour — list newest first, get, fork, delete — and its appends refuse a stale
 * writer in one statement (appender.ts). The pool is made and the schema migrated on first use.
 */
import { resolve } from "node:path";
import { UbiquityError } from "../../src/index";
import {
  SessionNotFoundError,
  forkCopy,
  isSessionId,
  summarize,
  type ForkOptions,
  type ForkedSession,
  type ListOptions,
  type SessionAppender,
  type SessionBackend,
  type SessionInfo,
  type StoredSession,
  type TranscriptNote,
  type TranscriptRecord,
} from "../sessions/index";
import { PostgresAppender } from "./appender";
import { createPool, describeDatabase, isOutage, type PgPool } from "./driver";
import { migrate } from "./migrations";
import { summaryOf } from "./summary";

interface SessionRow {
  session_id: string;
  cwd: string;
  summary: string;
  created_at: string;
  updated_at: Date;
  message_count: number;
}

const info = (row: SessionRow): SessionInfo => ({
  sessionId: row.session_id,
  summary: row.summary,
  createdAt: row.created_at,
  updatedAt: row.updated_at.toISOString(),
  messageCount: row.message_count,
  cwd: row.cwd,
});

/** True when `error` (or its cause) is PostgreSQL's unique violation. */
function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; depth++) {
    if (e.code === "23505") return true;
    e = e.cause as typeof e;
  }
  return false;
}

/** Default `outageTimeoutMs`: a restart or a failover takes seconds; a run waits this long before it fails. */
export const DEFAULT_OUTAGE_TIMEOUT_MS = 30_000;

/** Options of a `PostgresSessionStore`. */
export interface PostgresStoreOptions {
  /** How long a statement is retried while the database cannot be reached [30000]. */
  outageTimeoutMs?: number;
  /** Told once per outage when it starts and when it ends (the worker pauses on it). */
  onOutage?(state: "down" | "up", error?: unknown): void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sessions in a PostgreSQL database. */
export class PostgresSessionStore implements SessionBackend {
  readonly kind = "postgres";
  /** Two writers may append at once: the store refuses the stale one, so no lock and no fork is needed. */
  readonly refusesStaleWriters = true;
  /** The database, without its password. */
  readonly location: string;
  #pool: Promise<PgPool> | undefined;
  #closed = false;
  #down = false;
  readonly #outageMs: number;

  constructor(
    readonly connectionString: string,
    private readonly options: PostgresStoreOptions = {},
  ) {
    this.location = describeDatabase(connectionString);
    this.#outageMs = options.outageTimeoutMs ?? DEFAULT_OUTAGE_TIMEOUT_MS;
  }

  /** True while the last statement found the database unreachable. */
  get unreachable(): boolean {
    return this.#down;
  }

  /** The pool, the schema migrated (once per store; a failure is retried on the next call). */
  pool(): Promise<PgPool> {
    if (this.#closed)
      return Promise.reject(new UbiquityError(`the PostgreSQL session store at ${this.location} is closed`));
    this.#pool ??= (async () => {
      const pool = await createPool(this.connectionString);
      // A dropped idle connection must not crash the process; the next query reconnects.
      pool.on("error", () => {});
      try {
        await migrate(pool);
      } catch (error) {
        await pool.end().catch(() => {});
        // Kept as it came: the caller tells an outage (retried) from a real failure.
        throw error;
      }
      return pool;
    })().catch((error: unknown) => {
      this.#pool = undefined;
      throw error;
    });
    return this.#pool;
  }

  /**
   * Run one statement, its failure named after the store. While the database cannot be reached
   * (a restart, a failover), the statement is tried again with backoff for up to
   * `outageTimeoutMs`; a statement that committed but whose answer was lost is sent again, so a
   * caller whose statement is not idempotent checks what the store holds (the appender does).
   */
  async query<R extends object = Record<string, unknown>>(
    sql: string,
    values: unknown[] = [],
  ): Promise<{ rows: R[]; rowCount: number }> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await (await this.pool()).query<R>(sql, values);
        this.#state(false);
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      } catch (error) {
        const waited = Date.now() - started;
        if (this.#closed || !isOutage(error)) throw this.#wrap(error);
        this.#state(true, error);
        if (waited >= this.#outageMs)
          throw this.#wrap(
            error,
            `; it stayed unreachable for ${(waited / 1000).toFixed(1)} s (outageTimeoutMs: ${this.#outageMs})`,
          );
        // Exponential from 100 ms to 2 s with full jitter, never past the bound.
        const wait = Math.floor(Math.random() * Math.min(2000, 100 * 2 ** attempt));
        await sleep(Math.min(wait, this.#outageMs - waited));
      }
    }
  }

  #state(down: boolean, error?: unknown) {
    if (this.#down === down) return;
    this.#down = down;
    this.options.onOutage?.(down ? "down" : "up", error);
  }

  pathFor(sessionId: string, _cwd?: string): string {
    if (!isSessionId(sessionId))
      throw new TypeError(`invalid session id ${JSON.stringify(sessionId)}: use letters, digits, "-" and "_"`);
    return `${this.location}#${sessionId}`;
  }

  async list(options: ListOptions = {}): Promise<SessionInfo[]> {
    const { rows } = await this.query<SessionRow>(
      `select session_id, cwd, coalesce(summary, '') as summary, created_at, updated_at, message_count from ubiquity_sessions
       where message_count > 0 and ($1::text is null or cwd = $1)
       order by updated_at desc, session_id asc limit $2`,
      [options.cwd !== undefined ? resolve(options.cwd) : null, options.limit ?? null],
    );
    return rows.map(info);
  }

  async get(sessionId: string, _near?: string): Promise<StoredSession | undefined> {
    if (!isSessionId(sessionId)) return undefined;
    const { rows } = await this.query<{ updated_at: Date; kind: string; body: TranscriptRecord | TranscriptNote }>(
      `select s.updated_at, r.kind, r.body from ubiquity_sessions s join ubiquity_records r using (session_id)
       where s.session_id = $1 order by r.seq`,
      [sessionId],
    );
    const records = rows.filter((r) => r.kind === "record").map((r) => r.body as TranscriptRecord);
    if (records.length === 0) return undefined;
    // A note sent again after its answer was lost (query) is stored twice, the same to the millisecond: kept once.
    const notes: TranscriptNote[] = [];
    const seen = new Set<string>();
    for (const row of rows) {
      const key = row.kind === "note" ? JSON.stringify(row.body) : undefined;
      if (key === undefined || seen.has(key)) continue;
      seen.add(key);
      notes.push(row.body as TranscriptNote);
    }
    return {
      sessionId,
      summary: summarize(records),
      createdAt: records[0]!.timestamp,
      updatedAt: rows[0]!.updated_at.toISOString(),
      messageCount: records.length,
      cwd: records[0]!.cwd,
      records,
      path: this.pathFor(sessionId),
      corruptLines: [],
      notes,
    };
  }

  async fork(sessionId: string, options: ForkOptions = {}): Promise<string> {
    return (await this.forkRecords(sessionId, options)).sessionId;
  }

  async forkRecords(sessionId: string, options: ForkOptions = {}): Promise<ForkedSession> {
    const source = await this.get(sessionId, options.cwd);
    if (!source)
      throw new SessionNotFoundError(
        `No stored session with id "${sessionId}" in ${this.location}: check the id (ubiquity sessions list)`,
      );
    const { sessionId: newId, records, cwd } = forkCopy(source, options);
    const path = this.pathFor(newId);
    // One statement: the session row and all its records, or nothing.
    const copy = this.query(
      `with s as (
         insert into ubiquity_sessions (session_id, cwd, created_at, summary, message_count, last_uuid, next_seq)
         values ($1, $2, $3, $4, $5::integer, $6, $5::bigint) returning session_id
       )
       insert into ubiquity_records (session_id, seq, uuid, parent_uuid, kind, body)
       select s.session_id, e.ord - 1, e.value->>'uuid', e.value->>'parentUuid', 'record', e.value
       from s, json_array_elements($7::json) with ordinality as e(value, ord)`,
      [
        newId,
        records[0]?.cwd ?? cwd,
        records[0]?.timestamp ?? new Date().toISOString(),
        summaryOf(records),
        records.length,
        records.at(-1)?.uuid ?? null,
        JSON.stringify(records),
      ],
    );
    await copy.catch(async (error: unknown) => {
      // Sent again after a connection was lost (query): the first try committed and its answer did
      // not arrive, so the re-send meets its own row. The copy's uuids are new: a session that ends
      // with its last record is this copy; any other holder of the id is a real conflict.
      const last = isUniqueViolation(error)
        ? (
            await this.query<{ last_uuid: string | null }>(
              "select last_uuid from ubiquity_sessions where session_id = $1",
              [newId],
            )
          ).rows[0]?.last_uuid
        : undefined;
      if (last === undefined || last !== records.at(-1)?.uuid) throw error;
    });
    return { sessionId: newId, records, path };
  }

  async delete(sessionId: string): Promise<boolean> {
    if (!isSessionId(sessionId)) return false;
    return (await this.query("delete from ubiquity_sessions where session_id = $1", [sessionId])).rowCount > 0;
  }

  async exists(sessionId: string, _cwd?: string): Promise<boolean> {
    if (!isSessionId(sessionId)) return false;
    // A row with notes only (a fleet job's name, written before its first record) is no stored session yet.
    return (
      (await this.query("select 1 from ubiquity_sessions where session_id = $1 and message_count > 0", [sessionId]))
        .rowCount > 0
    );
  }

  appender(sessionId: string, _cwd: string, _path?: string): SessionAppender {
    return new PostgresAppender(this, sessionId, this.pathFor(sessionId), resolve(_cwd));
  }

  /** End the pool (idempotent). */
  async close(): Promise<void> {
    this.#closed = true;
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool) await (await pool.catch(() => undefined))?.end();
  }

  #wrap(error: unknown, more = ""): unknown {
    if (error instanceof UbiquityError && !more) return error;
    const message = error instanceof Error ? error.message : String(error);
    const prefix = error instanceof UbiquityError ? "" : `the PostgreSQL session store at ${this.location} failed: `;
    return new UbiquityError(`${prefix}${message || (error as { code?: string }).code || "unknown error"}${more}`, {
      cause: error,
    });
  }
}
