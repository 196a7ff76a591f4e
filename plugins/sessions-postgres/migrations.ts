/**
 * The store's tables, as numbered migrations recorded in `ubiquity_schema_migrations`. Applying
 * them is idempotent (a recorded version is skipped) and safe when several processes start at
 * once: they queue on one advisory lock, and each applies a migration in its own transaction.
 * A database migrated by a newer release is refused rather than written wrongly.
 */
import type { PgPool } from "./driver";
import { UbiquityError } from "../../src/index";

/** One step of the schema. Append only: a released migration never changes. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The schema, in order. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions, records and todos",
    sql: `
      create table ubiquity_sessions (
        session_id text primary key,
        cwd text not null,
        -- the first record's timestamp, as written (ISO 8601)
        created_at text not null,
        updated_at timestamptz not null default now(),
        -- the first prompt as list() shows it; null until the session has one
        summary text,
        message_count integer not null default 0,
        -- the session's last record: an append names it, or is refused
        last_uuid text,
        next_seq bigint not null default 0
      );
      create index ubiquity_sessions_cwd on ubiquity_sessions (cwd, updated_at desc);
      create index ubiquity_sessions_updated on ubiquity_sessions (updated_at desc);
      create table ubiquity_records (
        session_id text not null references ubiquity_sessions (session_id) on delete cascade,
        seq bigint not null,
        -- null for a note
        uuid text,
        parent_uuid text,
        kind text not null check (kind in ('record', 'note')),
        -- json, not jsonb: a record reads back byte for byte as written
        body json not null,
        primary key (session_id, seq)
      );
      create index ubiquity_records_uuid on ubiquity_records (session_id, uuid);
      create table ubiquity_todos (
        project text not null,
        list_key text not null,
        id text not null,
        body json not null,
        updated_at timestamptz not null default now(),
        primary key (project, list_key, id)
      );
    `,
  },
];

// An arbitrary constant: every ubiquity process migrating this database takes the same lock.
const LOCK_KEY = 0x75627173; // "ubqs"

/** The database's schema is newer than this release knows. */
export class SchemaVersionError extends UbiquityError {
  override name = "SchemaVersionError";
}

/** Apply the migrations the database lacks; resolves to the versions applied now. */
export async function migrate(pool: PgPool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const client = await pool.connect();
  // A server going away while the client is checked out emits `error` on the client itself, which
  // the pool does not listen to then: unhandled, it would end the process. The query fails anyway.
  client.on?.("error", () => {});
  const applied: number[] = [];
  try {
    await client.query("select pg_advisory_lock($1)", [LOCK_KEY]);
    try {
      await client.query(
        "create table if not exists ubiquity_schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())",
      );
      const { rows } = await client.query<{ version: number }>("select version from ubiquity_schema_migrations");
      const done = new Set(rows.map((r) => r.version));
      const known = Math.max(0, ...migrations.map((m) => m.version));
      const newest = Math.max(0, ...done);
      if (newest > known) {
        throw new SchemaVersionError(
          `the PostgreSQL session store's schema is at version ${newest}, newer than this ubiquity knows (${known}): upgrade ubiquity, or point sessionStore.postgres at another database`,
        );
      }
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        await client.query("begin");
        try {
          await client.query(migration.sql);
          await client.query("insert into ubiquity_schema_migrations (version, name) values ($1, $2)", [
            migration.version,
            migration.name,
          ]);
          await client.query("commit");
        } catch (error) {
          await client.query("rollback");
          throw new UbiquityError(
            `migration ${migration.version} (${migration.name}) of the PostgreSQL session store failed: ${(error as Error).message}`,
          );
        }
        applied.push(migration.version);
      }
    } finally {
      await client.query("select pg_advisory_unlock($1)", [LOCK_KEY]);
    }
  } finally {
    client.release();
  }
  return applied;
}
