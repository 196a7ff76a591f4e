/**
 * The fleet's view of the session store: the records of a session (to resume it, to find the
 * tool calls a lost worker left in flight, to stream `fleet logs`), and the run options that make
 * a run write its transcript there. The store is the sessions plugin's backend: PostgreSQL
 * (`ubiquity:sessions-postgres`, whose append succeeds only from the session's last record, so a
 * lost worker's late writes are refused) for a fleet of machines; a folder of JSONL files for one
 * machine (files are locked per writer instead, so a frozen worker's session is forked, not
 * shared: use PostgreSQL when workers can freeze).
 */
import { SessionStore, type SessionBackend, type TranscriptNote, type TranscriptRecord } from "../sessions/index";
import { isPostgresUrl } from "./connection";
import type { PostgresStoreOptions } from "../sessions-postgres/index";

/** What the fleet needs of a session store. */
export interface FleetStore {
  /** A session's records in append order; [] when the store does not know it. */
  records(sessionId: string): Promise<TranscriptRecord[]>;
  /** The uuid of a session's last record (null: none), without reading the session where the store can. */
  lastRecord?(sessionId: string): Promise<string | null>;
  /** A session's records, its notes and where it is kept; undefined when the store does not know it. */
  read(sessionId: string): Promise<{ records: TranscriptRecord[]; notes: TranscriptNote[]; path: string } | undefined>;
  /** Append `record` only if the session's last record is still `expectedLast` (else a `StaleWriterError`). */
  append(record: TranscriptRecord, path: string, expectedLast: string | null): Promise<void>;
  /** The run options that make a run persist to (and resume from) this store. */
  runOptions(): Record<string, unknown>;
  close(): Promise<void>;
}

function backendStore(backend: SessionBackend, runOptions: Record<string, unknown>): FleetStore {
  return {
    records: async (sessionId) => (await backend.get(sessionId))?.records ?? [],
    // PostgreSQL keeps the session's last record on its row (one small query); files are read.
    lastRecord: async (sessionId) =>
      backend.refusesStaleWriters
        ? backend.appender(sessionId, process.cwd()).last()
        : ((await backend.get(sessionId))?.records.at(-1)?.uuid ?? null),
    async read(sessionId) {
      const found = await backend.get(sessionId);
      return found && { records: found.records, notes: found.notes ?? [], path: found.path };
    },
    async append(record, path, expectedLast) {
      const appender = backend.appender(record.sessionId, record.cwd, path);
      try {
        await appender.append(record, expectedLast);
      } finally {
        await appender.close();
      }
    },
    runOptions: () => runOptions,
    close: async () => backend.close?.(),
  };
}

/** A folder of JSONL transcripts (one machine only: for development and single-host fleets). */
export function jsonlStore(dir: string): FleetStore {
  return backendStore(new SessionStore({ dir }), { sessionDir: dir });
}

/**
 * A PostgreSQL database (`postgres://…`): the store for a fleet. `options` are this store's (the
 * outage bound, the worker's outage listener); the runs' stores get the same `outageTimeoutMs`.
 */
export async function postgresStore(connectionString: string, options: PostgresStoreOptions = {}): Promise<FleetStore> {
  const { PostgresSessionStore } = await import("../sessions-postgres/index");
  const outage = options.outageTimeoutMs !== undefined ? { outageTimeoutMs: options.outageTimeoutMs } : {};
  return backendStore(new PostgresSessionStore(connectionString, options), {
    sessionStore: { postgres: { connectionString, ...outage } },
  });
}

/** The store a connection string (PostgreSQL) or folder (JSONL files) names. */
export async function openStore(where: string, options: PostgresStoreOptions = {}): Promise<FleetStore> {
  return isPostgresUrl(where) ? postgresStore(where, options) : jsonlStore(where);
}
