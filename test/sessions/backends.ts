/**
 * The session stores the shared sessions suite runs against: the JSONL files and PostgreSQL
 * (a throw-away server, test/helpers/postgres.ts). `describe.each(BACKENDS)` plus
 * `useBackend(kind)` in the block gives each test a fresh, empty store and the run options and
 * plugins that put a run on it; the few checks that look at storage itself go through `raw`,
 * `touch` and `truncate`.
 */
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { Plugin } from "ubiquity";
import sessions, { SessionStore, type SessionBackend, type TranscriptRecord } from "ubiquity/plugins/sessions";
import sessionsPostgres, { PostgresSessionStore } from "ubiquity/plugins/sessions-postgres";
import { postgresMissing, usePostgres } from "../helpers/postgres";
import { tempDirs } from "./helpers";

/** The stores, for `describe.each`. */
export const BACKENDS = ["jsonl", "postgres"] as const;
export type BackendKind = (typeof BACKENDS)[number];

/** Why a store's tests cannot run here (only PostgreSQL can be missing). */
export const backendMissing = (kind: BackendKind) => (kind === "postgres" ? postgresMissing : undefined);

/** One fresh store. */
export interface BackendFixture {
  kind: BackendKind;
  /** Run options that put a run on this store. */
  options: Record<string, unknown>;
  /** The plugins a run needs for it (sessions, and the Postgres store's). */
  plugins(): Plugin[];
  /** The store itself. */
  store: SessionBackend;
  /** CLI flags that point `ubiquity sessions` at it (`--session-dir`, or `--config` of a file naming the database), and those config keys. */
  cli: { flags: string[]; config: Record<string, unknown> };
  /** The stored bytes of a session (to check that it was left untouched). */
  raw(sessionId: string): Promise<string>;
  /** Make a session's last write `at` (list order). */
  touch(sessionId: string, at: Date): Promise<void>;
  /** Keep only the first `keep` records of a session (a crash that lost the rest). */
  truncate(sessionId: string, keep: number): Promise<void>;
}

/** A maker of fresh stores of `kind` for the tests of the calling describe block. */
export function useBackend(kind: BackendKind): () => Promise<BackendFixture> {
  const temp = tempDirs();
  const pg = kind === "postgres" ? usePostgres() : undefined;
  const open: SessionBackend[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close?.();
  });
  return async () => {
    if (kind === "jsonl") {
      const sessionDir = temp();
      const store = new SessionStore({ dir: sessionDir });
      const path = async (id: string) => (await store.get(id))!.path;
      return {
        kind,
        options: { sessionDir },
        plugins: () => [sessions()],
        store,
        cli: { flags: ["--session-dir", sessionDir], config: { sessionDir } },
        raw: async (id) => readFileSync(await path(id), "utf8"),
        touch: async (id, at) => utimesSync(await path(id), at, at),
        truncate: async (id, keep) => {
          const { records, path: file } = (await store.get(id))!;
          writeFileSync(
            file,
            records
              .slice(0, keep)
              .map((r) => `${JSON.stringify(r)}\n`)
              .join(""),
          );
        },
      };
    }
    const connectionString = await pg!.database();
    const store = new PostgresSessionStore(connectionString);
    open.push(store);
    const sessionStore = { postgres: { connectionString } };
    const config = join(temp("ubq-pg-config-"), "ubiquity.config.json");
    writeFileSync(config, JSON.stringify({ sessionStore }));
    return {
      kind,
      options: { sessionStore },
      plugins: () => [sessions(), sessionsPostgres()],
      store,
      cli: { flags: ["--config", config], config: { sessionStore } },
      raw: async (id) => {
        const rows = await store.query(
          "select seq, uuid, parent_uuid, kind, body::text from ubiquity_records where session_id = $1 order by seq",
          [id],
        );
        const session = await store.query(
          "select session_id, cwd, created_at, summary, message_count, last_uuid, next_seq from ubiquity_sessions where session_id = $1",
          [id],
        );
        return JSON.stringify({ session: session.rows, rows: rows.rows });
      },
      touch: async (id, at) =>
        void (await store.query("update ubiquity_sessions set updated_at = $2 where session_id = $1", [id, at])),
      truncate: async (id, keep) => {
        const { records } = (await store.get(id))!;
        const kept = records.slice(0, keep);
        await store.query(
          "delete from ubiquity_records where session_id = $1 and kind = 'record' and not (uuid = any($2::text[]))",
          [id, kept.map((r: TranscriptRecord) => r.uuid)],
        );
        await store.query("update ubiquity_sessions set last_uuid = $2, message_count = $3 where session_id = $1", [
          id,
          kept.at(-1)?.uuid ?? null,
          kept.length,
        ]);
      },
    };
  };
}
