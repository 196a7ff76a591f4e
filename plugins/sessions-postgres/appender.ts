/**
 * A writer's handle on one Postgres session. The append is ONE statement that writes the record
 * only if the session's `last_uuid` is still the writer's expected one, and moves `last_uuid` to
 * the new record in the same statement:
 *
 *   insert into ubiquity_sessions … on conflict (session_id) do update set last_uuid = <new> …
 *     where ubiquity_sessions.last_uuid is not distinct from <expected>
 *
 * Why no writer can slip past under READ COMMITTED: two appends to one session both need that
 * row. The second blocks on the first's row lock; when the first commits, PostgreSQL re-checks
 * the second's WHERE against the row as the first left it (`last_uuid` = the first's record), the
 * check fails, nothing is updated and — the record insert reading the update's RETURNING — no
 * record is inserted. A new session is the same race on the primary key: the loser's insert
 * turns into the conflict update, whose check (`last_uuid is not distinct from null`) fails.
 * The primary key (session_id, seq) of the records backs it up: two records can never share a
 * place in the order.
 */
import type { SessionAppender, TranscriptEntry, TranscriptRecord } from "../sessions/index";
import { StaleWriterError } from "../sessions/index";
import type { PostgresSessionStore } from "./store";
import { summaryOf } from "./summary";

/** The append of a record (parameters: `appendRecordParams`). */
export const APPEND_RECORD = `
  with s as (
    insert into ubiquity_sessions as s (session_id, cwd, created_at, summary, message_count, last_uuid, next_seq)
    select $1, $2, $3, $4, 1, $5, 1
    where $6::text is null or exists (select 1 from ubiquity_sessions where session_id = $1)
    on conflict (session_id) do update
      set last_uuid = excluded.last_uuid, next_seq = s.next_seq + 1, message_count = s.message_count + 1,
          updated_at = now(), summary = coalesce(s.summary, excluded.summary)
      where s.last_uuid is not distinct from $6::text
    returning s.next_seq - 1 as seq
  )
  insert into ubiquity_records (session_id, seq, uuid, parent_uuid, kind, body)
  select $1, seq, $5, $7, 'record', $8::json from s`;

/**
 * The append of a note: $1 session, $2 expected last record, $3 the note, $4 the writer's cwd.
 * A note may come before the session's first record (a fleet job names itself before its run
 * writes anything): it then creates the session's row, with no record (list() and get() show no
 * session until one is appended).
 */
export const APPEND_NOTE = `
  with s as (
    insert into ubiquity_sessions as s (session_id, cwd, created_at, message_count, last_uuid, next_seq)
    select $1, $4, ($3::json)->>'timestamp', 0, null, 1
    where $2::text is null or exists (select 1 from ubiquity_sessions where session_id = $1)
    on conflict (session_id) do update set next_seq = s.next_seq + 1, updated_at = now()
      where s.last_uuid is not distinct from $2::text
    returning s.next_seq - 1 as seq
  )
  insert into ubiquity_records (session_id, seq, kind, body)
  select $1, seq, 'note', $3::json from s`;

/** The parameters of `APPEND_RECORD`. */
export function appendRecordParams(
  sessionId: string,
  record: TranscriptRecord,
  expectedLast: string | null,
): unknown[] {
  return [
    sessionId,
    record.cwd,
    record.timestamp,
    summaryOf([record]),
    record.uuid,
    expectedLast,
    record.parentUuid,
    JSON.stringify(record),
  ];
}

/** Appends to one session, in the order they are issued. */
export class PostgresAppender implements SessionAppender {
  #chain: Promise<unknown> = Promise.resolve();
  /** The first append that failed or was refused: every later one is refused with it. */
  #broken: unknown;

  constructor(
    private readonly store: PostgresSessionStore,
    private readonly sessionId: string,
    readonly path: string,
    /** The writer's working directory: a note before the first record creates the session's row with it. */
    private readonly cwd = "",
  ) {}

  async last(): Promise<string | null> {
    const { rows } = await this.store.query<{ last_uuid: string | null }>(
      "select last_uuid from ubiquity_sessions where session_id = $1",
      [this.sessionId],
    );
    return rows[0]?.last_uuid ?? null;
  }

  append(entry: TranscriptEntry, expectedLast: string | null): Promise<void> {
    const run = () => this.#append(entry, expectedLast);
    const done = this.#chain.then(run, run);
    this.#chain = done.catch(() => {});
    return done;
  }

  async close(): Promise<void> {
    await this.#chain;
  }

  async #append(entry: TranscriptEntry, expectedLast: string | null): Promise<void> {
    // Once one append failed or was refused, every later one is: the writer issues its appends
    // without waiting, so the next is already queued, and it must not be stored after the gap. A
    // note does not move the session's last record, so the store's own check would let a record
    // through after a lost note (a fleet job's note lost to a connection reset, its records kept:
    // the job's retry was refused as another job's takeover).
    if (this.#broken !== undefined) throw this.#broken;
    try {
      await this.#write(entry, expectedLast);
    } catch (error) {
      this.#broken = error;
      throw error;
    }
  }

  async #write(entry: TranscriptEntry, expectedLast: string | null): Promise<void> {
    const { rowCount } =
      entry.type === "note"
        ? await this.store.query(APPEND_NOTE, [this.sessionId, expectedLast, JSON.stringify(entry), this.cwd])
        : await this.store.query(APPEND_RECORD, appendRecordParams(this.sessionId, entry, expectedLast));
    if (rowCount === 1) return;
    // The store could not say what it holds (still unreachable): the append failed, it was not refused.
    const actual = await this.last();
    // Sent again after a connection was lost (store.query): the first try committed, its answer did not arrive.
    if (entry.type !== "note" && actual === entry.uuid) return;
    throw new StaleWriterError(this.sessionId, expectedLast, actual, this.path);
  }
}
